import type { Config } from './config.js';
import type { MasterKeyStore } from './crypto/master-key.js';
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
  /** Where the server listens (HOST, and the port actually bound); set once listening. */
  listening: { host: string; port: number };
  /** Checks every handler's result against its documented schema (on in tests). */
  validateResponses: boolean;
  /**
   * The webhook dispatcher, while the appliance runs (absent in the CLI). Call `kick()` after a
   * write that makes deliveries due outside an event (resume, re-enable, replay).
   */
  webhooks?: WebhookEngine;
  /** The periodic jobs while the appliance runs (absent in the CLI): last and next runs, and running one now. */
  jobs?: JobControl;
  /**
   * Asks whoever started the appliance to stop it and start it again (a pending restore is applied
   * in between). Set from `StartOptions.onRestartRequested`: the headless entry (main.ts) and, when
   * it passes one, the desktop shell. Absent: the operator restarts CampusBridge by hand.
   */
  requestRestart?: () => void;
  /** The master key's store when it is not the 0600 file beside the database (the desktop's keychain store); for the recovery kit. */
  masterKeyStore?: MasterKeyStore;
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

/** One job as the operator sees it (server/jobs/scheduler.ts). */
export interface JobStatus {
  name: string;
  /** The node-cron expression, in UTC. */
  schedule: string;
  /** The newest run: in progress while `finished_at` is null (or cut short by a stop). */
  last_run: { started_at: Date; finished_at: Date | null; outcome: 'ok' | 'failed' | null; detail: string | null } | null;
  next_run_at: Date | null;
  /** A run is in progress in this process. */
  running: boolean;
}

/** The scheduler as the portal reaches it, declared here so the edge does not import jobs/. */
export interface JobControl {
  list(): Promise<JobStatus[]>;
  /** Runs one job now and records it; null for a name that is not a job. */
  run(name: string): Promise<{ name: string; outcome: 'ok' | 'failed' } | null>;
}
