import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * `Idempotency-Key` on the POSTs of /v1. One row per caller and key: the request's
 * fingerprint, and once it has finished, its answer (sealed, since answers can hold secrets),
 * kept 24 hours (docs/api.md#idempotent-requests).
 */
export const idempotencyKeys: Migration = {
  name: '20261203030000-idempotency-keys',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'idempotency_keys',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: {
          type: DataTypes.STRING(40),
          allowNull: false,
          references: { model: 'institutions', key: 'id' },
          onDelete: 'CASCADE',
        },
        subject: { type: DataTypes.STRING(60), allowNull: false },
        key: { type: DataTypes.STRING(255), allowNull: false },
        fingerprint: { type: DataTypes.STRING(64), allowNull: false },
        request: { type: DataTypes.STRING(300), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_sealed: { type: DataTypes.TEXT, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('idempotency_keys', ['subject', 'key'], { unique: true, transaction });
    await qi.addIndex('idempotency_keys', ['expires_at'], { transaction });
    await qi.addIndex('idempotency_keys', ['institution_id'], { transaction });
  },
};
