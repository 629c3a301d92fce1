// @tier integration
// @databases sqlite, postgres
/**
 * Periodic jobs (docs/decisions/jobs.md): every run is recorded, a job that missed its run (the
 * computer was off or asleep) catches up shortly after start, `jobs list` / `jobs run` and the
 * operator's portal show and run them. Real appliances on 127.0.0.1 over real SQLite files.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectDatabase } from '../server/db/index.js';
import { newId } from '../server/ids.js';
import { missedJobs, watchForWake } from '../server/jobs/catch-up.js';
import type { Job } from '../server/jobs/job.js';
import { jobs } from '../server/jobs/registry.js';
import { createJobRunner } from '../server/jobs/runner.js';
import { periodMs } from '../server/jobs/schedule-times.js';
import { JOB_RUNS_KEPT } from '../server/models/job-run.js';
import { dataDirDatabase, makeDataDir, removeDataDir, startTestAppliance, type TestAppliance } from './helpers/appliance.js';
import { cliFails, cliOk, runCliCaptured } from './helpers/cli.js';
import { expectError, ok, portalRequests, setUpPortal, signedInMember } from './helpers/portal.js';
import { waitFor } from './helpers/wait.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const apps: TestAppliance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(options: Parameters<typeof startTestAppliance>[0] = {}): Promise<TestAppliance> {
  const app = await startTestAppliance(options);
  apps.push(app);
  return app;
}

/** A data folder whose database already exists, with the given runs recorded (job name → when it finished, ms ago). */
async function dataDirWithRuns(finishedAgo: Record<string, number>): Promise<string> {
  const dataDir = makeDataDir('campusbridge-jobs-');
  const db = await connectDatabase(await dataDirDatabase(dataDir));
  for (const [job, ago] of Object.entries(finishedAgo)) {
    const finished = new Date(Date.now() - ago);
    await db.models.JobRun.create({
      id: newId('jrun'),
      job,
      started_at: new Date(finished.getTime() - 1000),
      finished_at: finished,
      outcome: 'ok',
      detail: null,
    });
  }
  await db.close();
  return dataDir;
}

const caughtUp = (app: TestAppliance) => app.logLines().flatMap((line) => (line.msg === 'catching up a missed run' ? [line.job as string] : []));
const periodic = jobs.filter((job) => periodMs(job.schedule({ config: { webhooks: { sweepSeconds: 10 } } } as never)) >= HOUR);

