import { startAppliance } from './appliance.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';

/** Headless entry: config → migrations → listen → cron → graceful stop on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const appliance = await startAppliance({ config, logger });
  console.log(`CampusBridge listening on ${appliance.origin} (API ${appliance.origin}/v1, data ${config.dataDir})`);

  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'stopping');
    const deadline = setTimeout(() => {
      logger.error('stop took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    deadline.unref();
    appliance.stop().then(
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
