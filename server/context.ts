import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Logger } from './logger.js';

/** What every layer may use: built once at start, passed down, never a module-level singleton. */
export interface AppContext {
  config: Config;
  db: Database;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /**
   * Base of every link the appliance makes (launch URLs, invitations, file links, mail): the
   * `public_url` setting, read fresh so a change by the CLI applies at once (settings/appliance-settings.ts).
   */
  publicUrl: () => Promise<string>;
  /** Checks every handler's result against its documented schema (on in tests). */
  validateResponses: boolean;
  /**
   * The webhook dispatcher, while the appliance runs (absent in the CLI). Call `kick()` after a
   * write that makes deliveries due outside an event (resume, re-enable, replay).
   */
  webhooks?: WebhookEngine;
}

/** Counts hits per key and clock-aligned window (`http/rate-limit.ts`). A store that cannot answer throws. */
export interface RateLimitStore {
  hit(key: string, windowStart: number): Promise<number>;
}

/** The webhook dispatcher (`webhooks/engine.ts`), declared here so the context does not import the engine that uses it. */
export interface WebhookEngine {
  /** Look for due deliveries now (after a commit, a resume, a replay). Cheap; calls coalesce. */
  kick(): void;
  /** Returns orphaned claims to due, then dispatches; the webhook-sweep job calls this. */
  sweep(): Promise<void>;
  /** Stops claiming and waits (bounded) for sends in flight to finish and be recorded. */
  stop(): Promise<void>;
}
