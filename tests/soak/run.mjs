// `npm run soak [-- --quick] [--database=sqlite|postgres] [--out=<file>]`: a school day
// compressed into 10 minutes (`--quick`: 2) against the real bundle (dist/server/main.js) on
// 127.0.0.1, driven from this process. On SQLite one server on a temp data folder; on PostgreSQL
// a throwaway cluster (tests/bench/postgres.mjs), a Redis of its own for the rate limits, two
// `--role api` processes (requests alternate between them) and one `--role worker`. All at once:
// the LMS polling events and lists, learners taking a coding exam, teachers grading, the admin
// reading the portal, three webhook receivers counting deliveries, a OneRoster sync and a backup
// in the middle. Prints memory every minute, then the figures per request class, the deliveries
// per endpoint and which bars fail, and writes the raw figures as JSON. Exits 0 for a completed
// run whatever the bars say; 1 when the day could not be set up or run. Never part of `npm test`.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { benchEnv, cli, root, rssMb, startServer, stopServer } from '../bench/appliance.mjs';
import { startBenchCluster } from '../bench/postgres.mjs';
import { grader, learner, lmsEventsPoller, lmsLists, onerosterSync, portalReader, readEventsToEnd } from './actors.mjs';
import { closeAgent, portalSignIn, Recorder, request, roundRobin } from './client.mjs';
import { clusterFolder, pgDump, startRedis } from './processes.mjs';
import { startOneRosterProvider, startReceiver } from './receivers.mjs';
import { bars, classRows, deliveryFigures, memoryFigures, renderReport, slowByWindow } from './report.mjs';
import { ADMIN, setUpThroughApi, setUpThroughCli } from './school.mjs';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    database: { type: 'string', default: 'sqlite' },
    out: { type: 'string' },
  },
});
if (!['sqlite', 'postgres'].includes(options.database)) throw new Error(`--database=${options.database}: sqlite or postgres`);
const onPostgres = options.database === 'postgres';
const quick = options.quick;
const plan = {
  seconds: quick ? 120 : 600,
  learners: quick ? 15 : 50,
  graders: quick ? 2 : 3,
  users: quick ? 1_000 : 5_000,
  drainSeconds: 60,
};
plan.syncAtSeconds = Math.round(plan.seconds * 0.45);
plan.backupAtSeconds = Math.round(plan.seconds * 0.55);
/**
 * Retries of a failed delivery after 5, 10, 20, 40 and 80 s instead of the default 1 min, 5 min,
 * …: the flaky receiver fails an event at most twice, so each of its events arrives within about
 * 15 s (plus a sweep) and one still missing after the 60 s drain is lost, not merely scheduled.
 */
const RETRY_SCHEDULE = '5,10,20,40,80';

const log = (message) => console.error(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}`);
const execFileAsync = promisify(execFile);
const shell = (command, args) => execFileSync(command, args, { cwd: root, encoding: 'utf8' }).trim();
const serverChanges = shell('git', ['status', '--porcelain', '--', 'server']).split('\n').filter(Boolean).length;
const commit = `${shell('git', ['log', '--oneline', '-1'])}${serverChanges ? ` plus ${serverChanges} uncommitted changes under server/` : ''}`;

// ---------------------------------------------------------------------------------------------
// Clean-up: everything started is undone in reverse order, once, at the end or on Ctrl+C.

const cleanups = [];
let cleaning = null;
const onCleanup = (what, undo) => cleanups.push({ what, undo });
function cleanUp() {
  cleaning ??= (async () => {
    for (const { what, undo } of cleanups.reverse()) {
      try {
        await undo();
      } catch (error) {
        log(`clean-up of ${what} failed: ${error.message}`);
      }
    }
    closeAgent();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers and removing what the soak made`);
    const forced = setTimeout(() => process.exit(130), 30_000);
    forced.unref();
    void cleanUp().finally(() => process.exit(130));
  });
}

