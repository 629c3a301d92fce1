import type { AppContext, JobStatus } from '../context.js';
import type { Job } from './job.js';
import { latestRuns } from './runs.js';
import { nextRunAt } from './schedule-times.js';

/** Each job's schedule, newest run and next time, as `jobs list` and the operator's portal show them. */
export async function describeJobs(ctx: AppContext, jobs: readonly Job[], isBusy: (name: string) => boolean = () => false): Promise<JobStatus[]> {
  const latest = await latestRuns(
    ctx.db,
    jobs.map((job) => job.name),
  );
  return jobs.map((job) => {
    const schedule = job.schedule(ctx);
    const run = latest.get(job.name);
    return {
      name: job.name,
      schedule,
      last_run: run ? { started_at: run.started_at, finished_at: run.finished_at, outcome: run.outcome, detail: run.detail } : null,
      next_run_at: nextRunAt(schedule),
      running: isBusy(job.name),
    };
  });
}
