import type { Migration } from '../migrate.js';

/**
 * The portal's license chart counts active licenses of each type expiring in each
 * month. With the status, the type and the expiry in one index, each count is one range of the
 * index alone, never the table (docs/decisions/portal-charts.md). The other charts' counts have
 * theirs already (people by role and creation, deliveries by status and creation, an endpoint's
 * deliveries by creation).
 */
export const statsIndexes: Migration = {
  name: '20261129100000-stats-indexes',
  async up({ queryInterface: qi, transaction }) {
    await qi.addIndex('licenses', ['institution_id', 'status', 'type', 'expires_at'], { transaction });
  },
};
