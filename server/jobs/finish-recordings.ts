import { finishAbandonedRecordings } from '../commands/recordings/finish.js';
import type { Job } from './job.js';

/**
 * Every minute: proctoring recordings left unfinished (the page closed before its finish call) of
 * attempts submitted over 5 minutes ago, or run out, are finished into their stored file, so the
 * submission lists them. A table sweep rather than a step of the submit: it survives a crash,
 * and it waits out the grace in which the last chunks may still arrive.
 */
export const finishRecordingsJob: Job = {
  name: 'finish-recordings',
  frequent: true,
  schedule: () => '* * * * *',
  run: async (ctx) => ({ finished: await finishAbandonedRecordings(ctx.db, ctx.config.dataDir) }),
};
