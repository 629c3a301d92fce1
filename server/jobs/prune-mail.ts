import { pruneMail } from '../mail/outbox.js';
import type { Job } from './job.js';

/** Hourly: stale waiting mail (expired or replaced links, closed exams) is dropped unsent, and settled mail past its retention deleted. */
export const pruneMailJob: Job = {
  name: 'prune-mail',
  schedule: () => '17 * * * *',
  run: async (ctx) => pruneMail(ctx.db),
};
