// @tier system
// @databases sqlite: npm start on a DATA_DIR, whose SQLite file it opens
// `npm start` as a service manager or an operator runs it (docs/decisions/running-as-a-service.md): SIGTERM or SIGINT
// sent to the npm process itself stops the server cleanly within 10 s and leaves no orphan
// serving. npm runs the script through `sh -c`, so the server is npm's grandchild.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDirs } from './helpers/appliance.js';
import { waitFor } from './helpers/wait.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
// `npm start` builds what changed first (the portal with Vite when it did).
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

const makeDataDir = tempDataDirs('campusbridge-npm-');
const leftovers = new Set<number>();
afterAll(() => {
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `pid`, read from `ps` (the server is npm's grandchild, through sh). */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function npmStart(
  dataDir: string,
  options: { detached?: boolean } = {},
): { npm: ChildProcess; output: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'RATE_LIMIT_STORE', 'LOG_LEVEL', 'WEBHOOK_RETRY_SCHEDULE']) delete env[name];
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  leftovers.add(npm.pid!);
  let output = '';
  npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { npm, output: () => output, exited };
}

/**
 * Sends the signal, then checks that every process npm started has ended within 10 s, that the
 * server stopped through its own handler (it logs `stopped` right before exiting 0), and that
 * nothing answers on its port any more.
 */
async function expectCleanStop(started: ReturnType<typeof npmStart>, send: () => void): Promise<void> {
  const [, origin] = await waitFor(() => started.output().match(LISTENING), 'the start line', { timeoutMs: START_TIMEOUT_MS, context: started.output });
  const below = descendants(started.npm.pid!);
  for (const pid of below) leftovers.add(pid);
  expect(below.length).toBeGreaterThan(0);
  expect((await fetch(`${origin}/healthz`)).status).toBe(200);

  const signalled = Date.now();
  send();

  await started.exited;
  await waitFor(() => below.every((pid) => !alive(pid)), 'every process npm started to end', { timeoutMs: STOP_TIMEOUT_MS, context: started.output });
  expect(Date.now() - signalled).toBeLessThan(STOP_TIMEOUT_MS);
  await waitFor(() => started.output().includes('"msg":"stopped"'), 'the server to say it stopped', { context: started.output });
  expect(started.output()).not.toContain('stop took longer');
  await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
}

describe.skipIf(process.platform === 'win32')('npm start', () => {
  it('SIGTERM to the npm process stops the server cleanly, leaving nothing behind', { timeout: START_TIMEOUT_MS + 30_000 }, async () => {
    const started = npmStart(makeDataDir());
    await expectCleanStop(started, () => process.kill(started.npm.pid!, 'SIGTERM'));
  });

  it('SIGINT to the npm process alone stops the server cleanly', { timeout: START_TIMEOUT_MS + 30_000 }, async () => {
    const started = npmStart(makeDataDir());
    await expectCleanStop(started, () => process.kill(started.npm.pid!, 'SIGINT'));
  });

  it('SIGINT to its process group (Ctrl+C in a terminal) stops the server cleanly', { timeout: START_TIMEOUT_MS + 30_000 }, async () => {
    const started = npmStart(makeDataDir(), { detached: true });
    await expectCleanStop(started, () => process.kill(-started.npm.pid!, 'SIGINT'));
  });
});
