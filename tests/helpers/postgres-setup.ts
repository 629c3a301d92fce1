// Global setup of the `postgres` project: a throwaway PostgreSQL cluster for the whole run, or the
// one CB_TEST_POSTGRES_URL names, with the migrated template its test databases are copied from.
// Without PostgreSQL the project's suites are skipped, except in CI.
import type { TestProject } from 'vitest/node';
import { postgresBinDir, startTestCluster, type TestCluster } from './postgres.js';
import { migratePostgresTemplate } from './templates.js';

let cluster: TestCluster | undefined;

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.CB_TEST_POSTGRES_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
    project.provide('postgresTemplate', await migratePostgresTemplate(given));
    return () => undefined;
  }
  const binDir = postgresBinDir();
  if (!binDir) {
    if (process.env.CI === 'true') throw new Error('PostgreSQL is not installed; .ci/run installs it with apt');
    console.warn('PostgreSQL is not installed: the postgres project runs its suites on SQLite only');
    return () => undefined;
  }
  cluster = await startTestCluster(binDir);
  project.provide('postgresAdminUrl', cluster.adminUrl);
  project.provide('postgresTemplate', await migratePostgresTemplate(cluster.adminUrl));
  return () => cluster?.stop();
}
