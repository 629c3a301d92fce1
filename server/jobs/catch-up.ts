import type { Job } from './job.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Jobs that fire at most hourly are caught up; more frequent ones (every minute, the webhook
 * sweep) come round again soon enough on their own.
 */
export const CATCH_UP_MIN_PERIOD_MS = HOUR_MS;

/**
 * The jobs that missed a run: their last finished run is older than their period (a computer that
 * was off or asleep at the scheduled time). A job that never finished a run counts as missed
 * unless `neverRunIsMissed` is false (a database created by this very start has nothing to catch up).
 */
export function missedJobs(
  jobs: readonly Job[],
  periods: ReadonlyMap<string, number>,
  lastFinished: ReadonlyMap<string, Date>,
  now: number,
  neverRunIsMissed: boolean,
): Job[] {
  return jobs.filter((job) => {
    const period = periods.get(job.name) ?? 0;
    if (period < CATCH_UP_MIN_PERIOD_MS) return false;
    const last = lastFinished.get(job.name);
    if (!last) return neverRunIsMissed;
    return now - last.getTime() > period;
  });
}

export interface WakeWatch {
  stop(): void;
}

/**
 * Notices that the computer slept: a timer ticking every `everyMs` that finds much more time
 * gone by than that (more than `gapMs`) was suspended with the rest of the process.
 */
export function watchForWake(options: { everyMs: number; gapMs: number; now: () => number; onWake: (sleptMs: number) => void }): WakeWatch {
  let last = options.now();
  const timer = setInterval(() => {
    const now = options.now();
    const elapsed = now - last;
    last = now;
    if (elapsed > options.gapMs) options.onWake(elapsed);
  }, options.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
