import { expireLicensesJob } from './expire-licenses.js';
import { guardianReportsJob } from './guardian-reports.js';
import type { Job } from './job.js';
import { pruneEventsJob } from './prune-events.js';
import { pruneSessionsJob } from './prune-sessions.js';
import { sendMailJob } from './send-mail.js';

/** Every cron job of the appliance. */
export const jobs: Job[] = [pruneEventsJob, pruneSessionsJob, expireLicensesJob, guardianReportsJob, sendMailJob];
