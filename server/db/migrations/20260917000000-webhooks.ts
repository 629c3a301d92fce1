import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const ref = (table: string, onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.STRING(40),
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

/** Webhook endpoints, deliveries (rows before they are requests) and their attempts. */
export const webhooks: Migration = {
  name: '20260917000000-webhooks',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'webhook_endpoints',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        url: { type: DataTypes.STRING(2048), allowNull: false },
        description: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
        events: { type: DataTypes.JSON, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        disabled_reason: { type: DataTypes.STRING(50), allowNull: true },
        consecutive_failures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        secret_sealed: { type: DataTypes.TEXT, allowNull: false },
        previous_secret_sealed: { type: DataTypes.TEXT, allowNull: true },
        previous_secret_expires_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('webhook_endpoints', ['institution_id', 'status'], { transaction });

    await qi.createTable(
      'webhook_deliveries',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        endpoint_id: ref('webhook_endpoints'),
        event_id: { type: DataTypes.STRING(40), allowNull: false },
        event_type: { type: DataTypes.STRING(100), allowNull: false },
        payload: { type: DataTypes.JSON, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempt_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        next_attempt_at: { type: DataTypes.DATE, allowNull: true },
        last_attempt_at: { type: DataTypes.DATE, allowNull: true },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_time_ms: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true },
        replay_of: { type: DataTypes.STRING(40), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('webhook_deliveries', ['status', 'next_attempt_at'], { transaction });
    await qi.addIndex('webhook_deliveries', ['institution_id', 'endpoint_id', 'created_at'], { transaction });
    await qi.addIndex('webhook_deliveries', ['institution_id', 'created_at'], { transaction });

    await qi.createTable(
      'webhook_attempts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        delivery_id: ref('webhook_deliveries'),
        at: { type: DataTypes.DATE, allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_time_ms: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true },
        error: { type: DataTypes.STRING(200), allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('webhook_attempts', ['delivery_id', 'at'], { transaction });
  },
};
