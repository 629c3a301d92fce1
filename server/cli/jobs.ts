import type { AppContext, RateLimitStore } from '../context.js';
import { AppError } from '../errors.js';
import { jobs } from '../jobs/registry.js';
import { createJobRunner } from '../jobs/runner.js';
import { describeJobs } from '../jobs/status.js';
import { createLogger } from '../logger.js';
import { presentJob } from '../presenters/job.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import type { CliContext, RegisterCommands } from './context.js';

/** The CLI serves no requests, so it has nothing to rate-limit. */
const noRateLimits: RateLimitStore = { hit: () => Promise.reject(new Error('the command line has no rate limits')) };

/**
 * What a job gets when the CLI runs it: the server's context on the CLI's own connection to
 * DATA_DIR, without a webhook engine (the running server's sweep sends what a job makes due).
 * Logs are silent: stdout holds exactly one JSON value.
 */
async function jobContext(cli: CliContext): Promise<AppContext> {
  const config = cli.config();
  const db = await cli.database();
  return {
    config,
    db,
    logger: createLogger('silent'),
    rateLimitStore: noRateLimits,
    publicUrl: () => readApplianceSetting(db, config, 'public_url'),
    validateResponses: false,
    listening: { host: config.host, port: config.port },
  };
}

/** The `jobs` commands of docs/api.md#command-line. */
export const registerJobsCommands: RegisterCommands = (program, cli) => {
  const group = program.command('jobs').description('the periodic jobs: their last and next runs, and running one now');
  group
    .command('list')
    .description('every job with its schedule (UTC), its newest run and its next time')
    .action(async () => {
      const ctx = await jobContext(cli);
      cli.print({ items: (await describeJobs(ctx, jobs)).map(presentJob) });
    });
  group
    .command('run <name>')
    .description('run one job now, recorded like a scheduled run; prints its outcome (ok or failed)')
    .action(async (name: string) => {
      const job = jobs.find((candidate) => candidate.name === name);
      if (!job) throw new AppError('not_found', `No job named ${name}; the jobs are ${jobs.map((candidate) => candidate.name).join(', ')}.`);
      const runner = createJobRunner(await jobContext(cli));
      const outcome = await runner.run(job, 'manual').then(
        () => 'ok' as const,
        () => 'failed' as const,
      );
      cli.print({ name, outcome });
    });
};
