// `npm run bench [-- --quick] [--database=sqlite|postgres] [--profile] [--sql] [--budget=<seconds>]
// [--keep] [--app=<dir>]`: starts the real bundle (this checkout's, or the build in `--app`) on a
// temp data folder on 127.0.0.1, on SQLite (the file in that folder) or on a throwaway PostgreSQL
// cluster (postgres.mjs), loads it (students through the API within a time budget, the rest and the events by
// direct SQL), drives it from this process and prints the figures of docs/performance.md against their
// goals. Never part of `npm test`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, benchEnv, cli, closeClient, createKeys, root, rssMb, startServer, stopServer, useAppliance } from './appliance.mjs';
import { fillGroup, loadStudentsViaApi, refreshStatistics, sampleValues, topUpEvents, topUpStudents } from './load-data.mjs';
import { startBenchCluster } from './postgres.mjs';
import { summarizeProfile } from './profile.mjs';
import { renderReport } from './report.mjs';
import { measureBulk, measureEvents, measureLists, measureMe, measureStatements, settle } from './scenarios.mjs';
import { measureDeliveries, measureNewDeliveryLag } from './webhooks.mjs';
import { measureWizard } from './wizard.mjs';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    sql: { type: 'boolean', default: false },
    budget: { type: 'string' },
    keep: { type: 'boolean', default: false },
    app: { type: 'string' },
    database: { type: 'string', default: 'sqlite' },
  },
});
if (!['sqlite', 'postgres'].includes(options.database)) throw new Error(`--database=${options.database}: sqlite or postgres`);
const onPostgres = options.database === 'postgres';
// --sql counts statements at the sqlite3 driver (sql-count.mjs); pg has no such hook here.
if (onPostgres && options.sql) throw new Error('--sql counts statements at the sqlite3 driver: it runs on SQLite only, not with --database=postgres');
const quick = options.quick;
const sizes = quick
  ? { smallStudents: 1_000, bigStudents: 10_000, smallEvents: 10_000, bigEvents: 100_000 }
  : { smallStudents: 1_000, bigStudents: 100_000, smallEvents: 10_000, bigEvents: 1_000_000 };
const plan = {
  budgetMs: Number(options.budget ?? (quick ? 20 : 150)) * 1000,
  rate: 200,
  seconds: quick ? 2 : 5,
  meSeconds: quick ? 2 : 4,
  meRuns: 3,
  bulkCalls: quick ? 3 : 5,
  hookEvents: quick ? 600 : 2_000,
  hookWaitMs: quick ? 30_000 : 90_000,
};

const log = (message) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const appRoot = options.app ? useAppliance(options.app) : root;
const shell = (command, args) => execFileSync(command, args, { cwd: root, encoding: 'utf8' }).trim();
// Which server code ran: the commit, and whether server/ had uncommitted changes (another build: its folder).
const serverChanges = shell('git', ['status', '--porcelain', '--', 'server']).split('\n').filter(Boolean).length;
const codeUnderTest = options.app
  ? `the build in ${appRoot}`
  : `${shell('git', ['log', '--oneline', '-1'])}${serverChanges ? ` plus ${serverChanges} uncommitted changes under server/` : ''}`;