/** Error lines (pino level ≥ 50) a server logs, a few per process, for the report. */
function watchErrors(server, name, into) {
  let buffered = '';
  let kept = 0;
  server.child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      if (kept < 10 && /"level":(50|60)/.test(line)) {
        kept += 1;
        into.push({ process: name, text: line.slice(0, 800) });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------

let exitCode = 0;
try {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-soak-'));
  onCleanup('the data folder', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  log(`data folder ${dataDir}`);

  let cluster = null;
  let redis = null;
  if (onPostgres) {
    cluster = await startBenchCluster();
    const folder = clusterFolder(cluster.url);
    onCleanup('the PostgreSQL cluster', () => {
      try {
        cluster.stop();
      } finally {
        if (folder) fs.rmSync(folder, { recursive: true, force: true });
      }
    });
    redis = await startRedis();
    onCleanup('redis-server', () => redis.stop());
    log(`${cluster.version} at ${cluster.url}, Redis at ${redis.url}`);
  }
  const env = {
    ...benchEnv(dataDir, cluster?.url),
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    ...(redis ? { RATE_LIMIT_STORE: redis.url } : {}),
  };

  // The outside world first: the SIS to sync from and the three webhook receivers.
  const sis = await startOneRosterProvider(plan.users);
  onCleanup('the OneRoster provider', () => sis.close());
  const receivers = [await startReceiver('instant', 'instant'), await startReceiver('slow', 'slow'), await startReceiver('flaky', 'flaky')];
  onCleanup('the webhook receivers', () => Promise.all(receivers.map((receiver) => receiver.close())));

  const school = await setUpThroughCli(env, { graders: plan.graders, sis });

  // The servers. On PostgreSQL the first api process starts alone (the CLI has migrated the
  // database already; nothing races), then the second and the worker.
  const servers = [];
  const serverErrors = [];
  const start = async (name, role) => {
    const server = await startServer(role ? { ...env, ROLE: role } : env);
    server.name = name;
    servers.push(server);
    watchErrors(server, name, serverErrors);
    return server;
  };
  onCleanup('the servers', () => Promise.all(servers.map((server) => stopServer(server))));
  if (onPostgres) {
    await start('api-1', 'api');
    await Promise.all([start('api-2', 'api'), start('worker', 'worker')]);
  } else {
    await start('server', null);
  }
  const apiServers = servers.filter((server) => server.name !== 'worker');
  const nextOrigin = roundRobin(apiServers.map((server) => server.origin));
  log(`started ${servers.map((server) => `${server.name} (pid ${server.pid}) ${server.origin}`).join(', ')}`);

  const made = await setUpThroughApi({
    origin: nextOrigin(),
    key: school.keys.setup,
    receivers,
    learners: plan.learners,
    graders: plan.graders,
  });
  const portal = await portalSignIn(nextOrigin(), ADMIN.email, ADMIN.password);
  log(`school set up: ${plan.learners} learners, exam ${made.examId}, endpoints ${made.endpoints.map((e) => e.name).join(', ')}`);

  const startedAt = performance.now();
  const recorder = new Recorder(startedAt);
  const day = {
    recorder,
    nextOrigin,
    keys: school.keys,
    institutionId: school.institutionId,
    examId: made.examId,
    teachers: made.teachers,
    endpoints: made.endpoints,
    portal,
    startedAt,
    stopAt: startedAt + plan.seconds * 1000,
    lms: { cursor: null, events: [], seen: new Set(), repeated: 0 },
    problems: [],
    submitted: 0,
    graded: 0,
  };

  // Memory each minute, from the start of the load to its end.
  const minutes = Math.round(plan.seconds / 60);
  const rss = { minutes: [], byProcess: Object.fromEntries(servers.map((server) => [server.name, []])) };
  const sampleRss = (minute) => {
    rss.minutes.push(minute);
    for (const server of servers) rss.byProcess[server.name].push({ minute, mb: server.child.exitCode === null ? rssMb(server.pid) : NaN });
    const requests = [...recorder.classes.values()].reduce((sum, entry) => sum + entry.ms.length, 0);
    log(
      `minute ${minute}: ${servers.map((server) => `${server.name} ${Math.round(rss.byProcess[server.name].at(-1).mb)} MB`).join(', ')}; ${requests} requests so far`,
    );
  };
  const memoryWatch = (async () => {
    sampleRss(0);
    for (let minute = 1; minute <= minutes; minute += 1) {
      await sleep(Math.max(0, startedAt + minute * 60_000 - performance.now()));
      sampleRss(minute);
    }
  })();

  // The learners start over the first 40 % of the day and work for 35–50 % of it, each saving
  // about every 5 % of the day, so the exam's busiest stretch meets the sync and the backup.
  const dayMs = plan.seconds * 1000;
  const learnerPlans = made.students.map((_, i) => {
    const startAt = dayMs * (0.03 + (0.37 * i) / Math.max(1, plan.learners - 1));
    return { startAt, submitAt: Math.min(startAt + dayMs * (0.35 + 0.15 * Math.random()), dayMs * 0.95), saveEveryMs: dayMs * 0.05 };
  });

  const backup = (async () => {
    await sleep(Math.max(0, startedAt + plan.backupAtSeconds * 1000 - performance.now()));
    const began = performance.now();
    // `cli backup` copies the SQLite file (server/cli/recovery.ts); on PostgreSQL the docs send the
    // operator to pg_dump (docs/scale-out.md#backups-on-postgresql), so that is what runs there.
    const how = onPostgres ? 'pg_dump, since cli backup copies only the SQLite file' : 'cli backup';
    try {
      if (onPostgres) {
        await execFileAsync(pgDump(), ['--format=custom', `--file=${path.join(dataDir, 'soak.pgdump')}`, `--dbname=${cluster.url}`], { timeout: 300_000 });
      } else {
        const folder = path.join(dataDir, 'soak-backups');
        fs.mkdirSync(folder, { recursive: true });
        await cli(env, 'backup', '--out', folder);
      }
      return { how, ok: true, ms: performance.now() - began, atSeconds: plan.backupAtSeconds };
    } catch (error) {
      return { how, ok: false, ms: performance.now() - began, error: (error.stderr || error.message).slice(0, 600) };
    }
  })();

  log(`the day begins: ${plan.seconds} s`);
  const actors = [
    lmsEventsPoller(day),
    lmsLists(day),
    portalReader(day),
    ...made.students.map((student, i) => learner(day, student, i, learnerPlans[i])),
    ...made.teachers.map((teacher, i) => grader(day, teacher, i, school.keys.graders[i])),
  ];
  const sync = onerosterSync(day, plan.syncAtSeconds * 1000);
  const settled = await Promise.allSettled([...actors, sync, memoryWatch]);
  for (const outcome of settled)
    if (outcome.status === 'rejected')
      day.problems.push({ who: 'an actor', step: 'threw', status: null, body: String(outcome.reason?.stack ?? outcome.reason) });
  const loadSeconds = (performance.now() - startedAt) / 1000;
  recorder.enabled = false;

  // The drain: read the feed to its end and wait, up to 60 s, until every subscribed event has
  // arrived at each endpoint; then 2 s more for any late duplicate.
  log(`the day is over after ${Math.round(loadSeconds)} s; waiting up to ${plan.drainSeconds} s for the last deliveries`);
  const createdAt = {};
  for (const endpoint of made.endpoints) {
    const res = await request(nextOrigin(), 'GET', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: { authorization: `Bearer ${school.keys.setup}` } });
    createdAt[endpoint.id] = res.body?.data?.created_at ?? '';
  }
  const drainEnds = performance.now() + plan.drainSeconds * 1000;
  let deliveries = [];
  for (let round = 0; round < 600; round += 1) {
    await readEventsToEnd(day, null);
    // Only events after an endpoint existed are its to receive (all of the day's are).
    deliveries = made.endpoints.map((endpoint) =>
      deliveryFigures(
        endpoint,
        day.lms.events.filter((event) => event.created_at >= createdAt[endpoint.id]),
      ),
    );
    if (deliveries.every((row) => row.lost === 0) || performance.now() > drainEnds) break;
    await sleep(1_000);
  }
  await sleep(2_000);
  deliveries = made.endpoints.map((endpoint) =>
    deliveryFigures(
      endpoint,
      day.lms.events.filter((event) => event.created_at >= createdAt[endpoint.id]),
    ),
  );
  for (const endpoint of made.endpoints) {
    const res = await request(nextOrigin(), 'GET', `/v1/webhooks/endpoints/${endpoint.id}`, { headers: { authorization: `Bearer ${school.keys.setup}` } });
    const row = deliveries.find((d) => d.name === endpoint.name);
    row.endpointStatus = res.body?.data?.status ?? `unknown (${res.status})`;
  }

  const classes = classRows(recorder);
  const requests = classes.reduce((sum, row) => sum + row.count, 0);
  const results = {
    quick,
    plan,
    startedAt: new Date(Date.now() - loadSeconds * 1000).toISOString(),
    commit,
    database: onPostgres ? `${cluster.version}, a throwaway cluster on 127.0.0.1, and Redis for the rate limits` : 'SQLite, the file in the data folder',
    processes: servers.map(
      (server) => `${server.name} (${server.name.startsWith('api') ? 'role api' : server.name === 'worker' ? 'role worker' : 'role all'})`,
    ),
    machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}`,
    classes,
    totals: { requests, seconds: loadSeconds, perSecond: requests / loadSeconds },
    slowWindows: slowByWindow(recorder),
    sync: await sync,
    backup: await backup,
    exam: { submitted: day.submitted, graded: day.graded },
    lms: { events: day.lms.events.length, repeated: day.lms.repeated },
    deliveries,
    rss,
    memory: memoryFigures(rss, quick),
    problems: day.problems,
    serverErrors,
    sis: { ...sis.counts, requests: sis.requests },
  };
  results.bars = bars(results);
  for (const row of deliveries)
    if (row.endpointStatus !== 'active')
      results.problems.push({ who: `endpoint ${row.name}`, step: 'status at the end', status: null, body: row.endpointStatus });

  const jsonFile = path.resolve(options.out ?? path.join(os.tmpdir(), `campusbridge-soak-${Date.now()}.json`));
  const raw = {
    ...results,
    // Every request, per class: [second of the day it was sent, ms to the last byte] (0.1 ms).
    requests: Object.fromEntries(
      [...recorder.classes.values()].map((entry) => [entry.name, entry.ms.map((value, i) => [Math.round(entry.at[i] * 10) / 10, Math.round(value * 10) / 10])]),
    ),
    deliveries: deliveries.map(({ lostSample, ...row }) => ({ ...row, lostSample })),
  };
  fs.writeFileSync(jsonFile, JSON.stringify(raw, null, 2));
  console.log(renderReport(results));
  console.log(`Raw figures: ${jsonFile}`);
} catch (error) {
  exitCode = 1;
  log(`the soak could not complete: ${error.stack ?? error.message}`);
} finally {
  await cleanUp();
}
process.exit(exitCode);
