import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Several worker processes may send webhooks. A claim names the process that made it, and
 * each sending process renews a lease every second while it lives; a claim is returned to due
 * only when its process's lease has lapsed, never while a slow but living process still holds it
 * (docs/scale-out.md#webhooks-across-processes).
 */
export const senderLeases: Migration = {
  name: '20261202000000-sender-leases',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'sender_leases',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        renewed_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addColumn('webhook_deliveries', 'claimed_by', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
  },
};
