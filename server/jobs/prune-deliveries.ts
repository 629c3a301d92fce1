import { pruneDeliveries } from '../webhooks/deliveries.js';
import type { Job } from './job.js';

/** Daily: webhook deliveries (and their attempts) past the 30-day retention window are deleted. */
export const pruneDeliveriesJob: Job = {
  name: 'prune-deliveries',
  schedule: () => '19 3 * * *',
  run: async (ctx) => ({ ...(await pruneDeliveries(ctx.db)) }),
};
