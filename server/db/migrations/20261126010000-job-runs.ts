import type { Migration } from '../migrate.js';

/** Issue 14: every periodic job's runs (start, end, outcome), so missed runs are caught up. */
export const jobRuns: Migration = {
  name: '20261126010000-job-runs',
  async up() {
    // Filled in by the change that needs it.
  },
};
