import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, createWorkerApp } from './app.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { MasterKeyStore } from './crypto/master-key.js';
import { connectDatabase, databaseLocation } from './db/index.js';
import { migrations } from './db/migrations/index.js';
import { applyPendingRestore } from './db/restore.js';
import { uploadsRoot } from './files/storage.js';
import { linkWarning } from './settings/addresses.js';
import { sweepTempFiles } from './files/temp.js';
import { answerClientError } from './http/client-error.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit.js';
import { RedisRateLimitStore } from './http/redis-rate-limit.js';
import { jobs } from './jobs/registry.js';
import { startScheduler, type Scheduler } from './jobs/scheduler.js';
import { createLogger, type Logger } from './logger.js';
import { sendMailAfterCommit } from './mail/mailer.js';
import { explicitPublicUrl, readApplianceSetting } from './settings/appliance-settings.js';
import { startWebhookEngine } from './webhooks/engine.js';
import { tuneGarbageCollection } from './gc-tuning.js';

export interface StartOptions {
  config: Config;
  logger?: Logger;
  rateLimitStore?: RateLimitStore;
  validateResponses?: boolean;
  /** Where the master key lives; the 0600 file beside the database unless the desktop shell passes its keychain store. */
  masterKeyStore?: MasterKeyStore;
  /** Called when the operator asks for a restart (the portal, after choosing a backup to restore): stop this appliance, then start a new one. */
  onRestartRequested?: () => void;
  /** Hears each start-up step as it begins: opening (and migrating) the database, then the HTTP server (the desktop window shows them). */
  onProgress?: (step: 'database' | 'server') => void;
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
/** How long an idle keep-alive connection stays open (Node's default is 5 s). */
const KEEP_ALIVE_MS = 65_000;
/** How long a start waits for a Redis rate-limit store to connect before serving without it (503s). */
const REDIS_CONNECT_WAIT_MS = 3_000;

/**
 * Starts everything in order: database and migrations, HTTP server, cron jobs. The headless
 * entry (main.ts), the desktop shell and the tests all start the appliance this way. The role
 * (docs/decisions/process-roles.md) says which part runs here: `api` serves HTTP and sends
 * nothing, `worker` runs jobs, webhooks and mail behind a bare /healthz, `all` does both.
 */
export async function startAppliance(options: StartOptions): Promise<Appliance> {
  const { config } = options;
  tuneGarbageCollection();
  const logger = options.logger ?? createLogger(config.logLevel);
  // A restore chosen in the portal while the last run was running is put in place before the database opens.
  const restored = config.databaseUrl ? null : await applyPendingRestore({ databaseFile: config.databaseFile, uploadsDir: uploadsRoot(config.dataDir) });
  if (restored) logger[restored.outcome === 'restored' ? 'info' : 'warn']({ restore: restored }, `pending restore ${restored.outcome}`);
  options.onProgress?.('database');
  const db = await connectDatabase(databaseLocation(config), options.masterKeyStore);
  if (db.migrationsApplied.length) logger.info({ migrations: db.migrationsApplied }, 'database migrated');
  // Before the first request: whatever is in the temp folder was left by an earlier run (a crash mid-upload).
  const sweptTempFiles = await sweepTempFiles(config.dataDir, 0);
  if (sweptTempFiles > 0) logger.info({ removed: sweptTempFiles }, 'removed temporary files of an earlier run');

  const { role } = config;
  const serves = role !== 'worker';
  const works = role !== 'api';
  // A worker answers no rate-limited request, so it keeps no connection to a shared store.
  const ownStore =
    !options.rateLimitStore && serves && config.rateLimitStore.kind === 'redis' ? await RedisRateLimitStore.open(config.rateLimitStore.url, logger) : null;
  // Redis down at start does not stop the start: rate-limited requests get 503 until it answers.
  if (ownStore && !(await ownStore.connected(REDIS_CONNECT_WAIT_MS))) logger.warn('starting without the rate limiter store (Redis); it keeps being tried');
  const ctx: AppContext = {
    config,
    db,
    logger,
    rateLimitStore: options.rateLimitStore ?? ownStore ?? new MemoryRateLimitStore(),
    validateResponses: options.validateResponses ?? false,
    publicUrl: () => readApplianceSetting(db, config, 'public_url'),
    listening: { host: config.host, port: config.port },
    requestRestart: options.onRestartRequested,
    masterKeyStore: options.masterKeyStore,
  };

  options.onProgress?.('server');
  const server = http.createServer(serves ? createApp(ctx) : createWorkerApp(ctx));
  server.on('clientError', answerClientError);
  // Node closes an idle keep-alive connection after 5 s. A client that polls every few seconds (an
  // LMS on /v1/events), or whose own idle timer runs late on a busy machine, then sends its next
  // request on a socket the server is closing, and gets "other side closed". Clients keep idle
  // sockets for less than this (undici 4 s, browsers and proxies up to a minute).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await ownStore?.close();
    await db.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  ctx.publicUrl = () => readApplianceSetting(db, config, 'public_url', port);
  ctx.listening = { host: config.host, port };
  // Webhooks: deliveries go out right after their event's transaction commits; the webhook-sweep
  // job (every WEBHOOK_SWEEP_SECONDS) sends retries and whatever waited. On ctx so routes can kick it.
  // Started before the scheduler, whose sweep job calls it. An api process has none: what its
  // requests make due waits for a worker's sweep (WEBHOOK_SWEEP_SECONDS).
  const webhooks = works ? startWebhookEngine(ctx) : null;
  ctx.webhooks = webhooks ?? undefined;
  // A database this start created has no missed runs to catch up; an older one without records has.
  const createdNow = db.migrationsApplied.includes(migrations[0]!.name);
  // An api process schedules nothing, but the operator's "Run now" still runs the job here.
  const scheduler = startScheduler(ctx, jobs, {
    catchUpDelayMs: config.jobsCatchUpDelayMs,
    neverRunIsMissed: !createdNow,
    timed: works && config.jobsOnSchedule,
  });
  ctx.jobs = scheduler;
  // Mail goes out right after the transaction that queued it commits; the send-mail job retries
  // (and, on a worker, sends what an api process queued).
  const mailer = works ? sendMailAfterCommit(db, logger, () => explicitPublicUrl(db, config)) : null;
  logger.info({ role, rate_limit_store: ownStore ? 'redis' : 'memory' }, `running as ${role}`);
  // The start log says so when the links' address is not one this listener answers on.
  if (serves) {
    const publicUrl = await ctx.publicUrl();
    const warning = linkWarning(publicUrl, config.host, { behindProxy: config.trustProxy !== false });
    if (warning) logger.warn({ public_url: publicUrl, host: config.host }, warning);
  }

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (bounded), then jobs, then the database.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Webhooks stop claiming now; sends in flight finish and are recorded (bounded) while requests drain.
      const webhooksStopped = webhooks?.stop();
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
      await closed;
      clearTimeout(grace);
      await webhooksStopped;
      await ownStore?.close();
      await mailer?.stop();
      await scheduler.stop();
      await db.close();
    })());

  return { ctx, origin: `http://${host}:${port}`, port, scheduler, stop };
}
