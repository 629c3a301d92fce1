import { defineConfig } from 'vitest/config';

/**
 * The HTTP suites that also run on PostgreSQL (issue 18): the API's route suites and the
 * cross-cutting ones in tests/, each appliance (and each data folder a test makes) on a database
 * of its own. A case about SQLite alone inside them is skipped there (`onPostgres`). Not here:
 * - suites that open no database (lint, imports, UI helpers, webhook signing and addresses), and
 *   the desktop's (electron/) and the browser's (tests/e2e/);
 * - backup: `backup`, `restore` and the pre-migration copy are copies of the SQLite file;
 *   PostgreSQL is backed up with its own tools (docs/scale-out.md);
 * - query-plans: SQLite's EXPLAIN QUERY PLAN; schema-pragmas: SQLite's PRAGMA table_info cache;
 * - list-migrations, mail-subjects-migration: SQLite files migrated part way (migrateTo);
 * - crash: SIGKILL mid-write, then SQLite's integrity check and write-ahead log;
 * - process, npm-start, secrets, webhooks-crash: the built server and CLI run as processes on
 *   DATA_DIR, whose bundle helpers open the folder's SQLite file.
 */
const POSTGRES_SUITES = [
  'server/routes/**/*.test.ts',
  ...[
    'api-core',
    'appliance-settings',
    'backups-portal',
    'cli',
    'cli-accounts',
    'client',
    'db-transactions',
    'demo',
    'edge',
    'events',
    'exam-loop',
    'fuzz',
    'guardian-reports',
    'idempotency',
    'job-claims',
    'jobs',
    'key-cache',
    'key-lifecycle',
    'learner-sessions',
    'list-sort',
    'lti',
    'mail',
    'mail-stale',
    'oneroster',
    'openapi',
    'person-counts',
    'portal-*',
    'process-roles',
    'rate-limit-redis',
    'recovery-kit',
    'sandbox',
    'smoke',
    'tenancy',
    'tenancy-sweep',
    'upload-limits',
    'webhook-debugging',
    'webhooks-engine',
    'webhooks-delete-race',
    'trust-proxy',
  ].map((name) => `tests/${name}.test.ts`),
];

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
