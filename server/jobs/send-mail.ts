import { sendQueuedMail } from '../mail/mailer.js';
import { dropStaleMail } from '../mail/staleness.js';
import { explicitPublicUrl } from '../settings/appliance-settings.js';
import type { Job } from './job.js';

/**
 * Every minute: sends what is queued, retries what failed (a minute apart, up to the attempt
 * limit), and sends mail that waited for an SMTP server once one is configured. Stale mail is
 * dropped, never sent: by the sender as it picks each message up, and here while no server is set,
 * so the outbox says within a minute what will never go out.
 */
export const sendMailJob: Job = {
  name: 'send-mail',
  frequent: true,
  schedule: () => '* * * * *',
  run: async (ctx) => {
    const result = await sendQueuedMail(ctx.db, ctx.logger, { linkBase: () => explicitPublicUrl(ctx.db, ctx.config) });
    if (!result.configured) result.dropped += await dropStaleMail(ctx.db);
    return { ...result };
  },
};
