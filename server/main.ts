import { startAppliance, type Appliance } from './appliance.js';
import { ConfigError, environmentWithFlags, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';

/**
 * Headless entry: config → migrations → listen → cron → graceful stop on SIGINT/SIGTERM. The
 * operator can ask for a restart (the portal's restore, through `ctx.requestRestart`): the
 * appliance stops and starts again in this process on the same port, applying a pending restore
 * before the database opens. A restart that fails to start exits 1, for a service manager to see.
 */
async function main(): Promise<void> {
  const config = loadConfig(environmentWithFlags(process.argv.slice(2)));
  const logger = createLogger(config.logLevel);
  const announce = (appliance: Appliance) =>
    console.log(
      config.role === 'worker'
        ? `CampusBridge worker listening on ${appliance.origin} (only /healthz; runs jobs, webhooks and mail; data ${config.dataDir})`
        : `CampusBridge listening on ${appliance.origin} (API ${appliance.origin}/v1, data ${config.dataDir}${config.role === 'api' ? ', role api' : ''})`,
    );

  let restarting: Promise<void> | null = null;
  const start = (at: Config) => startAppliance({ config: at, logger, onRestartRequested: () => void restart() });
  let appliance = await start(config);
  announce(appliance);

  const restart = () =>
    (restarting ??= (async () => {
      logger.info('restarting on request');
      await appliance.stop();
      // The same port even when PORT is 0, so open portal pages and the LMS find it again.
      appliance = await start({ ...config, port: appliance.port });
      announce(appliance);
    })().then(
      () => {
        restarting = null;
      },
      (err: unknown) => {
        logger.error({ err }, 'restart failed: CampusBridge stopped');
        process.exit(1);
      },
    ));

  const REPEATED_SIGNAL_MS = 1_000;
  let signalledAt: number | null = null;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalledAt !== null) {
      // Ctrl+C under `npm start` arrives twice at once (from the terminal and forwarded by npm):
      // one stop. A second signal later is someone insisting.
      if (Date.now() - signalledAt < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalledAt = Date.now();
    logger.info({ signal }, 'stopping');
    const deadline = setTimeout(() => {
      logger.error('stop took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    deadline.unref();
    // A restart in progress finishes first, so the appliance it starts is the one stopped.
    Promise.resolve(restarting)
      .then(() => appliance.stop())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'stop failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
