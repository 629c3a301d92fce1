import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * A running OneRoster sync writes `heartbeat_at` while it works, so a run left `running`
 * by a process that stopped (a crash, a power cut) stops blocking the next sync within minutes,
 * whichever process notices, rather than after half an hour.
 */
export const onerosterHeartbeat: Migration = {
  name: '20261205000000-oneroster-heartbeat',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('oneroster_runs', 'heartbeat_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
  },
};
