// Electron's own install script downloads its binary and fails the whole `npm ci` when the
// machine cannot reach the download host. package.json denies that script (allowScripts) and
// runs it here instead, so the binary is installed where it can be and its absence is a warning.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
let installScript;
try {
  installScript = path.join(path.dirname(require.resolve('electron/package.json')), 'install.js');
} catch {
  process.exit(0); // production install without devDependencies
}
if (!existsSync(installScript)) process.exit(0);

const result = spawnSync(process.execPath, [installScript], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
if (result.status === 0) {
  console.log('electron: binary installed');
} else {
  const reason = (result.stderr?.toString() ?? '').split('\n').find((line) => line.trim()) ?? 'unknown error';
  console.warn(`electron: binary not installed (${reason.trim()}); the desktop shell needs it, the server and tests do not`);
}
