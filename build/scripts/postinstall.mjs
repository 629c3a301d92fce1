// After `npm install` / `npm ci`: the fixes to dependencies in build/patches (patch-package), then
// Electron's binary where it can be downloaded (install-electron.mjs).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

let patchPackage = null;
try {
  patchPackage = require.resolve('patch-package/index.js');
} catch {
  // A production install without devDependencies: the patches only make things faster.
}
if (patchPackage) {
  const patched = spawnSync(process.execPath, [patchPackage, '--patch-dir', 'build/patches', '--error-on-fail'], { cwd: root, stdio: 'inherit' });
  if (patched.status !== 0) process.exit(patched.status ?? 1);
}
const electron = spawnSync(process.execPath, [path.join(root, 'build', 'scripts', 'install-electron.mjs')], { cwd: root, stdio: 'inherit' });
process.exit(electron.status ?? 1);
