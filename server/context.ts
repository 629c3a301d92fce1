import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { RateLimitStore } from './http/rate-limit.js';
import type { Logger } from './logger.js';
import type { WebhookEngine } from './webhooks/engine.js';

/** What every layer may use: built once at start, passed down, never a module-level singleton. */
export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Base of links in mail and launch URLs (`PUBLIC_URL`, else the listening origin); set once listening. */
  portalUrl: string;
  /** Checks every handler's result against its documented schema (on in tests). */
  validateResponses: boolean;
  /**
   * The webhook dispatcher, while the appliance runs (absent in the CLI). Call `kick()` after a
   * write that makes deliveries due outside an event (resume, re-enable, replay).
   */
  webhooks?: WebhookEngine;
}
