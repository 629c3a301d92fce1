import fs from 'node:fs';
import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { FieldCrypto } from '../crypto/field-crypto.js';
import { FileMasterKeyStore, loadOrCreateMasterKey, masterKeyFile, type MasterKeyStore } from '../crypto/master-key.js';
import type { EventRow } from '../models/event.js';
import { defineModels, type Models } from '../models/index.js';
import { backupBeforeMigrating } from './backup.js';
import { closeDataVersion } from './data-version.js';
import { migrate } from './migrate.js';
import { openPostgres } from './postgres.js';
import { openDatabase, settledWrites } from './sequelize.js';

export type CommittedEventListener = (events: readonly EventRow[]) => void;

export interface Database {
  sequelize: Sequelize;
  models: Models;
  /** Encrypts sensitive columns and computes their blind indexes; keyed by the master key. */
  fieldCrypto: FieldCrypto;
  /** Called once after each transaction that wrote events commits, with its events (the webhook dispatcher listens). */
  committedEventListeners: Set<CommittedEventListener>;
  /** Called after a transaction that queued mail commits (the mailer listens). */
  mailQueuedListeners: Set<() => void>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Migrate only up to this migration (tests build older data folders this way). */
  migrateTo?: string;
}

export interface ConnectedDatabase extends Database {
  migrationsApplied: string[];
  /** The copy taken before those migrations ran, or null when none was needed. */
  preMigrationBackup: string | null;
}

/** A PostgreSQL database, with the folder its master key lives in (DATA_DIR). */
export interface PostgresLocation {
  postgresUrl: string;
  keyDir: string;
  /** The connections' application_name: the server's unless given (the CLI names its own). */
  applicationName?: string;
}

/** The SQLite file (the default), or a PostgreSQL database. */
export type DatabaseLocation = string | PostgresLocation;

/** Where the configuration says the database is. */
export const databaseLocation = (config: { databaseFile: string; databaseUrl: string | null; dataDir: string }): DatabaseLocation =>
  config.databaseUrl ? { postgresUrl: config.databaseUrl, keyDir: config.dataDir } : config.databaseFile;

const keyDirOf = (location: DatabaseLocation) => (typeof location === 'string' ? path.dirname(location) : location.keyDir);

/**
 * Opens the database (the SQLite file, or PostgreSQL), applies pending migrations and defines
 * the models. The master key lives beside the SQLite file, or in DATA_DIR with PostgreSQL (a
 * 0600 file), unless the caller supplies another store.
 *
 * An existing SQLite database with migrations applied is copied to backups/ (SQLite online
 * backup) before newer migrations run; when that copy fails nothing is migrated and this throws.
 * PostgreSQL is backed up with its own tools (docs/scale-out.md).
 */
export async function connectDatabase(
  location: DatabaseLocation,
  masterKeyStore: MasterKeyStore = new FileMasterKeyStore(masterKeyFile(keyDirOf(location))),
  options: ConnectOptions = {},
): Promise<ConnectedDatabase> {
  const databaseFile = typeof location === 'string' ? location : null;
  const existed = databaseFile !== null && fs.existsSync(databaseFile);
  // First, so a key that cannot be read (a keychain that is locked) stops the start before the
  // database is opened or migrated.
  const fieldCrypto = new FieldCrypto(loadOrCreateMasterKey(masterKeyStore));
  const sequelize =
    databaseFile !== null
      ? await openDatabase(databaseFile)
      : await openPostgres((location as PostgresLocation).postgresUrl, (location as PostgresLocation).applicationName);
  let preMigrationBackup: string | null = null;
  let migrationsApplied: string[];
  try {
    migrationsApplied = await migrate(sequelize, {
      fieldCrypto,
      to: options.migrateTo,
      beforeMigrating: async ({ executed, pending }) => {
        if (databaseFile !== null && existed && executed.length) preMigrationBackup = await backupBeforeMigrating(databaseFile, pending[0]!);
      },
    });
  } catch (error) {
    await sequelize.close();
    throw error;
  }
  return {
    sequelize,
    models: defineModels(sequelize),
    fieldCrypto,
    committedEventListeners: new Set(),
    mailQueuedListeners: new Set(),
    migrationsApplied,
    preMigrationBackup,
    close: async () => {
      await settledWrites(sequelize);
      await closeDataVersion(sequelize);
      await sequelize.close();
    },
  };
}
