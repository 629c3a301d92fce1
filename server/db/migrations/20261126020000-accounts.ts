import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * "Forgot password" links for portal accounts: only the SHA-256 of a
 * link's token is stored; a link is single-use and short-lived (docs/decisions/accounts-and-passwords.md).
 */
export const accountLife: Migration = {
  name: '20261126020000-accounts',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'password_resets',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        account_id: {
          type: DataTypes.STRING(40),
          allowNull: false,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'CASCADE',
        },
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        // Set when the link is used; a used link never works again.
        used_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('password_resets', ['account_id', 'created_at'], { transaction });
  },
};
