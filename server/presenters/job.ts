import type { JobStatus } from '../context.js';
import { iso } from './common.js';

/** A job as `jobs list` prints it (docs/api.md#command-line): schedule, newest run, next time. */
export function presentJob(job: JobStatus) {
  return {
    name: job.name,
    schedule: job.schedule,
    last_run: job.last_run && { started_at: iso(job.last_run.started_at)!, finished_at: iso(job.last_run.finished_at), outcome: job.last_run.outcome },
    next_run_at: iso(job.next_run_at),
  };
}

/** The operator's portal also shows a run's short detail and whether one is in progress. */
export function presentJobForOperator(job: JobStatus) {
  const base = presentJob(job);
  return {
    ...base,
    last_run: base.last_run && { ...base.last_run, detail: job.last_run?.detail ?? null },
    running: job.running,
  };
}
