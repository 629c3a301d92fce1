import path from 'node:path';
import { dailyBackup } from '../db/backup.js';
import type { Job } from './job.js';

/**
 * Daily: an online copy of the database into DATA_DIR/backups (`…-daily.sqlite`); the newest
 * seven daily copies are kept, and no other kind of backup is touched (docs/install.md#4-backups).
 * Running twice makes one more copy, which the pruning then drops.
 */
export const dailyBackupJob: Job = {
  name: 'daily-backup',
  schedule: () => '40 2 * * *',
  run: async (ctx) => {
    const { file, removed } = await dailyBackup(ctx.config.databaseFile);
    return { file: path.basename(file), removed: removed.length };
  },
};
