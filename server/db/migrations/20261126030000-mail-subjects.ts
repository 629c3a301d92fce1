import type { Migration } from '../migrate.js';

/** Issue 14: mail that tells the truth (what a queued message is about, so stale mail is dropped). */
export const mailSubjects: Migration = {
  name: '20261126030000-mail-subjects',
  async up() {
    // Filled in by the change that needs it.
  },
};
