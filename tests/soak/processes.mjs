// The processes beside the appliance in a soak: a Redis of its own, and what is needed to clean up
// the throwaway PostgreSQL cluster (tests/bench/postgres.mjs) and to back it up. 127.0.0.1 only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A port on 127.0.0.1 that nothing listens on, taken from the OS and released. */
export async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** redis-server on 127.0.0.1 only, a free port, nothing kept on disk, its folder in tmp. */
export async function startRedis() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-soak-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(forced);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 5 s:\n${output}`)), 5_000);
      const read = (chunk) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited ${code}:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  child.stdout.resume();
  child.stderr.resume();
  return { url: `redis://127.0.0.1:${port}/0`, pid: child.pid, stop };
}

/**
 * The throwaway cluster's own stop runs `pg_ctl stop`, which throws when the server is already
 * gone (Ctrl+C reaches it too) before it removes the folder: find the folder by its port, so the
 * clean-up can remove it anyway.
 */
export function clusterFolder(url) {
  const port = new URL(url).port;
  for (const name of fs.readdirSync(os.tmpdir()).filter((entry) => entry.startsWith('campusbridge-bench-pg-'))) {
    const opts = path.join(os.tmpdir(), name, 'data', 'postmaster.opts');
    if (fs.existsSync(opts) && fs.readFileSync(opts, 'utf8').includes(`-p ${port}`)) return path.join(os.tmpdir(), name);
  }
  return null;
}

/** Debian's pg_dump beside the cluster's programs (the newest major). */
export function pgDump() {
  const majors = fs.readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return path.join('/usr/lib/postgresql', majors[0], 'bin', 'pg_dump');
}
