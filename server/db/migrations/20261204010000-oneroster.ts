import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const ref = (table: string) => ({ type: DataTypes.STRING(40), allowNull: false, references: { model: table, key: 'id' }, onDelete: 'CASCADE' });

/**
 * OneRoster roster sync (docs/decisions/oneroster.md). One connection per institution
 * to its SIS (the client secret sealed with the master key); the links between the SIS's
 * `sourcedId`s and the people and groups a sync made or matched; and every run with its outcome.
 */
export const oneroster: Migration = {
  name: '20261204010000-oneroster',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'oneroster_connections',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: { ...ref('institutions'), unique: true },
        url: { type: DataTypes.STRING(500), allowNull: false },
        version: { type: DataTypes.STRING(8), allowNull: false },
        token_url: { type: DataTypes.STRING(500), allowNull: false },
        client_id: { type: DataTypes.STRING(300), allowNull: false },
        client_secret_sealed: { type: DataTypes.TEXT, allowNull: false },
        auth_method: { type: DataTypes.STRING(8), allowNull: false },
        scopes: { type: DataTypes.STRING(1000), allowNull: false },
        class_share: { type: DataTypes.FLOAT, allowNull: false },
        class_minimum: { type: DataTypes.INTEGER, allowNull: false },
        school_share: { type: DataTypes.FLOAT, allowNull: false },
        schedule_hours: { type: DataTypes.INTEGER, allowNull: true },
        delta_watermark: { type: DataTypes.STRING(40), allowNull: true },
        last_full_sync_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );

    await qi.createTable(
      'oneroster_links',
      {
        connection_id: { ...ref('oneroster_connections'), primaryKey: true },
        kind: { type: DataTypes.STRING(8), allowNull: false, primaryKey: true },
        sourced_id: { type: DataTypes.STRING(255), allowNull: false, primaryKey: true },
        institution_id: ref('institutions'),
        target_id: { type: DataTypes.STRING(40), allowNull: false },
        /** Whether the SIS still lists it as active; a gone or tobedeleted record is kept, marked false. */
        active: { type: DataTypes.BOOLEAN, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('oneroster_links', ['institution_id', 'target_id'], { transaction });

    await qi.createTable(
      'oneroster_runs',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        connection_id: ref('oneroster_connections'),
        trigger: { type: DataTypes.STRING(16), allowNull: false },
        kind: { type: DataTypes.STRING(8), allowNull: false },
        dry_run: { type: DataTypes.BOOLEAN, allowNull: false },
        outcome: { type: DataTypes.STRING(16), allowNull: false },
        counts: { type: DataTypes.JSON, allowNull: true },
        reason: { type: DataTypes.STRING(1000), allowNull: true },
        started_at: { type: DataTypes.DATE, allowNull: false },
        finished_at: { type: DataTypes.DATE, allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('oneroster_runs', ['institution_id', 'started_at'], { transaction });
  },
};
