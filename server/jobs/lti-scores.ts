import { sendDueScores } from '../commands/lti/scores.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import type { Job } from './job.js';
import { sweepSchedule } from './webhook-sweep.js';

/**
 * Every WEBHOOK_SWEEP_SECONDS: AGS scores of graded submissions of LTI-linked exams go to the
 * platforms' line items, failures retried on the webhooks' schedule (docs/lms.md#lti-13).
 */
export const ltiScoresJob: Job = {
  name: 'lti-scores',
  frequent: true,
  schedule: (ctx) => sweepSchedule(ctx.config.webhooks.sweepSeconds),
  run: async (ctx) => {
    const privateHosts = await readApplianceSetting(ctx.db, ctx.config, 'outbound_private_hosts');
    const { webhooks } = ctx.config;
    return sendDueScores(ctx.db, { privateHosts, timeoutMs: webhooks.timeoutMs }, webhooks.retryScheduleSeconds);
  },
};
