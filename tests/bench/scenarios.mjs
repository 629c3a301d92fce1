// What each figure runs against a started, loaded appliance.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, root } from './appliance.mjs';
import { fixedRate, median, sequential, throughput } from './drivers.mjs';
import { bulkBody, bulkCall } from './load-data.mjs';
import { SEARCHES } from './names.mjs';

const SETTLE_TIMEOUT_MS = 60_000;

/** Waits until the server answers a cheap request again: a run's backlog must not spill into the next. */
export async function settle(origin, key) {
  const started = performance.now();
  while (performance.now() - started < SETTLE_TIMEOUT_MS) {
    const res = await api(origin, key, 'GET', '/v1/me');
    if (res.status === 200 && res.ms < 50) return;
    await sleep(200);
  }
}

async function startBareExpress(body) {
  const child = spawn(process.execPath, [path.join(root, 'tests/bench/bare-express.mjs')], {
    env: { ...process.env, BENCH_BARE_BODY: JSON.stringify(body) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`bare Express exited ${code}`)));
  });
  return { child, origin };
}

/** `/v1/me` against a bare Express 5 route with the same JSON, runs alternating; medians. */
export async function measureMe({ origin, keys, seconds, runs }) {
  const me = await api(origin, keys[0], 'GET', '/v1/me');
  const bare = await startBareExpress(me.body);
  try {
    await throughput({ origin, pathname: '/v1/me', keys, seconds: 1 }); // warm-up
    await throughput({ origin: bare.origin, pathname: '/v1/me', seconds: 1 });
    const results = [];
    for (let run = 0; run < runs; run += 1) {
      const server = await throughput({ origin, pathname: '/v1/me', keys, seconds });
      const yardstick = await throughput({ origin: bare.origin, pathname: '/v1/me', seconds });
      results.push({ server, bare: yardstick, ratio: server.rps / yardstick.rps });
      await settle(origin, keys[0]);
    }
    return {
      runs: results,
      serverRps: median(results.map((r) => r.server.rps)),
      bareRps: median(results.map((r) => r.bare.rps)),
      ratio: median(results.map((r) => r.ratio)),
    };
  } finally {
    bare.child.kill('SIGTERM');
  }
}

/** The students list at a fixed rate, for each filter and for the last page. */
export async function measureLists({ origin, keys, samples, groupId, rate, seconds }) {
  const lastPage = Math.max(1, Math.ceil(samples.students / 50));
  const pick = (values, i) => encodeURIComponent(values[i % values.length]);
  const paths = {
    none: () => '/v1/students?limit=50',
    email: (i) => `/v1/students?limit=50&email=${pick(samples.emails, i)}`,
    group_id: () => `/v1/students?limit=50&group_id=${groupId}`,
    student_id: (i) => `/v1/students?limit=50&student_id=${pick(samples.studentIds, i)}`,
    status: () => '/v1/students?limit=50&status=active',
    'last page': () => `/v1/students?limit=50&page=${lastPage}`,
    q: (i) => `/v1/students?limit=50&q=${pick(SEARCHES, i)}`,
  };
  const results = {};
  for (const [filter, pathFor] of Object.entries(paths)) {
    const check = await api(origin, keys[0], 'GET', pathFor(0));
    if (check.status !== 200) throw new Error(`students ${filter}: ${check.status} ${check.text.slice(0, 200)}`);
    results[filter] = await fixedRate({ origin, pathFor, keys, rate, seconds });
    await settle(origin, keys[0]);
  }
  return results;
}

export async function measureEvents({ origin, keys, samples, rate, seconds }) {
  const pathFor = (i) => `/v1/events?since=${encodeURIComponent(samples.since[i % samples.since.length])}&limit=200`;
  const check = await api(origin, keys[0], 'GET', pathFor(0));
  if (check.status !== 200) throw new Error(`events: ${check.status} ${check.text.slice(0, 200)}`);
  const result = await fixedRate({ origin, pathFor, keys, rate, seconds });
  await settle(origin, keys[0]);
  return result;
}

export async function measureBulk({ origin, keys, calls, tag }) {
  const callMs = await sequential(calls, (i) => bulkCall(origin, keys[i % keys.length], `${tag}${i}`));
  return { calls, medianMs: median(callMs), callMs };
}

/** Statements per request, from the counting preload (sql-count.mjs) in the server. */
export async function measureStatements({ server, sqlFile, origin, keys, samples, groupId, count = 20 }) {
  const read = async () => {
    server.child.kill('SIGUSR2');
    await sleep(300);
    return JSON.parse(fs.readFileSync(sqlFile, 'utf8'));
  };
  const requests = [
    ['GET /v1/me', () => api(origin, keys[0], 'GET', '/v1/me')],
    ['GET /v1/students?limit=50', () => api(origin, keys[0], 'GET', '/v1/students?limit=50')],
    ['GET /v1/students?email=…', (i) => api(origin, keys[0], 'GET', `/v1/students?email=${encodeURIComponent(samples.emails[i])}`)],
    ['GET /v1/students?group_id=…', () => api(origin, keys[0], 'GET', `/v1/students?group_id=${groupId}`)],
    ['GET /v1/events?since=…&limit=200', (i) => api(origin, keys[0], 'GET', `/v1/events?since=${encodeURIComponent(samples.since[i])}&limit=200`)],
    ['POST /v1/students/bulk (200)', (i) => api(origin, keys[0], 'POST', '/v1/students/bulk', bulkBody(`sql${i}`))],
  ];
  const rows = [];
  for (const [request, run] of requests) {
    const n = request.startsWith('POST') ? 2 : count;
    const before = await read();
    await sequential(n, run);
    const after = await read();
    rows.push({
      request,
      perRequest: (after.count - before.count) / n,
      sample: request === 'GET /v1/me' ? after.recent.slice(-Math.ceil((after.count - before.count) / n)) : undefined,
    });
  }
  return rows;
}
