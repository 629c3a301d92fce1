import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Portal sign-in: one row per session. Only SHA-256 hashes of the cookie token and of its CSRF
 * token are stored, so a copy of the database cannot be used to act as anyone.
 */
export const portal: Migration = {
  name: '20260919000000-portal',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'portal_sessions',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        account_id: {
          type: DataTypes.STRING(40),
          allowNull: false,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'CASCADE',
        },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        csrf_token_hash: { type: DataTypes.STRING(64), allowNull: false },
        // The absolute end (12 h after sign-in); the idle end is last_seen_at + 2 h.
        expires_at: { type: DataTypes.DATE, allowNull: false },
        last_seen_at: { type: DataTypes.DATE, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('portal_sessions', ['account_id'], { transaction });
    await qi.addIndex('portal_sessions', ['expires_at'], { transaction });
  },
};
