import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LongestFirst from './tests/helpers/sequencer.js';
import { tierFiles, type Tier } from './tests/tiers.js';

/**
 * One project per tier (CONTRIBUTING.md#tests), and a second one on PostgreSQL for the suites
 * tagged `@databases sqlite, postgres`; tests/tiers.ts reads the tags. `npm test` runs them all
 * (build/scripts/test.mjs); `npm run test:<tier>` one tier.
 *
 * Workers: four at most (three for the browser suites). Most suites wait on SQLite, PostgreSQL, sockets and child processes more
 * than they compute, so on two cores four workers keep both busy. Suites that start no process of
 * their own share their worker's modules (`isolate: false`): importing the server again for every
 * file cost about a third of the wall time. Every worker gets its own data folders (temp folders),
 * ports (0) and PostgreSQL databases (copies of a migrated template).
 */
const root = import.meta.dirname;
/** The tiers that run the appliance in the test process hash passwords at a lower cost (the file says why). */
const IN_PROCESS_SETUP = 'tests/helpers/in-process-setup.ts';

type TierOptions = Pick<
  NonNullable<TestProjectInlineConfiguration['test']>,
  'isolate' | 'maxWorkers' | 'sequence' | 'testTimeout' | 'hookTimeout' | 'setupFiles'
>;

function tier(name: Tier, options: TierOptions): TestProjectInlineConfiguration[] {
  const files = tierFiles(root, name);
  const projects: TestProjectInlineConfiguration[] = [{ extends: true, test: { name, include: files.all, ...options } }];
  if (files.postgres.length) {
    projects.push({
      extends: true,
      test: { name: `${name}:postgres`, include: files.postgres, ...options, globalSetup: ['tests/helpers/postgres-setup.ts'] },
    });
  }
  return projects;
}

export default defineConfig({
  test: {
    globalSetup: ['tests/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 4,
    // Bounds that only a hang reaches: on a busy machine a heavy seed takes many times its quiet time.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for what a page or a job does next; its 1 s default is shorter than a
    // busy machine's render or query (a sort press once took longer under two Chromiums).
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default', './tests/helpers/summary-reporter.ts'],
    // The waiting tiers first, each project's longest suites first (tests/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      ...tier('unit', { isolate: true }),
      ...tier('integration', { isolate: false, setupFiles: [IN_PROCESS_SETUP] }),
      ...tier('system', { isolate: true }),
      // After the rest (a group of their own), three at a time: with two, a quarter of the two cores
      // sat idle while pages waited on the appliance; with room for a busy machine's slow rendering
      // in the timeouts, which only a hang reaches.
      ...tier('browser', {
        isolate: false,
        setupFiles: [IN_PROCESS_SETUP],
        maxWorkers: 3,
        sequence: { groupOrder: 1 },
        testTimeout: 120_000,
        hookTimeout: 120_000,
      }),
      ...tier('proof', { isolate: false, setupFiles: [IN_PROCESS_SETUP] }),
    ],
  },
});
