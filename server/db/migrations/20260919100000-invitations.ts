import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Developer invitations, made in the portal. Only the SHA-256 of an invitation's token is stored;
 * a resend replaces it, so the earlier link stops working.
 */
export const invitations: Migration = {
  name: '20260919100000-invitations',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'invitations',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: {
          type: DataTypes.STRING(40),
          allowNull: false,
          references: { model: 'institutions', key: 'id' },
          onDelete: 'CASCADE',
        },
        email: { type: DataTypes.STRING(320), allowNull: false },
        role: { type: DataTypes.STRING(16), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        // Null once accepted: a used link can never be used again.
        token_hash: { type: DataTypes.STRING(64), allowNull: true, unique: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        invited_by: {
          type: DataTypes.STRING(40),
          allowNull: true,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'SET NULL',
        },
        sent_at: { type: DataTypes.DATE, allowNull: false },
        accepted_at: { type: DataTypes.DATE, allowNull: true },
        accepted_by: {
          type: DataTypes.STRING(40),
          allowNull: true,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'SET NULL',
        },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('invitations', ['institution_id', 'status'], { transaction });
    await qi.addIndex('invitations', ['institution_id', 'email'], { transaction });
  },
};
