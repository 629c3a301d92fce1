import { defineConfig } from 'vitest/config';

/**
 * The HTTP suites that also run on PostgreSQL (issue 18): the API's route suites, each appliance
 * on a database of its own. Suites about SQLite itself (files, backups, pragmas, query plans) or
 * the desktop run on SQLite only.
 */
const POSTGRES_SUITES = ['server/routes/**/*.test.ts', 'tests/job-claims.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['tests/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['server/**/*.test.ts', 'tests/**/*.test.ts', 'electron/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: POSTGRES_SUITES, globalSetup: ['tests/helpers/postgres-setup.ts'] } },
    ],
  },
});
