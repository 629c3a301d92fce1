// `npm run bench`: throughput and latency of the authenticated hot path (/v1/me, /v1/events)
// against the real bundle on 127.0.0.1, plus the server's memory. Prints one JSON report.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-bench-'));
const env = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' };
const cli = (...args) => {
  const out = spawnSync(process.execPath, [path.join(root, 'dist/server/cli.js'), ...args], { env, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
};

const { institution } = cli('setup', '--institution', 'Bench School', '--admin-email', 'bench@example.org', '--admin-password', 'bench-password-1');
// One key per scenario: each stays under the 6000/min ceiling of a single key.
const newKey = () => cli('key', 'create', '--institution', institution.id, '--name', 'bench', '--scopes', 'all', '--rate-limit', '6000').key;

const server = spawn(process.execPath, [path.join(root, 'dist/server/main.js')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((resolve, reject) => {
  let buffered = '';
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
    if (match) resolve(match[1]);
  });
  server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
function request(pathname, key) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${pathname}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
  });
}

async function load(pathname, total, concurrency) {
  const key = newKey();
  const latencies = [];
  let sent = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total) {
        sent += 1;
        const { status, ms } = await request(pathname, key);
        if (status !== 200) failures += 1;
        latencies.push(ms);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
  return { path: pathname, requests: total, failures, rps: Math.round(total / seconds), p50_ms: pct(0.5), p99_ms: pct(0.99) };
}

try {
  await load('/v1/me', 300, 8); // warm-up
  const results = [await load('/v1/me', 4000, 16), await load('/v1/events?limit=50', 2000, 16)];
  const rssKb = Number(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
  console.log(JSON.stringify({ results, server_rss_mb: Math.round(rssKb / 1024) }, null, 2));
} finally {
  agent.destroy();
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