describe('catching up missed runs', () => {
  it('a job whose last run is two days old runs at start; one that ran recently and an every-minute job do not', async () => {
    const recent = Object.fromEntries(periodic.map((job) => [job.name, 60_000]));
    const dataDir = await dataDirWithRuns({ ...recent, 'prune-events': 2 * DAY, 'send-mail': 2 * DAY });
    const before = new Date();

    const app = await start({ dataDir, config: { jobsCatchUpDelayMs: 200 } });

    const run = await waitFor(
      () =>
        app.ctx.db.models.JobRun.findOne({ where: { job: 'prune-events', outcome: 'ok' }, order: [['started_at', 'DESC']] }).then(
          (row) => row && row.started_at >= before && row,
        ),
      'prune-events to be caught up',
      10_000,
    );
    expect(run.finished_at!.getTime()).toBeGreaterThanOrEqual(run.started_at.getTime());
    expect(JSON.parse(run.detail!)).toEqual({ deleted: 0 });
    expect(caughtUp(app)).toEqual(['prune-events']);
  });

  it('jobs that never ran are caught up on an existing database, not on one this start created', async () => {
    const existing = await start({ dataDir: await dataDirWithRuns({}), config: { jobsCatchUpDelayMs: 50 } });
    expect((await existing.scheduler.catchUp()).sort()).toEqual(periodic.map((job) => job.name).sort());

    const fresh = await start({ migrate: true, config: { jobsCatchUpDelayMs: 50 } });
    expect(await fresh.scheduler.catchUp()).toEqual([]);
    // None of the periodic jobs ran (a job due every minute may have run on its schedule meanwhile).
    expect(await fresh.ctx.db.models.JobRun.count({ where: { job: periodic.map((job) => job.name) } })).toBe(0);
  });

  it('waits the catch-up delay after start', async () => {
    const dataDir = await dataDirWithRuns({ 'prune-events': 2 * DAY });
    const app = await start({ dataDir, config: { jobsCatchUpDelayMs: 60_000 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(caughtUp(app)).toEqual([]);
  });

  it('decides from each job period: daily and hourly jobs catch up, every-minute ones never', () => {
    const job = (name: string, schedule: string): Job => ({ name, schedule: () => schedule, run: async () => {} });
    const list = [job('daily', '17 3 * * *'), job('hourly', '17 * * * *'), job('minutely', '* * * * *'), job('new', '0 6 * * *')];
    const periods = new Map(list.map((entry) => [entry.name, periodMs(entry.schedule({} as never))]));
    expect(Object.fromEntries(periods)).toEqual({ daily: DAY, hourly: HOUR, minutely: 60_000, new: DAY });
    const now = Date.now();
    const last = new Map([
      ['daily', new Date(now - 25 * HOUR)],
      ['hourly', new Date(now - 30 * 60_000)],
      ['minutely', new Date(now - 2 * DAY)],
    ]);
    expect(missedJobs(list, periods, last, now, true).map((entry) => entry.name)).toEqual(['daily', 'new']);
    expect(missedJobs(list, periods, last, now, false).map((entry) => entry.name)).toEqual(['daily']);
    last.set('daily', new Date(now - 23 * HOUR));
    expect(missedJobs(list, periods, last, now, false)).toEqual([]);
  });

  it('notices a wake from sleep: a clock jump between two ticks', async () => {
    let clock = 1_000_000;
    const woke: number[] = [];
    const watch = watchForWake({ everyMs: 10, gapMs: 120_000, now: () => clock, onWake: (slept) => woke.push(slept) });
    try {
      clock += 10;
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(woke).toEqual([]);
      clock += 3 * HOUR;
      await waitFor(() => woke.length > 0, 'the wake to be noticed');
      expect(woke[0]).toBeGreaterThanOrEqual(3 * HOUR);
    } finally {
      watch.stop();
    }
  });

  it('a catch-up never overlaps a run of the same job in progress', async () => {
    const app = await start();
    let release!: () => void;
    let runs = 0;
    const slow: Job = {
      name: 'slow',
      schedule: () => '0 6 * * *',
      run: () => {
        runs++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    };
    const runner = createJobRunner(app.ctx);
    const first = runner.runIfIdle(slow, 'scheduled');
    expect(runner.isBusy('slow')).toBe(true);
    expect(await runner.runIfIdle(slow, 'catch-up')).toBeNull();
    await waitFor(() => runs === 1, 'the first run to start');
    expect(await runner.runIfIdle(slow, 'catch-up')).toBeNull();
    release();
    expect(await first).toBe('ok');
    expect(runs).toBe(1);
    expect(await app.ctx.db.models.JobRun.count({ where: { job: 'slow' } })).toBe(1);
  });
});

describe('recording runs', () => {
  it('records start, end, outcome and detail; a failure is recorded with its message', async () => {
    const app = await start();
    await app.scheduler.runNow('prune-sessions');
    const runner = createJobRunner(app.ctx);
    const failing: Job = { name: 'failing', schedule: () => '0 6 * * *', run: () => Promise.reject(new Error('disk full')) };
    await expect(runner.run(failing, 'manual')).rejects.toThrow('disk full');

    const [pruned] = await app.ctx.db.models.JobRun.findAll({ where: { job: 'prune-sessions' } });
    expect(pruned).toMatchObject({ outcome: 'ok', detail: JSON.stringify({ launch_tokens: 0, sessions: 0, portal_sessions: 0, idempotency_keys: 0 }) });
    expect(pruned!.finished_at).toBeInstanceOf(Date);
    const [failed] = await app.ctx.db.models.JobRun.findAll({ where: { job: 'failing' } });
    expect(failed).toMatchObject({ outcome: 'failed', detail: 'disk full' });
  });

  it(`keeps the newest ${JOB_RUNS_KEPT} runs of each job`, async () => {
    const app = await start();
    for (let i = 0; i < JOB_RUNS_KEPT + 3; i++) await app.scheduler.runNow('prune-audit-log');
    await app.scheduler.runNow('prune-events');
    expect(await app.ctx.db.models.JobRun.count({ where: { job: 'prune-audit-log' } })).toBe(JOB_RUNS_KEPT);
    expect(await app.ctx.db.models.JobRun.count({ where: { job: 'prune-events' } })).toBe(1);
  });
});

describe('jobs list and jobs run (CLI)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await removeDataDir(dir);
  });

  it('lists every job with its schedule, last run and next time; runs one and records it', async () => {
    const dataDir = makeDataDir('campusbridge-jobs-cli-');
    dirs.push(dataDir);
    const before = cliOk<{ items: any[] }>(await runCliCaptured(dataDir, 'jobs', 'list'));
    expect(before.items.map((item) => item.name)).toEqual(jobs.map((job) => job.name));
    const events = before.items.find((item) => item.name === 'prune-events');
    expect(events).toEqual({ name: 'prune-events', schedule: '17 3 * * *', last_run: null, next_run_at: expect.stringMatching(/T03:17:00\.000Z$/) });
    expect(new Date(events.next_run_at).getTime()).toBeGreaterThan(Date.now());

    expect(cliOk(await runCliCaptured(dataDir, 'jobs', 'run', 'prune-events'))).toEqual({ name: 'prune-events', outcome: 'ok' });

    const after = cliOk<{ items: any[] }>(await runCliCaptured(dataDir, 'jobs', 'list'));
    const run = after.items.find((item) => item.name === 'prune-events').last_run;
    expect(Object.keys(run).sort()).toEqual(['finished_at', 'outcome', 'started_at']);
    expect(run.outcome).toBe('ok');
    expect(Date.parse(run.finished_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
  });

  it('refuses a job that does not exist', async () => {
    const dataDir = makeDataDir('campusbridge-jobs-cli-');
    dirs.push(dataDir);
    expect(cliFails(await runCliCaptured(dataDir, 'jobs', 'run', 'make-coffee'), 'not_found')).toContain('prune-events');
  });
});

describe('the operator portal', () => {
  it("shows each job's last and next run and runs one now; other accounts are refused", async () => {
    const app = await start();
    const operator = await setUpPortal(app, { institution: 'Northgate', admin_email: 'op@northgate.test', admin_password: 'correct horse battery' });
    const op = portalRequests(
      () => operator,
      () => '/portal/api/operator',
    );

    const ran = ok(await op.post('/jobs/prune-events/run'));
    expect(ran).toEqual({ name: 'prune-events', outcome: 'ok' });
    const { items } = ok<{ items: any[] }>(await op.get('/jobs'));
    expect(items.map((item) => item.name)).toEqual(jobs.map((job) => job.name));
    const events = items.find((item) => item.name === 'prune-events');
    expect(events).toMatchObject({ schedule: '17 3 * * *', running: false, last_run: { outcome: 'ok', detail: '{"deleted":0}' } });
    expect(Date.parse(events.next_run_at)).toBeGreaterThan(Date.now());
    expect(items.find((item) => item.name === 'prune-sessions').last_run).toBeNull();

    expectError(await op.post('/jobs/make-coffee/run'), 404, 'not_found');

    const institution = (await app.ctx.db.models.Institution.findOne())!;
    const admin = await signedInMember(app, institution.id, 'admin');
    const asAdmin = portalRequests(
      () => admin,
      () => '/portal/api/operator',
    );
    expect((await asAdmin.get('/jobs')).status).toBe(403);
    expect((await asAdmin.post('/jobs/prune-events/run')).status).toBe(403);
  });
});

describe('GET /healthz', () => {
  it('answers ok with the version and the role while the database answers, never cached, without a key', async () => {
    const app = await start();
    const res = await app.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), database: 'ok', role: 'all' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 unavailable when the database cannot be read', async () => {
    const app = await start();
    await app.ctx.db.sequelize.query('ALTER TABLE schema_migrations RENAME TO schema_migrations_moved');
    const res = await app.http.get('/healthz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'unavailable', database: 'unavailable' });
    await app.ctx.db.sequelize.query('ALTER TABLE schema_migrations_moved RENAME TO schema_migrations');
    expect((await app.http.get('/healthz')).status).toBe(200);
  });
});
