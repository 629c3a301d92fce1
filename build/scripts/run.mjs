// `npm start` and `npm run cli`: build what is missing, then run the bundle in this process.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildAll } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [what, ...rest] = process.argv.slice(2);
const entries = {
  start: { build: 'all', file: 'dist/server/main.js' },
  cli: { build: 'server', file: 'dist/server/cli.js' },
  bench: { build: 'server', file: 'tests/bench/run.mjs' },
};
const entry = entries[what];
if (!entry) {
  console.error(`usage: run.mjs ${Object.keys(entries).join('|')} [args]`);
  process.exit(2);
}
await buildAll(entry.build);
process.argv = [process.argv[0], path.join(root, entry.file), ...rest];
await import(pathToFileURL(path.join(root, entry.file)).href);
