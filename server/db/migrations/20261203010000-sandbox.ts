import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Sandbox keys: an institution's sandbox is a second institution row pointing at its
 * live one (`sandbox_of`, at most one each), so every tenant scope isolates it without a filter
 * of its own; a key says which of the two it opens (`environment`). Deleting a live institution
 * deletes its sandbox (docs/decisions/sandbox.md).
 */
export const sandbox: Migration = {
  name: '20261203010000-sandbox',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn(
      'institutions',
      'sandbox_of',
      { type: DataTypes.STRING(40), allowNull: true, references: { model: 'institutions', key: 'id' }, onDelete: 'CASCADE' },
      { transaction },
    );
    await qi.addIndex('institutions', ['sandbox_of'], { unique: true, transaction });
    await qi.addColumn('api_keys', 'environment', { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'live' }, { transaction });
  },
};
