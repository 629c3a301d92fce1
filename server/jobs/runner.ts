import type { AppContext } from '../context.js';
import type { JobRunOutcome } from '../models/job-run.js';
import type { Job } from './job.js';
import { claimRun, finishRun, runDetail, startRun } from './runs.js';
import { periodMs } from './schedule-times.js';

/** What `claimRun` leaves when another process already started the period's run. */
const TAKEN = Symbol('taken');

/** Why a run happens: its cron time, a missed run caught up, or someone asked (CLI, portal, tests). */
export type RunReason = 'scheduled' | 'catch-up' | 'manual';

export type JobResult = Record<string, unknown> | void;

export interface JobRunner {
  /** Runs the job and records the run; settles like the job (its summary, or its error). */
  run(job: Job, reason: RunReason): Promise<JobResult>;
  /**
   * Runs the job unless a run of it is already in progress in this process (then null): how the
   * schedule and the catch-up avoid overlapping each other. Never rejects; the outcome is recorded.
   */
  runIfIdle(job: Job, reason: RunReason): Promise<JobRunOutcome | null>;
  /** Whether a run of the job is in progress in this process. */
  isBusy(name: string): boolean;
  /** Refuses new runs and waits for those in progress. */
  stop(): Promise<void>;
}

/**
 * Executes jobs and records each run in `job_runs` (start, end, outcome, a short detail). Manual
 * runs always run (jobs are safe to run twice, CONTRIBUTING.md#add-a-cron-job); automatic ones
 * skip a job that is already running.
 */
export function createJobRunner(ctx: AppContext): JobRunner {
  const running = new Set<Promise<unknown>>();
  const busy = new Map<string, number>();
  let stopped = false;

  const record = async <T>(what: string, job: Job, work: () => Promise<T>): Promise<T | null> => {
    try {
      return await work();
    } catch (err) {
      // The run itself matters more than its record: a failed write is logged, the job goes on.
      ctx.logger.warn({ job: job.name, err }, `job run could not be ${what}`);
      return null;
    }
  };

  const periods = new Map<string, number>();
  const periodOf = (job: Job) => {
    let period = periods.get(job.name);
    if (period === undefined) periods.set(job.name, (period = periodMs(job.schedule(ctx))));
    return period;
  };
  /** A manual run always runs; an automatic one only if no other process started this period's (docs/scale-out.md#jobs). */
  const begin = (job: Job, reason: RunReason) =>
    reason === 'manual' ? startRun(ctx.db, job.name, new Date()) : claimRun(ctx.db, job.name, new Date(), periodOf(job)).then((id) => id ?? TAKEN);

  const execute = async (job: Job, reason: RunReason): Promise<JobResult> => {
    busy.set(job.name, (busy.get(job.name) ?? 0) + 1);
    try {
      const claimed = await record('recorded', job, () => begin(job, reason));
      if (claimed === TAKEN) {
        ctx.logger.debug({ job: job.name, reason }, 'job skipped: another process runs it this period');
        return undefined;
      }
      const runId = claimed;
      try {
        const result = await job.run(ctx);
        if (runId) await record('completed', job, () => finishRun(ctx.db, runId, job.name, 'ok', runDetail(result)));
        const quiet = job.frequent && reason === 'scheduled';
        ctx.logger[quiet ? 'debug' : 'info']({ job: job.name, reason, ...(result ?? {}) }, 'job finished');
        return result;
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if (runId) await record('completed', job, () => finishRun(ctx.db, runId, job.name, 'failed', runDetail(error)));
        ctx.logger.error({ job: job.name, reason, err }, 'job failed');
        throw err;
      }
    } finally {
      const left = (busy.get(job.name) ?? 1) - 1;
      if (left > 0) busy.set(job.name, left);
      else busy.delete(job.name);
    }
  };

  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  };

  return {
    run: (job, reason) => {
      if (stopped) return Promise.reject(new Error('the scheduler has stopped'));
      return track(execute(job, reason));
    },
    runIfIdle: async (job, reason) => {
      if (stopped || busy.has(job.name)) return null;
      return track(execute(job, reason)).then(
        () => 'ok' as const,
        () => 'failed' as const,
      );
    },
    isBusy: (name) => busy.has(name),
    stop: async () => {
      stopped = true;
      await Promise.allSettled([...running]);
    },
  };
}
