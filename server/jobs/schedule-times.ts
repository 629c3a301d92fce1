import cron from 'node-cron';

const UTC = 'Etc/UTC';

/** The next `count` times a node-cron expression fires after now, in UTC (docs/decisions/jobs.md). */
export function nextRuns(expression: string, count: number): Date[] {
  // A task that is never started: node-cron's own parser answers, nothing is scheduled.
  const task = cron.createTask(expression, () => undefined, { timezone: UTC });
  try {
    return task.getNextRuns(count);
  } finally {
    void task.destroy();
  }
}

export function nextRunAt(expression: string): Date | null {
  return nextRuns(expression, 1)[0] ?? null;
}

/**
 * How often an expression fires: the shortest gap between its next few times (a daily job is
 * 24 h, an hourly one 1 h). A job whose last finished run is older than this missed one.
 */
export function periodMs(expression: string): number {
  const times = nextRuns(expression, 5).map((date) => date.getTime());
  let shortest = Infinity;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i]! - times[i - 1]!);
  return shortest;
}
