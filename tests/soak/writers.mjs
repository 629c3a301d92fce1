// `npm run soak:writers [-- --database=sqlite|postgres] [--seconds=60] [--writers=16]`: many
// writers on one institution at once (docs/performance.md#many-writers-at-once), against the real
// bundle on 127.0.0.1. On SQLite one server; on PostgreSQL a throwaway cluster, Redis, two `--role api` processes (requests
// alternate) and a worker. The webhook sweep runs every second (WEBHOOK_SWEEP_SECONDS=1), the
// setting that once stalled SQLite for 15 s at a time, and one endpoint receives every event.
// Each writer mixes PATCH /students/{id} on five students, POST /students, POST /students/bulk of
// 20, POST /faculty and PATCH /groups/{id}, with a list or events read every fourth request.
// Prints p50/p99/max per kind of request, the 5xx and the requests over 2 s, and whether the bar
// holds (no 5xx, nothing over 2 s). Never part of `npm test`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchEnv, cli, createKeys, startServer, stopServer } from '../bench/appliance.mjs';
import { percentile } from '../bench/drivers.mjs';
import { startBenchCluster } from '../bench/postgres.mjs';
import { bearer, closeAgent, request, roundRobin } from './client.mjs';
import { clusterFolder, startRedis } from './processes.mjs';
import { startReceiver } from './receivers.mjs';

const { values: options } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    seconds: { type: 'string', default: '60' },
    writers: { type: 'string', default: '16' },
  },
});
if (!['sqlite', 'postgres'].includes(options.database)) throw new Error(`--database=${options.database}: sqlite or postgres`);
const onPostgres = options.database === 'postgres';
const seconds = Number(options.seconds);
const writers = Number(options.writers);
/** The bar: no answer of 500 or more, none slower than this. */
const SLOWEST_MS = 2_000;
/** Keys in turn: one key allows 6000 requests a minute. */
const KEYS = 4;

