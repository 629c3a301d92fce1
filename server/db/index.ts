import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { FieldCrypto } from '../crypto/field-crypto.js';
import { FileMasterKeyStore, loadOrCreateMasterKey, masterKeyFile, type MasterKeyStore } from '../crypto/master-key.js';
import type { EventRow } from '../models/event.js';
import { defineModels, type Models } from '../models/index.js';
import { migrate } from './migrate.js';
import { openDatabase, settledWrites } from './sequelize.js';

export type CommittedEventListener = (event: EventRow) => void;

export interface Database {
  sequelize: Sequelize;
  models: Models;
  /** Encrypts sensitive columns and computes their blind indexes; keyed by the master key. */
  fieldCrypto: FieldCrypto;
  /** Called after the transaction that wrote an event commits (the webhook dispatcher listens). */
  committedEventListeners: Set<CommittedEventListener>;
  /** Called after a transaction that queued mail commits (the mailer listens). */
  mailQueuedListeners: Set<() => void>;
  close(): Promise<void>;
}

/**
 * Opens the SQLite file, applies pending migrations and defines the models. The master key
 * lives beside the database (a 0600 file) unless the caller supplies another store.
 */
export async function connectDatabase(
  databaseFile: string,
  masterKeyStore: MasterKeyStore = new FileMasterKeyStore(masterKeyFile(path.dirname(databaseFile))),
): Promise<Database & { migrationsApplied: string[] }> {
  const sequelize = await openDatabase(databaseFile);
  const migrationsApplied = await migrate(sequelize);
  return {
    sequelize,
    models: defineModels(sequelize),
    fieldCrypto: new FieldCrypto(loadOrCreateMasterKey(masterKeyStore)),
    committedEventListeners: new Set(),
    mailQueuedListeners: new Set(),
    migrationsApplied,
    close: async () => {
      await settledWrites(sequelize);
      await sequelize.close();
    },
  };
}
