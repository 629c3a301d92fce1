import { STALE_TEMP_MS, sweepTempFiles } from '../files/temp.js';
import type { Job } from './job.js';

/**
 * Hourly: temporary upload files abandoned for an hour are removed. Uploads clean up after
 * themselves when cut off; this catches what a crash left (start-up sweeps everything first).
 */
export const sweepTempFilesJob: Job = {
  name: 'sweep-temp-files',
  schedule: () => '41 * * * *',
  run: async (ctx) => ({ removed: await sweepTempFiles(ctx.config.dataDir, STALE_TEMP_MS) }),
};
