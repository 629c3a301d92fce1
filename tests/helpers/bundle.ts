// The real bundles (`node dist/server/main.js`, `node dist/server/cli.js`, built by the global
// setup) as child processes on a DATA_DIR, for tests that kill the server (SIGKILL), restart it on
// the same folder, or read everything it prints. Everything listens on 127.0.0.1 only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sqlite3 from 'sqlite3';
import { isReadOnlyFtsCheck } from '../../server/db/search-index.js';
import { waitFor } from './wait.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN_BUNDLE = path.join(repoRoot, 'dist', 'server', 'main.js');
export const CLI_BUNDLE = path.join(repoRoot, 'dist', 'server', 'cli.js');
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** Settings a developer's shell could leak into a child; the tests set what they need. */
const APPLIANCE_VARIABLES = [
  'DATABASE_URL',
  'RATE_LIMIT_STORE',
  'ROLE',
  'HOST',
  'PORT',
  'LOG_LEVEL',
  'DATA_DIR',
  'PUBLIC_URL',
  'OUTBOUND_PRIVATE_HOSTS',
  'WEBHOOK_ALLOW_PRIVATE_HOSTS',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_SWEEP_SECONDS',
  'WEBHOOK_TIMEOUT_MS',
  'SMTP_PASSWORD',
];

export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of APPLIANCE_VARIABLES) delete env[name];
  return { ...env, ...extra };
}

export interface CliRun {
  stdout: string;
  stderr: string;
  /** stdout parsed (one JSON value). */
  json: any;
}

/** `node dist/server/cli.js …` on the data folder; a non-zero exit throws with stderr. */
export function cliBundle(dataDir: string, ...argv: string[]): CliRun {
  const result = spawnSync(process.execPath, [CLI_BUNDLE, ...argv], { cwd: repoRoot, env: childEnv({ DATA_DIR: dataDir }), encoding: 'utf8', timeout: 30_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`cli ${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr, json: JSON.parse(result.stdout) };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BundleServer {
  child: ChildProcess;
  origin: string;
  stdout: () => string;
  stderr: () => string;
  /** stdout and stderr interleaved, for failure messages. */
  output: () => string;
  exited: Promise<Exit>;
  alive: () => boolean;
  /** SIGKILL, resolved once the process is gone. */
  kill: () => Promise<Exit>;
  /**
   * SIGTERM, resolved with the exit. The server gives itself 10 s and then exits 1 on its own; the
   * SIGKILL after `timeoutMs` (30 s) only ends a hang, however busy the machine.
   */
  stop: (timeoutMs?: number) => Promise<Exit>;
}

const running = new Set<ChildProcess>();

/** Kills whatever bundle servers are still running (for `afterAll`). */
export function killBundles(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Starts `node dist/server/main.js [argv]` on 127.0.0.1, port 0, and waits for its start line. */
export async function startBundle(dataDir: string, env: Record<string, string> = {}, argv: string[] = []): Promise<BundleServer> {
  const child = spawn(process.execPath, [MAIN_BUNDLE, ...argv], {
    cwd: repoRoot,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  let both = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    both += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    both += chunk;
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (alive()) child.kill('SIGKILL');
    return exited;
  };
  const stop = async (timeoutMs = 30_000) => {
    if (alive()) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    const origin = await waitFor(
      () => {
        if (!alive()) throw new Error(`the server exited before its start line:\n${both}`);
        return out.match(LISTENING)?.[1];
      },
      'the start line',
      { timeoutMs: 30_000, intervalMs: 25, context: () => both },
    );
    return { child, origin, stdout: () => out, stderr: () => err, output: () => both, exited, alive, kill, stop };
  } catch (error) {
    await kill();
    throw error;
  }
}

/**
 * `PRAGMA integrity_check` of a SQLite file, through the sqlite3 package: `['ok']` when sound.
 * Read-only, the one line FTS5 cannot check without writing is set aside (server/db/search-index.ts).
 */
export function integrityCheck(file: string, options: { readonly?: boolean } = {}): Promise<string[]> {
  const mode = options.readonly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE;
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (openError) => {
      if (openError) return reject(openError);
      db.configure('busyTimeout', 10_000);
      db.all('PRAGMA integrity_check', (queryError, rows: Array<Record<string, string>>) => {
        const lines = (rows ?? []).map((row) => String(Object.values(row)[0])).filter((line) => !isReadOnlyFtsCheck(line));
        db.close(() => (queryError ? reject(queryError) : resolve(lines.length ? lines : ['ok'])));
      });
    });
  });
}

export interface JsonAnswer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** One JSON request to the server (a key's `Authorization` when given). */
export async function callJson(
  origin: string,
  method: string,
  pathname: string,
  options: { auth?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.Authorization = `Bearer ${options.auth}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${origin}${pathname}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text, headers: res.headers };
}

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  close: () => Promise<void>;
}

/** Starts an HTTP server (a webhook receiver) on 127.0.0.1, port 0. */
export async function listenOnLoopback(server: http.Server): Promise<LoopbackReceiver> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