const log = (message) => console.error(`[writers ${new Date().toISOString().slice(11, 19)}] ${message}`);
const undo = [];
let exitCode = 0;
try {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-writers-'));
  undo.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let cluster = null;
  let redis = null;
  if (onPostgres) {
    cluster = await startBenchCluster();
    const folder = clusterFolder(cluster.url);
    undo.push(() => {
      try {
        cluster.stop();
      } finally {
        if (folder) fs.rmSync(folder, { recursive: true, force: true });
      }
    });
    redis = await startRedis();
    undo.push(() => redis.stop());
  }
  const env = { ...benchEnv(dataDir, cluster?.url), LOG_LEVEL: 'warn', WEBHOOK_SWEEP_SECONDS: '1', ...(redis ? { RATE_LIMIT_STORE: redis.url } : {}) };
  const receiver = await startReceiver('instant', 'instant');
  undo.push(() => receiver.close());

  const setup = await cli(env, 'setup', '--institution', 'Busy School', '--admin-email', 'writers@example.org', '--admin-password', 'writers-password-1');
  const keys = await createKeys(env, setup.institution.id, KEYS);
  const servers = [];
  undo.push(() => Promise.all(servers.map((server) => stopServer(server))));
  if (onPostgres) {
    servers.push(await startServer({ ...env, ROLE: 'api' }));
    servers.push(...(await Promise.all([startServer({ ...env, ROLE: 'api' }), startServer({ ...env, ROLE: 'worker' })])));
  } else {
    servers.push(await startServer(env));
  }
  const nextOrigin = roundRobin(servers.slice(0, onPostgres ? 2 : 1).map((server) => server.origin));
  let keyTurn = 0;
  const call = (method, pathname, body) => request(nextOrigin(), method, pathname, { body, headers: bearer(keys[keyTurn++ % KEYS]) });
  const must = async (method, pathname, body) => {
    const res = await call(method, pathname, body);
    if (res.status !== 200) throw new Error(`${method} ${pathname}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body.data;
  };

  await must('POST', '/v1/webhooks/endpoints', { url: receiver.url, events: ['*'] });
  const students = [];
  for (let i = 0; i < 5; i += 1) students.push((await must('POST', '/v1/students', { full_name: `Often Changed ${i}` })).id);
  const teacher = (await must('POST', '/v1/faculty', { full_name: 'Group Owner' })).id;
  const group = (await must('POST', '/v1/groups', { name: 'Busy Group', faculty_id: teacher })).id;
  log(`${servers.length} server process(es) on ${onPostgres ? cluster.version : 'SQLite'}; ${writers} writers for ${seconds} s`);

  const byKind = new Map();
  const failures = [];
  const record = (kind, res) => {
    if (!byKind.has(kind)) byKind.set(kind, []);
    byKind.get(kind).push(res.ms);
    if (res.status === null || res.status >= 500) failures.push(`${kind}: ${res.status} ${JSON.stringify(res.body ?? res.error).slice(0, 300)}`);
  };
  const stopAt = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      // Bounded: at most 100,000 requests a writer, whatever the duration.
      for (let n = 0; n < 100_000 && performance.now() < stopAt; n += 1) {
        const name = `W${writer} N${n}`;
        switch ((writer + n) % 6) {
          case 0:
          case 1:
            record('PATCH /students/{id}', await call('PATCH', `/v1/students/${students[(writer + n) % 5]}`, { full_name: `Student ${name}` }));
            break;
          case 2:
            record('POST /students', await call('POST', '/v1/students', { full_name: `New ${name}` }));
            break;
          case 3:
            record(
              'POST /students/bulk (20)',
              await call('POST', '/v1/students/bulk', { students: Array.from({ length: 20 }, (_, i) => ({ full_name: `Bulk ${name} ${i}` })) }),
            );
            break;
          case 4:
            record('POST /faculty', await call('POST', '/v1/faculty', { full_name: `Teacher ${name}` }));
            break;
          default:
            record('PATCH /groups/{id}', await call('PATCH', `/v1/groups/${group}`, { description: `Changed by ${name}` }));
        }
        if (n % 4 === 0) {
          const read = n % 8 === 0 ? ['GET /events', '/v1/events?limit=100'] : ['GET /students', '/v1/students?limit=25'];
          record(read[0], await call('GET', read[1]));
        }
      }
    }),
  );

  let total = 0;
  let slowest = 0;
  let overBar = 0;
  console.log(
    `\n${writers} writers on one institution for ${seconds} s, sweep every second, ${onPostgres ? 'PostgreSQL, two api processes and a worker' : 'SQLite, one process'}\n`,
  );
  console.log('| Request | Count | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [kind, values] of [...byKind].sort()) {
    const sorted = [...values].sort((a, b) => a - b);
    total += sorted.length;
    slowest = Math.max(slowest, sorted.at(-1));
    overBar += sorted.filter((ms) => ms > SLOWEST_MS).length;
    console.log(
      `| ${kind} | ${sorted.length} | ${percentile(sorted, 0.5).toFixed(0)} | ${percentile(sorted, 0.99).toFixed(0)} | ${sorted.at(-1).toFixed(0)} |`,
    );
  }
  console.log(
    `\n${total} requests, ${(total / seconds).toFixed(1)}/s; slowest ${slowest.toFixed(0)} ms; ${overBar} over ${SLOWEST_MS} ms; ${failures.length} × 5xx or no answer`,
  );
  for (const failure of failures.slice(0, 10)) console.log(`  ${failure}`);
  console.log(failures.length === 0 && overBar === 0 ? 'Bar met: no 5xx, nothing over 2 s.' : 'Bar MISSED.');
} catch (error) {
  exitCode = 1;
  log(`could not complete: ${error.stack ?? error.message}`);
} finally {
  for (const step of undo.reverse()) {
    try {
      await step();
    } catch (error) {
      log(`clean-up failed: ${error.message}`);
    }
  }
  closeAgent();
}
process.exit(exitCode);
