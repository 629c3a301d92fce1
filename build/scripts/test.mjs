// `npm test` and `npm run test:<tier>`: the static checks and the test tiers (CONTRIBUTING.md#tests),
// then one table of what each took.
//
//   node build/scripts/test.mjs                 everything: static checks and every tier
//   node build/scripts/test.mjs unit system     those tiers only ("static" is one too)
//   node build/scripts/test.mjs integration -- server/routes/students   more vitest arguments
//   node build/scripts/test.mjs --record-durations   also rewrite tests/durations.json (the order suites start in)
//
// The static checks (tsc per target, eslint, prettier) run beside the tests at a lower priority,
// so they use the time the tests spend waiting rather than adding theirs to it. Test data folders
// go to a memory-backed temp folder where the machine has one (/dev/shm): the tests' SQLite files
// are many, small and thrown away, and nothing about them needs a disk.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TIERS = ['unit', 'integration', 'system', 'browser', 'proof'];
// The static checks keep what they learned in node_modules/.cache/campusbridge, so a warm checkout
// checks only what changed: the type checks as incremental builds (their .tsbuildinfo holds each
// file's diagnostics too), eslint and prettier with their caches (a file's results, keyed by its
// contents and the configuration). A fresh clone has no cache and checks everything.
// The type checks use TypeScript 7's native compiler (`typescript-native`), one thread each: the
// same verdicts as TypeScript 5.9's tsc in about a quarter of the CPU time (docs/architecture.md#typescript).
const cache = (name) => path.join('node_modules', '.cache', 'campusbridge', name);
const nativeTsc = (target) => [
  'node',
  [
    'node_modules/typescript-native/bin/tsc',
    '-p',
    `tsconfig.${target}.json`,
    '--noEmit',
    '--singleThreaded',
    '--incremental',
    '--tsBuildInfoFile',
    cache(`${target}.tsbuildinfo`),
  ],
];
const STATIC = [
  ['tsc server', ...nativeTsc('server')],
  ['tsc ui', ...nativeTsc('ui')],
  ['tsc electron', ...nativeTsc('electron')],
  ['tsc tests', ...nativeTsc('tests')],
  ['eslint', 'npx', ['eslint', '--max-warnings', '0', '--cache', '--cache-location', cache('eslint'), '.']],
  ['prettier', 'npx', ['prettier', '--check', '--log-level', 'warn', '--cache', '--cache-location', cache('prettier'), '.']],
];

const separator = process.argv.indexOf('--');
const given = separator === -1 ? process.argv.slice(2) : process.argv.slice(2, separator);
// `--record-durations`: each suite's time goes to tests/durations.json, the order a fresh clone runs them in.
const recordDurations = given.includes('--record-durations');
const words = given.filter((word) => word !== '--record-durations');
const vitestExtra = separator === -1 ? [] : process.argv.slice(separator + 1);
const unknown = words.filter((word) => word !== 'static' && !TIERS.includes(word));
if (unknown.length) {
  console.error(`unknown tier ${unknown.join(', ')}; the tiers are static, ${TIERS.join(', ')}`);
  process.exit(2);
}
const wanted = words.length ? words : ['static', ...TIERS];
const tiers = TIERS.filter((name) => wanted.includes(name));

/** Runs a command, its output prefixed when `label` is given; resolves with its exit code and seconds. */
function run(command, args, { label, env = process.env, nice = false } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const [file, fileArgs] = nice && process.platform !== 'win32' ? ['nice', ['-n', '10', command, ...args]] : [command, args];
    const child = spawn(file, fileArgs, { cwd: root, env, stdio: label ? ['ignore', 'pipe', 'pipe'] : 'inherit', shell: process.platform === 'win32' });
    let output = '';
    if (label) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.on('close', (code) => resolve({ code: code ?? 1, seconds: (Date.now() - started) / 1000, output }));
  });
}

/** The static checks, two at a time (this machine's cores); each one's output is printed when it ends. */
async function staticChecks() {
  const results = [];
  const queue = [...STATIC];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, command, args] = next;
      const result = await run(command, args, { label: name, nice: tiers.length > 0 });
      if (result.code !== 0 || result.output.trim()) process.stdout.write(`\n[${name}] exit ${result.code}\n${result.output}\n`);
      results.push({ name, ...result });
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

/** A temp folder for the test run, in memory where there is one; removed afterwards. */
function testTempDir() {
  const shm = '/dev/shm';
  let base = os.tmpdir();
  try {
    fs.accessSync(shm, fs.constants.W_OK);
    if (fs.statfsSync(shm).bavail * fs.statfsSync(shm).bsize > 2 * 1024 ** 3) base = shm;
  } catch {
    // No memory-backed folder: the system's temp folder.
  }
  const dir = fs.mkdtempSync(path.join(base, 'campusbridge-tests-'));
  // The tests' PostgreSQL cluster runs as the `postgres` user when the tests run as root, in a
  // folder below this one: it must be able to pass through.
  fs.chmodSync(dir, 0o755);
  return dir;
}

const started = Date.now();
const staticRun = wanted.includes('static') ? staticChecks() : Promise.resolve([]);
let vitest = null;
let timings = {};
if (tiers.length) {
  const tmp = testTempDir();
  const timingsFile = path.join(tmp, 'tier-times.json');
  const projects = tiers.flatMap((name) => ['--project', name, '--project', `${name}:*`]);
  vitest = await run('npx', ['vitest', 'run', ...projects, ...vitestExtra], {
    env: {
      ...process.env,
      TMPDIR: tmp,
      CB_TEST_TIMINGS: timingsFile,
      ...(recordDurations ? { CB_RECORD_DURATIONS: path.join(root, 'tests', 'durations.json') } : {}),
    },
  });
  if (fs.existsSync(timingsFile)) timings = JSON.parse(fs.readFileSync(timingsFile, 'utf8'));
  fs.rmSync(tmp, { recursive: true, force: true });
}
const statics = await staticRun;

const rows = [];
for (const check of statics) rows.push([`static: ${check.name}`, `${check.seconds.toFixed(0)} s`, check.code === 0 ? 'ok' : `failed (exit ${check.code})`]);
for (const name of tiers) {
  const tier = timings[name];
  if (!tier) continue;
  rows.push([
    name,
    `${tier.wallSeconds.toFixed(0)} s`,
    `${tier.files} files, ${tier.passed} passed, ${tier.failed} failed, ${tier.skipped} skipped (${tier.fileSeconds.toFixed(0)} s of suites)`,
  ]);
}
rows.push(['whole run', `${((Date.now() - started) / 1000).toFixed(0)} s`, '']);
const width = Math.max(...rows.map((row) => row[0].length));
process.stdout.write(
  `\nTime by tier (wall clock; tiers and static checks overlap):\n${rows.map(([a, b, c]) => `  ${a.padEnd(width)}  ${b.padStart(6)}  ${c}`).join('\n')}\n`,
);

const failed = statics.some((check) => check.code !== 0) || (vitest !== null && vitest.code !== 0);
process.exit(failed ? 1 : 0);
