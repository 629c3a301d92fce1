import path from 'node:path';
import { dailyBackup } from '../db/backup.js';
import { uploadsRoot } from '../files/storage.js';
import type { Job } from './job.js';

/**
 * Daily: a backup of the database and the uploaded files into DATA_DIR/backups (`…-daily.sqlite`); the newest
 * seven daily copies are kept, and no other kind of backup is touched (docs/install.md#4-backups).
 * Running twice makes one more copy, which the pruning then drops. On PostgreSQL it copies nothing.
 */
export const dailyBackupJob: Job = {
  name: 'daily-backup',
  schedule: () => '40 2 * * *',
  run: async (ctx) => {
    // The appliance's backups copy the SQLite file; PostgreSQL is backed up with its own tools.
    // Said in the job's record rather than failing every night with "no database".
    if (ctx.config.databaseUrl) return { skipped: 'on PostgreSQL: back up with pg_dump (docs/scale-out.md#backups-on-postgresql)' };
    const made = await dailyBackup({ databaseFile: ctx.config.databaseFile, uploadsDir: uploadsRoot(ctx.config.dataDir) });
    return { file: path.basename(made.file), files: made.files, bytes: made.bytes, missing_files: made.missing.length, removed: made.removed.length };
  },
};
