import { dailyBackupJob } from './daily-backup.js';
import { expireLicensesJob } from './expire-licenses.js';
import { finishRecordingsJob } from './finish-recordings.js';
import { guardianReportsJob } from './guardian-reports.js';
import { onerosterSyncJob } from './oneroster-sync.js';
import { onerosterGradebookJob } from './oneroster-gradebook.js';
import type { Job } from './job.js';
import { ltiScoresJob } from './lti-scores.js';
import { pruneAuditLogJob } from './prune-audit-log.js';
import { pruneDeliveriesJob } from './prune-deliveries.js';
import { pruneEventsJob } from './prune-events.js';
import { pruneMailJob } from './prune-mail.js';
import { pruneSessionsJob } from './prune-sessions.js';
import { sendMailJob } from './send-mail.js';
import { sweepTempFilesJob } from './sweep-temp-files.js';
import { webhookSweepJob } from './webhook-sweep.js';

/** Every cron job of the appliance. */
export const jobs: Job[] = [
  pruneEventsJob,
  pruneDeliveriesJob,
  pruneSessionsJob,
  pruneAuditLogJob,
  pruneMailJob,
  expireLicensesJob,
  finishRecordingsJob,
  guardianReportsJob,
  sendMailJob,
  sweepTempFilesJob,
  webhookSweepJob,
  ltiScoresJob,
  dailyBackupJob,
  onerosterSyncJob,
  onerosterGradebookJob,
];
