import { expireLicenses } from '../commands/people/licenses.js';
import type { Job } from './job.js';

/** Every minute: licenses past their expiry are stored `expired`, each with exactly one `license.expired`. */
export const expireLicensesJob: Job = {
  name: 'expire-licenses',
  frequent: true,
  schedule: () => '* * * * *',
  run: async (ctx) => ({ expired: await expireLicenses(ctx.db) }),
};
