// Global setup of the `postgres` project: a throwaway PostgreSQL cluster for the whole run, or the
// one CB_TEST_POSTGRES_URL names. Without PostgreSQL the project's suites are skipped, except in CI.
import type { TestProject } from 'vitest/node';
import { postgresBinDir, startTestCluster, type TestCluster } from './postgres.js';

let cluster: TestCluster | undefined;

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.CB_TEST_POSTGRES_URL;
  if (given) {
    project.provide('postgresAdminUrl', given);
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
  return () => cluster?.stop();
}
