// Builds what is missing or stale: the server bundles (esbuild), the portal (vite) and the
// desktop shell's main and preload bundles (esbuild).
// `node build/scripts/build.mjs [server|ui|electron|all] [--force]`
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.join(root, 'dist');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const stat = fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name));
    newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

function isStale(outputs, inputs) {
  const builtAt = Math.min(...outputs.map((file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0)));
  const changedAt = Math.max(...inputs.map((input) => (fs.statSync(input).isDirectory() ? newestMtime(input) : fs.statSync(input).mtimeMs)));
  return builtAt === 0 || changedAt > builtAt;
}

const serverStale = () =>
  isStale(
    ['main.js', 'cli.js'].map((name) => path.join(dist, 'server', name)),
    [path.join(root, 'server'), path.join(root, 'package.json')],
  );
const uiStale = () => isStale([path.join(dist, 'ui', 'index.html')], [path.join(root, 'ui'), path.join(root, 'package.json'), fileURLToPath(import.meta.url)]);

/** The targets of `target` (server, ui, electron) whose outputs are missing or older than their sources. */
export function staleTargets(target = 'all') {
  const checks = { server: serverStale, ui: uiStale, electron: electronStale };
  return Object.keys(checks).filter((name) => (target === 'all' || target === name) && checks[name]());
}

export async function buildServer({ force = false } = {}) {
  if (!force && !serverStale()) return false;
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: 'server/main.ts', cli: 'server/cli/main.ts' },
    outdir: path.join(dist, 'server'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  return true;
}

export async function buildUi({ force = false } = {}) {
  if (!force && !uiStale()) return false;
  const { build } = await import('vite');
  // Always React's production build. Vite keeps a NODE_ENV it finds set, and the tests' global
  // setup runs with vitest's NODE_ENV=test: the portal was built with React's development bundle
  // (several times the rendering work, every warning check on), and `npm start` then served it.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: path.join(root, 'ui', 'vite.config.ts'), logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return true;
}

/** The files the desktop shell's bundle step writes; electron-builder packs them. */
export const electronOutputs = {
  main: path.join(dist, 'electron', 'main.js'),
  preload: path.join(dist, 'electron', 'preload.cjs'),
  trayIcons: ['tray.png', 'tray@2x.png'].map((name) => path.join(dist, 'electron', name)),
};

function electronStale() {
  const outputs = [electronOutputs.main, electronOutputs.preload, ...electronOutputs.trayIcons];
  return isStale(
    outputs,
    ['electron', 'server', 'build/icons', 'package.json'].map((input) => path.join(root, input)),
  );
}

export async function buildElectron({ force = false } = {}) {
  if (!force && !electronStale()) return false;
  const esbuild = await import('esbuild');
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    packages: 'external',
    external: ['electron'],
    sourcemap: true,
    logLevel: 'warning',
  };
  // Main carries the whole server (startAppliance) in one ESM file, as dist/server/main.js does.
  await esbuild.build({ ...common, entryPoints: ['electron/main.ts'], outfile: electronOutputs.main, format: 'esm', target: 'node20' });
  // A sandboxed preload runs as a classic script with only `require('electron')`: CommonJS, nothing else imported.
  await esbuild.build({ ...common, entryPoints: ['electron/preload.ts'], outfile: electronOutputs.preload, format: 'cjs', target: 'chrome120' });
  for (const icon of electronOutputs.trayIcons) fs.copyFileSync(path.join(root, 'build', 'icons', path.basename(icon)), icon);
  return true;
}

export async function buildAll(target = 'all', options = {}) {
  const built = [];
  if (target === 'all' || target === 'server') if (await buildServer(options)) built.push('server');
  if (target === 'all' || target === 'ui') if (await buildUi(options)) built.push('ui');
  if (target === 'all' || target === 'electron') if (await buildElectron(options)) built.push('electron');
  return built;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'all';
  const force = process.argv.includes('--force');
  const built = await buildAll(target, { force });
  console.error(built.length ? `built: ${built.join(', ')}` : 'up to date');
}
