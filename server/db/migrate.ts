import type { QueryInterface, Sequelize, Transaction } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { migrations } from './migrations/index.js';

export interface MigrationContext {
  queryInterface: QueryInterface;
  transaction: Transaction;
}

export interface Migration {
  name: string;
  up(context: MigrationContext): Promise<void>;
}

/** Applies pending migrations, each in its own transaction. Returns the names applied. */
export async function migrate(sequelize: Sequelize): Promise<string[]> {
  const umzug = new Umzug({
    migrations: migrations.map((migration) => ({
      name: migration.name,
      up: () =>
        sequelize.transaction((transaction) =>
          migration.up({ queryInterface: sequelize.getQueryInterface(), transaction }),
        ),
    })),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
  const applied = await umzug.up();
  return applied.map((migration) => migration.name);
}
