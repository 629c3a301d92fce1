import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * The key lifecycle: an optional expiry (a key past it answers like an unknown
 * one), the address of the last use beside its time, and the link between a rolled key and the
 * key that replaced it (docs/decisions/api-key-lifecycle.md). Plain id columns without foreign
 * keys: keys are never deleted one by one, only with their institution.
 */
export const keyLifecycle: Migration = {
  name: '20261203020000-key-lifecycle',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('api_keys', 'expires_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
    // 45 characters hold any IPv6 address in text, an IPv4-mapped one included.
    await qi.addColumn('api_keys', 'last_used_ip', { type: DataTypes.STRING(45), allowNull: true }, { transaction });
    await qi.addColumn('api_keys', 'replaced_by', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
    await qi.addColumn('api_keys', 'replaces', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
  },
};
