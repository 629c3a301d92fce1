import type { Migration } from '../migrate.js';

/** Issue 14: accounts a school can live with (password resets, admin invitations). */
export const accountLife: Migration = {
  name: '20261126020000-accounts',
  async up() {
    // Filled in by the change that needs it.
  },
};
