import cron, { type ScheduledTask } from 'node-cron';
import type { AppContext, JobControl, JobStatus } from '../context.js';
import { missedJobs, watchForWake } from './catch-up.js';
import type { Job } from './job.js';
import { createJobRunner, type JobResult } from './runner.js';
import { lastFinishedAt } from './runs.js';
import { periodMs } from './schedule-times.js';
import { describeJobs } from './status.js';

export interface SchedulerOptions {
  /** How long after start-up (and after a wake) missed runs are caught up: within a minute (docs/install.md#running-as-a-service). */
  catchUpDelayMs?: number;
  /** Whether a job that never finished a run counts as missed (false on a database this start created). */
  neverRunIsMissed?: boolean;
  /** The wake check's tick, and the gap between ticks that means the computer slept. */
  wakeCheckMs?: number;
  wakeGapMs?: number;
  now?: () => number;
  /**
   * False in an api process (`--role api`): nothing runs on a schedule or catches up here (the
   * workers do); `run`/`runNow` still run a job in this process, as `cli jobs run` does.
   */
  timed?: boolean;
}

export interface Scheduler extends JobControl {
  /** Runs one job now, recorded as manual (used by the CLI and tests); settles like the job. */
  runNow(name: string): Promise<JobResult>;
  list(): Promise<JobStatus[]>;
  /** Runs, one after another, every job whose last finished run is older than its period; resolves with their names. */
  catchUp(): Promise<string[]>;
  /** Stops scheduling and waits for runs in progress. */
  stop(): Promise<void>;
}

export const CATCH_UP_DELAY_MS = 30_000;
const WAKE_CHECK_MS = 30_000;
const WAKE_GAP_MS = 2 * 60_000;

/**
 * Schedules every job with node-cron (UTC, no overlap), records each run, and catches up missed
 * runs shortly after start-up and after the computer wakes from sleep (docs/decisions/jobs.md).
 */
export function startScheduler(ctx: AppContext, jobs: readonly Job[], options: SchedulerOptions = {}): Scheduler {
  const now = options.now ?? Date.now;
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const periods = new Map(jobs.map((job) => [job.name, periodMs(job.schedule(ctx))]));
  const runner = createJobRunner(ctx);
  let stopped = false;
  const timed = options.timed ?? true;

  const tasks: ScheduledTask[] = (timed ? jobs : []).map((job) =>
    cron.schedule(job.schedule(ctx), () => runner.runIfIdle(job, 'scheduled'), {
      name: job.name,
      timezone: 'Etc/UTC',
      // No `noOverlap`: the runner already skips a job still running here (`runIfIdle`), quietly;
      // node-cron's own check wrote a warning outside the log for every second a busy sweep overran.
    }),
  );

  let catchingUp: Promise<string[]> | null = null;
  const catchUp = () =>
    (catchingUp ??= (async () => {
      try {
        const last = await lastFinishedAt(
          ctx.db,
          jobs.map((job) => job.name),
        );
        const missed = missedJobs(jobs, periods, last, now(), options.neverRunIsMissed ?? true);
        const ran: string[] = [];
        for (const job of missed) {
          if (stopped) break;
          ctx.logger.info({ job: job.name, last_finished_at: last.get(job.name) ?? null }, 'catching up a missed run');
          if ((await runner.runIfIdle(job, 'catch-up')) !== null) ran.push(job.name);
        }
        return ran;
      } catch (err) {
        ctx.logger.error({ err }, 'catching up missed job runs failed');
        return [];
      } finally {
        catchingUp = null;
      }
    })());

  const timers = new Set<NodeJS.Timeout>();
  const catchUpSoon = () => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void catchUp();
    }, options.catchUpDelayMs ?? CATCH_UP_DELAY_MS);
    timer.unref();
    timers.add(timer);
  };
  if (timed) catchUpSoon();
  const wake = timed
    ? watchForWake({
        everyMs: options.wakeCheckMs ?? WAKE_CHECK_MS,
        gapMs: options.wakeGapMs ?? WAKE_GAP_MS,
        now,
        onWake: (sleptMs) => {
          ctx.logger.info({ slept_seconds: Math.round(sleptMs / 1000) }, 'the computer woke up; catching up missed job runs');
          catchUpSoon();
        },
      })
    : null;

  const runNow = (name: string) => {
    const job = byName.get(name);
    if (!job) return Promise.reject(new Error(`unknown job ${name}`));
    return runner.run(job, 'manual');
  };

  return {
    runNow,
    run: async (name) => {
      if (!byName.has(name)) return null;
      return runNow(name).then(
        () => ({ name, outcome: 'ok' as const }),
        () => ({ name, outcome: 'failed' as const }),
      );
    },
    list: () => describeJobs(ctx, jobs, runner.isBusy),
    catchUp,
    stop: async () => {
      stopped = true;
      wake?.stop();
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(tasks.map((task) => task.destroy()));
      await catchingUp;
      await runner.stop();
    },
  };
}
