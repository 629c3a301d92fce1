import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Where a OneRoster connection's roster comes from: the SIS's REST API (`rest`), or the
 * CSV zips the school imports (`csv`, a connection made by the first import, with no URL or
 * credentials: those columns hold empty strings).
 */
export const onerosterCsv: Migration = {
  name: '20261207000000-oneroster-csv',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('oneroster_connections', 'source', { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'rest' }, { transaction });
  },
};
