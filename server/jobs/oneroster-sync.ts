import { runScheduledSyncs } from '../commands/oneroster/schedule.js';
import type { Job } from './job.js';

/**
 * Hourly at :20: each OneRoster connection with a schedule is synced when its period has passed
 * since its last sync. Hourly, so the scheduler's catch-up runs it shortly after a start that
 * missed a run (server/jobs/catch-up.ts), and a connection's own period is checked against its runs.
 */
export const onerosterSyncJob: Job = {
  name: 'oneroster-sync',
  schedule: () => '20 * * * *',
  run: async (ctx) => runScheduledSyncs(ctx.db, ctx.config),
};
