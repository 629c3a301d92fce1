import type { AppContext } from '../context.js';

export interface Job {
  name: string;
  /** node-cron expression, evaluated in UTC. */
  schedule: (ctx: AppContext) => string;
  run: (ctx: AppContext) => Promise<Record<string, unknown> | void>;
  /** Runs often (every minute or more): its routine results are logged at debug, not info. */
  frequent?: boolean;
}
