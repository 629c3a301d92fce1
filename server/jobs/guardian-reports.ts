import { generateWeeklyReports } from '../commands/people/guardian-reports.js';
import type { Job } from './job.js';

/**
 * Daily 06:00 UTC: one report per student with a verified guardian for the week that last ended.
 * Generation is idempotent per week, so running daily only catches up a Monday the computer was off.
 */
export const guardianReportsJob: Job = {
  name: 'guardian-reports',
  schedule: () => '0 6 * * *',
  run: async (ctx) => generateWeeklyReports(ctx.db),
};
