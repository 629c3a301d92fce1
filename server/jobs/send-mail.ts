import { sendQueuedMail } from '../mail/mailer.js';
import type { Job } from './job.js';

/**
 * Every minute: sends what is queued, retries what failed (a minute apart, up to the attempt
 * limit), and sends mail that waited for an SMTP server once one is configured.
 */
export const sendMailJob: Job = {
  name: 'send-mail',
  frequent: true,
  schedule: () => '* * * * *',
  run: async (ctx) => ({ ...(await sendQueuedMail(ctx.db, ctx.logger)) }),
};
