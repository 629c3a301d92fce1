import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * LTI Dynamic Registration (docs/lms.md#dynamic-registration): the single-use
 * registration URLs an admin makes for an LMS, stored by their token's SHA-256, an hour each.
 */
export const ltiDynamicRegistration: Migration = {
  name: '20261204030000-lti-dynamic-registration',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'lti_registrations',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: { type: DataTypes.STRING(40), allowNull: false, references: { model: 'institutions', key: 'id' }, onDelete: 'CASCADE' },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        used_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
  },
};
