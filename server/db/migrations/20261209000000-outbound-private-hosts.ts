import type { Migration } from '../migrate.js';

/**
 * The setting that lets the appliance send to loopback and campus hosts was named
 * `webhook_private_hosts`; requests to LTI platforms and the SIS obey it too, so it is now
 * `outbound_private_hosts`. A stored value moves to the new key; the old name is still accepted
 * where a name is given (server/settings/appliance-settings.ts).
 */
export const outboundPrivateHosts: Migration = {
  name: '20261209000000-outbound-private-hosts',
  async up({ queryInterface: qi, transaction }) {
    await qi.bulkUpdate('app_settings', { key: 'setting.outbound_private_hosts' }, { key: 'setting.webhook_private_hosts' }, { transaction });
  },
};
