import { sendDueGradebookPosts } from '../commands/oneroster/gradebook-send.js';
import type { Job } from './job.js';
import { sweepSchedule } from './webhook-sweep.js';

/**
 * Every WEBHOOK_SWEEP_SECONDS: grades of SIS-synced students go to the SIS's gradebook (OneRoster
 * 1.2 line items and results) where the connection opted in, failures retried on the webhooks'
 * schedule, as the AGS scores are (docs/lms.md).
 */
export const onerosterGradebookJob: Job = {
  name: 'oneroster-gradebook',
  frequent: true,
  schedule: (ctx) => sweepSchedule(ctx.config.webhooks.sweepSeconds),
  run: async (ctx) => sendDueGradebookPosts(ctx.db, ctx.config, ctx.config.webhooks.retryScheduleSeconds),
};
