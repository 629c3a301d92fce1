// @tier integration
// @databases sqlite, postgres
/**
 * With several worker processes (docs/scale-out.md#jobs), each fires every job at its cron time; one run per
 * period must happen. Two database connections stand for two processes (on SQLite, two
 * connections to one file; on PostgreSQL, in the postgres project, two pools on one database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, databaseLocation, type Database } from '../server/db/index.js';
import type { Job } from '../server/jobs/job.js';
import { createJobRunner } from '../server/jobs/runner.js';
import { claimRun } from '../server/jobs/runs.js';
import { startTestAppliance, type TestAppliance } from './helpers/appliance.js';

describe('one run per period across processes', () => {
  let app: TestAppliance;
  let other: Database;
  beforeAll(async () => {
    app = await startTestAppliance();
    other = await connectDatabase(databaseLocation(app.ctx.config));
  });
  afterAll(async () => {
    await other?.close();
    await app?.close();
  });

  it('claimRun: of ten concurrent claims on two connections for one period, exactly one starts a run', async () => {
    const at = new Date();
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => claimRun(i % 2 === 0 ? app.ctx.db : other, 'claim-test', new Date(at.getTime() + i), 3_600_000)),
    );
    expect(claims.filter((id) => id !== null)).toHaveLength(1);
    expect(await app.ctx.db.models.JobRun.count({ where: { job: 'claim-test' } })).toBe(1);

    // Half a period after the winner (whichever of the ten, started up to 9 ms after `at`), the next period's run may start.
    expect(await claimRun(other, 'claim-test', new Date(at.getTime() + 1_800_010), 3_600_000)).not.toBeNull();
  });

  it('two runners (two processes) firing one scheduled job together run it once; a manual run always runs', async () => {
    let runs = 0;
    const job: Job = {
      name: 'hourly-claim-test',
      schedule: () => '0 * * * *',
      run: async () => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { ran: true };
      },
    };
    const here = createJobRunner(app.ctx);
    const there = createJobRunner({ ...app.ctx, db: other });
    const outcomes = await Promise.all([here.runIfIdle(job, 'scheduled'), there.runIfIdle(job, 'scheduled'), there.runIfIdle(job, 'catch-up')]);
    expect(outcomes.every((outcome) => outcome !== 'failed')).toBe(true);
    expect(runs).toBe(1);
    await here.run(job, 'manual');
    expect(runs).toBe(2);
    await Promise.all([here.stop(), there.stop()]);
  });
});
