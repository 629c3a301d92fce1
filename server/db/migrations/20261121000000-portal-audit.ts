import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/** The portal's audit log: one row per change made in the portal. */
export const portalAudit: Migration = {
  name: '20261121000000-portal-audit',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'portal_audit_log',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        // No foreign keys: the log outlives what it names (a removed account, a deleted endpoint).
        institution_id: { type: DataTypes.STRING(40), allowNull: true },
        account_id: { type: DataTypes.STRING(40), allowNull: true },
        actor_email: { type: DataTypes.STRING(320), allowNull: false },
        action: { type: DataTypes.STRING(200), allowNull: false },
        description: { type: DataTypes.STRING(300), allowNull: false },
        target: { type: DataTypes.TEXT, allowNull: false },
        ip: { type: DataTypes.STRING(64), allowNull: true },
        request_id: { type: DataTypes.STRING(100), allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('portal_audit_log', ['institution_id', 'created_at'], { transaction });
    await qi.addIndex('portal_audit_log', ['created_at'], { transaction });
  },
};
