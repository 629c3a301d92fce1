import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export const ONEROSTER_VERSIONS = ['1.2', '1.1'] as const;
export type OneRosterVersion = (typeof ONEROSTER_VERSIONS)[number];
export const ONEROSTER_AUTH_METHODS = ['basic', 'form'] as const;
export const ONEROSTER_SOURCES = ['rest', 'csv'] as const;
/** Where the roster comes from: the SIS's REST API, or the CSV zips the school imports. */
export type OneRosterSource = (typeof ONEROSTER_SOURCES)[number];
export type OneRosterAuthMethod = (typeof ONEROSTER_AUTH_METHODS)[number];

/** An institution's connection to its SIS's OneRoster rostering service (one per institution). */
export interface OneRosterConnectionRow extends Model<InferAttributes<OneRosterConnectionRow>, InferCreationAttributes<OneRosterConnectionRow>> {
  id: string;
  institution_id: string;
  /** `csv`: made by a CSV import; the URL and credentials below are then empty strings. */
  source: CreationOptional<OneRosterSource>;
  /** The service's base URL; the version's path (`/ims/oneroster/rostering/v1p2`) is added to it. */
  url: string;
  version: OneRosterVersion;
  token_url: string;
  client_id: string;
  /** AES-256-GCM under the master key; never presented. */
  client_secret_sealed: string;
  /** How the client authenticates at the token endpoint (RFC 6749 §2.3.1): HTTP Basic or the form body. */
  auth_method: OneRosterAuthMethod;
  /** Space-separated OAuth 2 scopes asked for. */
  scopes: string;
  /** The guard: a sync suspending more than this share of a class (and at least `class_minimum` people)… */
  class_share: number;
  class_minimum: number;
  /** …or more than this share of the school's active students is held back unless confirmed. */
  school_share: number;
  /** Hours between scheduled syncs; null: no schedule. */
  schedule_hours: number | null;
  /** The newest `dateLastModified` an applied sync saw: a delta sync asks for what changed after it. */
  delta_watermark: string | null;
  last_full_sync_at: Date | null;
  /** Grades go back to the SIS's gradebook (OneRoster 1.2 Gradebook, `PUT` line items and results); REST 1.2 connections only. */
  gradebook_writeback: CreationOptional<boolean>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export type OneRosterLinkKind = 'user' | 'class';

/** A SIS record (`sourcedId`) and the person or group it is in this institution. */
export interface OneRosterLinkRow extends Model<InferAttributes<OneRosterLinkRow>, InferCreationAttributes<OneRosterLinkRow>> {
  connection_id: string;
  kind: OneRosterLinkKind;
  sourced_id: string;
  institution_id: string;
  target_id: string;
  active: boolean;
  updated_at: Date;
}

export const ONEROSTER_RUN_OUTCOMES = ['running', 'applied', 'dry_run', 'held_back', 'failed'] as const;
export type OneRosterRunOutcome = (typeof ONEROSTER_RUN_OUTCOMES)[number];
export const ONEROSTER_RUN_TRIGGERS = ['portal', 'cli', 'scheduled', 'portal_csv', 'cli_csv'] as const;
/** What started a run; `_csv`: a CSV zip imported from the portal or the CLI. */
export type OneRosterRunTrigger = (typeof ONEROSTER_RUN_TRIGGERS)[number];
export type OneRosterSyncKind = 'full' | 'delta';

/** One sync: what started it, what it would do or did (counts), and how it ended. */
export interface OneRosterRunRow extends Model<InferAttributes<OneRosterRunRow>, InferCreationAttributes<OneRosterRunRow>> {
  id: string;
  institution_id: string;
  connection_id: string;
  trigger: OneRosterRunTrigger;
  kind: OneRosterSyncKind;
  dry_run: boolean;
  outcome: OneRosterRunOutcome;
  counts: Record<string, unknown> | null;
  /** Why it was held back, or why it failed. */
  reason: string | null;
  started_at: Date;
  /** Written every SYNC_HEARTBEAT_MS while the sync works; a running run whose heartbeat stopped was cut short. */
  heartbeat_at: CreationOptional<Date | null>;
  finished_at: Date | null;
}

export function defineOneRosterConnection(sequelize: Sequelize) {
  return sequelize.define<OneRosterConnectionRow>(
    'OneRosterConnection',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      source: { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'rest' },
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
      gradebook_writeback: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'oneroster_connections' },
  );
}

export function defineOneRosterLink(sequelize: Sequelize) {
  return sequelize.define<OneRosterLinkRow>(
    'OneRosterLink',
    {
      connection_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      kind: { type: DataTypes.STRING(8), allowNull: false, primaryKey: true },
      sourced_id: { type: DataTypes.STRING(255), allowNull: false, primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      target_id: { type: DataTypes.STRING(40), allowNull: false },
      active: { type: DataTypes.BOOLEAN, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'oneroster_links', timestamps: false },
  );
}

export function defineOneRosterRun(sequelize: Sequelize) {
  return sequelize.define<OneRosterRunRow>(
    'OneRosterRun',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      connection_id: { type: DataTypes.STRING(40), allowNull: false },
      trigger: { type: DataTypes.STRING(16), allowNull: false },
      kind: { type: DataTypes.STRING(8), allowNull: false },
      dry_run: { type: DataTypes.BOOLEAN, allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      counts: { type: DataTypes.JSON, allowNull: true },
      reason: { type: DataTypes.STRING(1000), allowNull: true },
      started_at: { type: DataTypes.DATE, allowNull: false },
      heartbeat_at: { type: DataTypes.DATE, allowNull: true },
      finished_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'oneroster_runs', timestamps: false },
  );
}
