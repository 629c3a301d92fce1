import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { Logger } from './logger.js';

/** What every layer may use: built once at start, passed down, never a module-level singleton. */
export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Checks every handler's result against its documented schema (on in tests). */
  validateResponses: boolean;
}