const cluster = onPostgres ? await startBenchCluster() : null;
// Interrupted (Ctrl+C): the cluster is a server of its own, so stop it rather than leave it running.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cluster?.stop();
    process.exit(130);
  });
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-bench-'));
// Where the loader writes: the appliance's own database (load-data.mjs).
const database = cluster ? { databaseUrl: cluster.url } : { databaseFile: path.join(dataDir, 'campusbridge.sqlite') };
const env = benchEnv(dataDir, cluster?.url);
const profileDir = options.profile ? path.join(dataDir, 'profile') : null;
const sqlFile = options.sql ? path.join(dataDir, 'sql-count.json') : null;
const results = {
  quick,
  sizes,
  startedAt: new Date().toISOString(),
  commit: codeUnderTest,
  database: cluster ? `${cluster.version}, a throwaway cluster on 127.0.0.1 (fsync and synchronous_commit on)` : 'SQLite, the file in the data folder',
  machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}`,
  dataNotes: [],
};

let server = null;
try {
  log(`data folder ${dataDir}`);
  // Before anything exists: the wizard is what a fresh appliance shows.
  server = await startServer(env);
  results.wizard = await measureWizard({ origin: server.origin });
  await stopServer(server);
  server = null;
  log(
    results.wizard
      ? `wizard first load: median ${Math.round(results.wizard.medianMs)} ms, slowest ${Math.round(results.wizard.maxMs)} ms`
      : 'wizard: no Chromium, not measured',
  );
  const setup = await cli(env, 'setup', '--institution', 'Small School', '--admin-email', 'bench@example.org', '--admin-password', 'bench-password-1');
  const small = setup.institution.id;
  const big = (await cli(env, 'institution', 'create', '--name', 'District', '--approve')).id;
  const fresh = (await cli(env, 'institution', 'create', '--name', 'Fresh School', '--approve')).id;
  const hooks = (await cli(env, 'institution', 'create', '--name', 'Hook School', '--approve')).id;
  // One key allows 6000 requests a minute: the fixed-rate and throughput runs take turns over several.
  const keys = {
    small: await createKeys(env, small, 12),
    big: await createKeys(env, big, 8),
    fresh: await createKeys(env, fresh, 1),
    hooks: await createKeys(env, hooks, 1),
  };

  server = await startServer(env);
  await sleep(2000);
  results.start = { emptyMs: server.coldStartMs };
  results.memory = { idleEmptyMb: rssMb(server.pid) };
  log(`started empty in ${Math.round(server.coldStartMs)} ms, ${Math.round(results.memory.idleEmptyMb)} MB`);

  const groups = {};
  for (const [name, institutionId, target, eventTarget] of [
    ['small', small, sizes.smallStudents, sizes.smallEvents],
    ['big', big, sizes.bigStudents, sizes.bigEvents],
  ]) {
    const loaded = await loadStudentsViaApi({
      origin: server.origin,
      keys: keys[name],
      target,
      budgetMs: plan.budgetMs,
      label: name,
      onProgress: (n, msSoFar) => log(`${name}: ${n} students through the API in ${Math.round(msSoFar / 1000)} s`),
    });
    const viaSql = await topUpStudents({ database, institutionId, count: target - loaded.viaApi, tag: name });
    const teacher = await api(server.origin, keys[name][0], 'POST', '/v1/faculty', { full_name: 'Bench Teacher' });
    const group = await api(server.origin, keys[name][0], 'POST', '/v1/groups', { name: 'Bench group', faculty_id: teacher.body.data.id });
    if (group.status !== 201 && group.status !== 200) throw new Error(`group: ${group.status} ${group.text.slice(0, 300)}`);
    groups[name] = group.body.data.id;
    const members = await fillGroup({ database, institutionId, groupId: groups[name] });
    const events = await topUpEvents({ database, institutionId, target: eventTarget, tag: name });
    const rate = loaded.viaApi / loaded.seconds;
    results.dataNotes.push(
      `${target.toLocaleString('en-US')} students: ${loaded.viaApi.toLocaleString('en-US')} through \`POST /v1/students/bulk\` in ${Math.round(loaded.seconds)} s ` +
        `(${Math.round(rate)} students/s, budget ${plan.budgetMs / 1000} s), ${viaSql.toLocaleString('en-US')} by direct SQL; group of ${members}`,
      `${eventTarget.toLocaleString('en-US')} events: ${events.existing.toLocaleString('en-US')} written by the appliance, ${events.viaSql.toLocaleString('en-US')} by direct SQL`,
    );
    log(results.dataNotes.at(-2));
    log(results.dataNotes.at(-1));
  }

  await stopServer(server);
  await refreshStatistics({ database });
  server = await startServer(env, { profileDir, countSql: options.sql, sqlFile });
  await sleep(3000);
  results.start.loadedMs = server.coldStartMs;
  results.memory.idleLoadedMb = rssMb(server.pid);
  log(`restarted loaded in ${Math.round(server.coldStartMs)} ms, ${Math.round(results.memory.idleLoadedMb)} MB`);
  const origin = server.origin;
  const samples = {
    small: await sampleValues({ database, institutionId: small }),
    big: await sampleValues({ database, institutionId: big }),
  };

  log('/v1/me against bare Express');
  results.me = await measureMe({ origin, keys: keys.small, seconds: plan.meSeconds, runs: plan.meRuns });
  results.lists = {};
  results.events = {};
  for (const name of ['small', 'big']) {
    log(`students list, ${samples[name].students} students`);
    await settle(origin, keys[name][0]);
    results.lists[name] = await measureLists({
      origin,
      keys: keys[name],
      samples: samples[name],
      groupId: groups[name],
      rate: plan.rate,
      seconds: plan.seconds,
    });
    log(`events, ${name}`);
    results.events[name] = await measureEvents({ origin, keys: keys[name], samples: samples[name], rate: plan.rate, seconds: plan.seconds });
  }
  log('bulk');
  results.bulk = {
    fresh: await measureBulk({ origin, keys: keys.fresh, calls: plan.bulkCalls, tag: 'fresh' }),
    big: await measureBulk({ origin, keys: keys.big, calls: plan.bulkCalls, tag: 'more' }),
  };
  log('webhooks');
  results.webhooks = await measureDeliveries({ origin, keys: keys.hooks, events: plan.hookEvents, waitMs: plan.hookWaitMs });
  log('a new delivery after its commit');
  results.webhookLag = await measureNewDeliveryLag({ origin, key: keys.fresh[0] });
  if (options.sql) {
    log('statements per request');
    results.sql = await measureStatements({ server, sqlFile, origin, keys: keys.big, samples: samples.big, groupId: groups.big });
  }
  await stopServer(server);
  server = null;
  if (profileDir) {
    const [profile] = fs.readdirSync(profileDir).filter((file) => file.endsWith('.cpuprofile'));
    results.profile = profile ? path.join(profileDir, profile) : 'none written';
    if (profile) results.profileSummary = summarizeProfile(results.profile);
  }

  const jsonFile = path.join(options.profile || options.keep ? dataDir : os.tmpdir(), `campusbridge-bench-${Date.now()}.json`);
  fs.writeFileSync(jsonFile, JSON.stringify(results, null, 2));
  console.log(renderReport(results));
  console.log(`Raw figures: ${jsonFile}`);
} finally {
  if (server) await stopServer(server);
  closeClient();
  if (cluster) cluster.stop();
  if (!options.keep && !options.profile) fs.rmSync(dataDir, { recursive: true, force: true });
  else log(`kept ${dataDir}`);
}
