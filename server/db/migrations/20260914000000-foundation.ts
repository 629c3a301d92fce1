import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

const institutionRef = {
  type: DataTypes.STRING(40),
  allowNull: false,
  references: { model: 'institutions', key: 'id' },
  onDelete: 'CASCADE',
};

/** Institutions, portal accounts and their memberships, API keys and the event store. */
export const foundation: Migration = {
  name: '20260914000000-foundation',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'institutions',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        name: { type: DataTypes.STRING(200), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        config: { type: DataTypes.JSON, allowNull: false },
        ...timestamps,
      },
      { transaction },
    );

    await qi.createTable(
      'portal_accounts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        email: { type: DataTypes.STRING(320), allowNull: false, unique: true },
        password_hash: { type: DataTypes.STRING(300), allowNull: true },
        is_operator: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        ...timestamps,
      },
      { transaction },
    );

    await qi.createTable(
      'memberships',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: institutionRef,
        account_id: {
          type: DataTypes.STRING(40),
          allowNull: false,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'CASCADE',
        },
        role: { type: DataTypes.STRING(16), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('memberships', ['institution_id', 'account_id'], { unique: true, transaction });

    await qi.createTable(
      'api_keys',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: institutionRef,
        name: { type: DataTypes.STRING(200), allowNull: false },
        key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        prefix: { type: DataTypes.STRING(16), allowNull: false },
        last4: { type: DataTypes.STRING(4), allowNull: false },
        scopes: { type: DataTypes.JSON, allowNull: false },
        rate_limit_per_min: { type: DataTypes.INTEGER, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        created_by: {
          type: DataTypes.STRING(40),
          allowNull: true,
          references: { model: 'portal_accounts', key: 'id' },
          onDelete: 'SET NULL',
        },
        last_used_at: { type: DataTypes.DATE, allowNull: true },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('api_keys', ['institution_id', 'status'], { transaction });

    await qi.createTable(
      'events',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: institutionRef,
        type: { type: DataTypes.STRING(100), allowNull: false },
        data: { type: DataTypes.JSON, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // Unique: created_at is strictly increasing per institution, so `since` polling is exact.
    await qi.addIndex('events', ['institution_id', 'created_at'], { unique: true, transaction });
    await qi.addIndex('events', ['created_at'], { transaction });
  },
};
