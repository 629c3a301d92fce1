// The appliance under test: the real bundle (dist/server/main.js) on a temp data folder, bound
// to 127.0.0.1, with its CLI for setup and keys, and a small JSON client for the API.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const execFileAsync = promisify(execFile);
/** The checkout whose dist/server bundle runs: this one, or another build given with `--app`. */
let appRoot = root;

export function useAppliance(dir) {
  appRoot = path.resolve(dir);
  if (!fs.existsSync(path.join(appRoot, 'dist/server/main.js'))) throw new Error(`no dist/server/main.js in ${appRoot}: build it first`);
  return appRoot;
}
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/** The environment of the bundle and the CLI: the data folder, and the PostgreSQL database when given (else SQLite in the folder). */
export function benchEnv(dataDir, databaseUrl = null) {
  const { DATABASE_URL: _inherited, ...inherited } = process.env;
  return {
    ...inherited,
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // The webhook receiver of the benchmark is on 127.0.0.1, a private address.
    OUTBOUND_PRIVATE_HOSTS: '1',
  };
}

/** `campusbridge <args>` against the data folder; answers the parsed JSON it prints. */
export async function cli(env, ...args) {
  const { stdout } = await execFileAsync(process.execPath, [path.join(appRoot, 'dist/server/cli.js'), ...args], { env, encoding: 'utf8' });
  return JSON.parse(stdout);
}

/** `count` keys of 6000 requests/min each (the ceiling of one key), created 4 at a time. */
export async function createKeys(env, institutionId, count) {
  const keys = [];
  for (let i = 0; i < count; i += 4) {
    const batch = Array.from({ length: Math.min(4, count - i) }, () =>
      cli(env, 'key', 'create', '--institution', institutionId, '--name', 'bench', '--scopes', 'all', '--rate-limit', '6000'),
    );
    for (const created of await Promise.all(batch)) keys.push(created.key);
  }
  return keys;
}

/**
 * Starts dist/server/main.js and resolves at its start line. `coldStartMs` is from spawn to that
 * line. Options: a CPU profile folder (--cpu-prof) and the statement-counting preload.
 */
export async function startServer(env, { profileDir = null, countSql = false, sqlFile = null } = {}) {
  const nodeArgs = [];
  if (profileDir) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  if (countSql) nodeArgs.push('--import', pathToFileURL(path.join(root, 'tests/bench/sql-count.mjs')).href);
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, path.join(appRoot, 'dist/server/main.js')], {
    env: { ...env, BENCH_SQL_FILE: sqlFile ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderrTail = '';
  child.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
  });
  const origin = await new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`no start line within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code} before its start line:\n${stderrTail}`));
    });
  });
  const coldStartMs = performance.now() - started;
  child.stdout.resume(); // request log lines: read and dropped, so the pipe never fills
  return { child, origin, coldStartMs, pid: child.pid };
}

export async function stopServer(server) {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Resident set of a process, from /proc (Linux), in MB. */
export function rssMb(pid) {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

const clientAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One JSON request; answers { status, body, ms }. */
export function api(origin, key, method, pathname, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${origin}${pathname}`,
      {
        method,
        agent: clientAgent,
        headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode, body: parsed, text, ms: performance.now() - started });
        });
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${pathname}: no answer in 120 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export function closeClient() {
  clientAgent.destroy();
}
