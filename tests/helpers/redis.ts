import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closedPort } from './net.js';

const REDIS_SERVER = '/usr/bin/redis-server';

/** Whether Debian's redis-server is here; in CI (.ci/run installs it) a missing one fails the suite. */
export function redisAvailable(): boolean {
  if (fs.existsSync(REDIS_SERVER)) return true;
  if (process.env.CI === 'true') throw new Error(`redis-server is not installed at ${REDIS_SERVER}; .ci/run installs it with apt`);
  return false;
}

export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s); its data is not kept. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing when it runs). */
  start(): Promise<void>;
  /** Suspends the process (SIGSTOP): connections stay open, commands get no answer. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/**
 * A real redis-server on 127.0.0.1 only, on a free port, keeping nothing on disk (no RDB, no AOF)
 * in a temp folder of its own.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-redis-'));
  const port = await closedPort();
  let child: ChildProcess | null = null;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'];
    const started = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 5 s:\n${output}`)), 5_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout!.on('data', read);
      started.stderr!.on('data', read);
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    const forced = setTimeout(() => running.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(forced);
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
