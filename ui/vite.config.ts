import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.join(here, '..', 'dist', 'ui'),
    emptyOutDir: true,
    sourcemap: true,
    // The portal is served from this computer or the campus network, not over the internet:
    // one ~560 kB chunk (mostly Mantine) loads once and is cached; learners never load it.
    chunkSizeWarningLimit: 800,
  },
});
