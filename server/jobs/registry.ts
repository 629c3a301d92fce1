import type { Job } from './job.js';
import { pruneEventsJob } from './prune-events.js';

/** Every cron job of the appliance. */
export const jobs: Job[] = [pruneEventsJob];
