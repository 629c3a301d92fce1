// `npm start` and `npm run cli`: build what is missing (in a child process), then run the bundle in this process.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleTargets } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [what, ...rest] = process.argv.slice(2);
// `npm start` is `node run.mjs start-on-windows || exec node run.mjs start`, and npm appends its
// arguments (`npm start -- --role api`) to the end, so only the `exec` part gets them. On POSIX
// shells this exits at once and the `exec` part starts the server with them, as npm's own child
// (docs/decisions/running-as-a-service.md). cmd.exe has no `exec`, so there this one serves.
if (what === 'start-on-windows' && process.platform !== 'win32') process.exit(1);
const entries = {
  start: { build: 'all', file: 'dist/server/main.js' },
  'start-on-windows': { build: 'all', file: 'dist/server/main.js' },
  cli: { build: 'server', file: 'dist/server/cli.js' },
  bench: { build: 'server', file: 'tests/bench/run.mjs' },
  soak: { build: 'server', file: 'tests/soak/run.mjs' },
  'soak:writers': { build: 'server', file: 'tests/soak/writers.mjs' },
};
const entry = entries[what];
if (!entry) {
  console.error(`usage: run.mjs ${Object.keys(entries).join('|')} [args]`);
  process.exit(2);
}
// A build (Vite, esbuild and their service process) runs in a child of its own: memory a build
// takes is given back when it ends, so a start that built idles like one that did not.
const stale = staleTargets(entry.build);
if (stale.length) {
  const built = spawnSync(process.execPath, [path.join(root, 'build', 'scripts', 'build.mjs'), entry.build], { stdio: 'inherit' });
  if (built.status !== 0) {
    console.error(`the build of ${stale.join(', ')} failed (exit ${built.status ?? built.signal}); nothing was started`);
    process.exit(1);
  }
}
if (what === 'start' || what === 'start-on-windows') stopWhenOrphaned();
process.argv = [process.argv[0], path.join(root, entry.file), ...rest];
await import(pathToFileURL(path.join(root, entry.file)).href);

/**
 * `npm start` runs this through `sh -c`, and a SIGTERM sent to npm reaches that shell, which dies
 * without passing it on (dash does not exec its one command), leaving this process serving on its
 * own. Being handed to another parent is how that shows: treat it as the SIGTERM it was, so the
 * server's own handler (server/main.ts) stops it cleanly. A signal sent to this process itself,
 * or to the whole process group (Ctrl+C, systemd), arrives as usual.
 */
function stopWhenOrphaned() {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}
