import { pruneEvents } from '../events/retention.js';
import type { Job } from './job.js';

/** Daily: events past the 30-day retention window are deleted (`since` older than that answers 410). */
export const pruneEventsJob: Job = {
  name: 'prune-events',
  schedule: () => '17 3 * * *',
  run: async (ctx) => ({ deleted: await pruneEvents(ctx.db) }),
};
