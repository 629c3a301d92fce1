import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { MasterKeyStore } from './crypto/master-key.js';
import { connectDatabase } from './db/index.js';
import { sweepTempFiles } from './files/temp.js';
import { answerClientError } from './http/client-error.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit.js';
import { jobs } from './jobs/registry.js';
import { startScheduler, type Scheduler } from './jobs/scheduler.js';
import { createLogger, type Logger } from './logger.js';
import { sendMailAfterCommit } from './mail/mailer.js';
import { readApplianceSetting } from './settings/appliance-settings.js';
import { startWebhookEngine } from './webhooks/engine.js';

export interface StartOptions {
  config: Config;
  logger?: Logger;
  rateLimitStore?: RateLimitStore;
  validateResponses?: boolean;
  /** Where the master key lives; the 0600 file beside the database unless the desktop shell passes its keychain store. */
  masterKeyStore?: MasterKeyStore;
}

export interface Appliance {
  ctx: AppContext;
  /** `http://<host>:<port>` */
  origin: string;
  port: number;
  scheduler: Scheduler;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 8_000;

/**
 * Starts everything in order: database and migrations, HTTP server, cron jobs. The headless
 * entry (main.ts), the desktop shell and the tests all start the appliance this way.
 */
export async function startAppliance(options: StartOptions): Promise<Appliance> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = await connectDatabase(config.databaseFile, options.masterKeyStore);
  if (db.migrationsApplied.length) logger.info({ migrations: db.migrationsApplied }, 'database migrated');
  // Before the first request: whatever is in the temp folder was left by an earlier run (a crash mid-upload).
  const sweptTempFiles = await sweepTempFiles(config.dataDir, 0);
  if (sweptTempFiles > 0) logger.info({ removed: sweptTempFiles }, 'removed temporary files of an earlier run');

  const ctx: AppContext = {
    config,
    db,
    logger,
    rateLimitStore: options.rateLimitStore ?? new MemoryRateLimitStore(),
    validateResponses: options.validateResponses ?? false,
    publicUrl: () => readApplianceSetting(db, config, 'public_url'),
  };

  const server = http.createServer(createApp(ctx));
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await db.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  ctx.publicUrl = () => readApplianceSetting(db, config, 'public_url', port);
  // Webhooks: deliveries go out right after their event's transaction commits; the webhook-sweep
  // job (every WEBHOOK_SWEEP_SECONDS) sends retries and whatever waited. On ctx so routes can kick it.
  // Started before the scheduler, whose sweep job calls it.
  const webhooks = startWebhookEngine(ctx);
  ctx.webhooks = webhooks;
  const scheduler = startScheduler(ctx, jobs);
  // Mail goes out right after the transaction that queued it commits; the send-mail job retries.
  const mailer = sendMailAfterCommit(db, logger);

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (bounded), then jobs, then the database.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Webhooks stop claiming now; sends in flight finish and are recorded (bounded) while requests drain.
      const webhooksStopped = webhooks.stop();
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
      await closed;
      clearTimeout(grace);
      await webhooksStopped;
      await mailer.stop();
      await scheduler.stop();
      await db.close();
    })());

  return { ctx, origin: `http://${host}:${port}`, port, scheduler, stop };
}
