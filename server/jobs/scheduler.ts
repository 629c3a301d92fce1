import cron, { type ScheduledTask } from 'node-cron';
import type { AppContext } from '../context.js';
import type { Job } from './job.js';

export interface Scheduler {
  /** Runs one job now, as the schedule would (used by the CLI and tests). */
  runNow(name: string): Promise<Record<string, unknown> | void>;
  /** Stops scheduling and waits for runs in progress. */
  stop(): Promise<void>;
}

export function startScheduler(ctx: AppContext, jobs: readonly Job[]): Scheduler {
  const running = new Set<Promise<unknown>>();
  const byName = new Map(jobs.map((job) => [job.name, job]));

  const execute = async (job: Job) => {
    const run = job.run(ctx);
    running.add(run);
    try {
      const result = await run;
      ctx.logger[job.frequent ? 'debug' : 'info']({ job: job.name, ...(result ?? {}) }, 'job finished');
      return result;
    } catch (err) {
      ctx.logger.error({ job: job.name, err }, 'job failed');
      throw err;
    } finally {
      running.delete(run);
    }
  };

  const tasks: ScheduledTask[] = jobs.map((job) =>
    cron.schedule(
      job.schedule(ctx),
      () =>
        execute(job).then(
          () => undefined,
          () => undefined,
        ),
      {
        name: job.name,
        timezone: 'Etc/UTC',
        noOverlap: true,
      },
    ),
  );

  return {
    runNow: (name) => {
      const job = byName.get(name);
      if (!job) return Promise.reject(new Error(`unknown job ${name}`));
      return execute(job);
    },
    stop: async () => {
      await Promise.all(tasks.map((task) => task.destroy()));
      await Promise.allSettled([...running]);
    },
  };
}
