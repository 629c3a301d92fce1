import type { Job } from './job.js';

/**
 * A node-cron expression firing every `seconds` (WEBHOOK_SWEEP_SECONDS). The seconds field only
 * divides a minute, so from 60 on it rounds to whole minutes, and from an hour on it is hourly.
 */
export function sweepSchedule(seconds: number): string {
  if (seconds < 60) return `*/${Math.max(1, Math.floor(seconds))} * * * * *`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `0 */${minutes} * * * *`;
  return '0 0 * * * *';
}

/**
 * Every WEBHOOK_SWEEP_SECONDS: retries whose time has come, deliveries that waited for a resumed
 * endpoint or a re-approved institution, and claims a crashed process left behind go out.
 */
export const webhookSweepJob: Job = {
  name: 'webhook-sweep',
  frequent: true,
  schedule: (ctx) => sweepSchedule(ctx.config.webhooks.sweepSeconds),
  run: async (ctx) => {
    await ctx.webhooks?.sweep();
  },
};
