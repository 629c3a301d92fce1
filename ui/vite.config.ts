import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * No chunk of the portal may pass 500 kB (minified): each page is its own chunk, loaded when first
 * opened (ui/src/routes.tsx), so the first load (sign-in, the setup wizard) carries only the shell.
 * A chunk over the budget fails the build rather than warn: split it with a lazy import.
 */
const CHUNK_BUDGET_BYTES = 500_000;

const chunkBudget: Plugin = {
  name: 'campusbridge-chunk-budget',
  generateBundle(_options, bundle) {
    for (const file of Object.values(bundle)) {
      if (file.type !== 'chunk') continue;
      const bytes = Buffer.byteLength(file.code);
      if (bytes > CHUNK_BUDGET_BYTES) {
        this.error(`${file.fileName} is ${Math.round(bytes / 1000)} kB, over the portal's ${CHUNK_BUDGET_BYTES / 1000} kB budget per chunk: load it lazily`);
      }
    }
  },
};

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), chunkBudget],
  build: {
    outDir: path.join(here, '..', 'dist', 'ui'),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: CHUNK_BUDGET_BYTES / 1000,
  },
});
