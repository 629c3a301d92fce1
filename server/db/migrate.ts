import type { QueryInterface, Sequelize, Transaction } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import type { FieldCrypto } from '../crypto/field-crypto.js';
import { migrations } from './migrations/index.js';

export interface MigrationContext {
  queryInterface: QueryInterface;
  transaction: Transaction;
  /** The master key's field encryption, for migrations that seal data written in clear before. */
  fieldCrypto: FieldCrypto;
}

export interface Migration {
  name: string;
  up(context: MigrationContext): Promise<void>;
}

export interface MigrationState {
  /** Names already applied, oldest first. */
  executed: string[];
  /** Names about to be applied, oldest first (never empty when passed to `beforeMigrating`). */
  pending: string[];
}

export interface MigrateOptions {
  fieldCrypto: FieldCrypto;
  /** Apply migrations up to and including this one only (tests build older databases this way). */
  to?: string;
  /** Runs before the first pending migration, only when there is one; throwing stops the upgrade. */
  beforeMigrating?: (state: MigrationState) => Promise<void>;
}

/** Applies pending migrations, each in its own transaction. Returns the names applied. */
export async function migrate(sequelize: Sequelize, options: MigrateOptions): Promise<string[]> {
  const umzug = new Umzug({
    migrations: migrations.map((migration) => ({
      name: migration.name,
      up: () =>
        sequelize.transaction((transaction) => migration.up({ queryInterface: sequelize.getQueryInterface(), transaction, fieldCrypto: options.fieldCrypto })),
    })),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  if (options.beforeMigrating) {
    const pending = (await umzug.pending()).map((migration) => migration.name);
    const upTo = options.to === undefined ? pending.length : pending.indexOf(options.to) + 1;
    if (upTo > 0) {
      const executed = (await umzug.executed()).map((migration) => migration.name);
      await options.beforeMigrating({ executed, pending: pending.slice(0, upTo) });
    }
  }
  const applied = await umzug.up(options.to === undefined ? {} : { to: options.to });
  return applied.map((migration) => migration.name);
}
