import type { Sequelize } from 'sequelize';
import { defineModels, type Models } from '../models/index.js';
import type { EventRow } from '../models/event.js';
import { migrate } from './migrate.js';
import { openDatabase } from './sequelize.js';

export type CommittedEventListener = (event: EventRow) => void;

export interface Database {
  sequelize: Sequelize;
  models: Models;
  /** Called after the transaction that wrote an event commits (the webhook dispatcher listens). */
  committedEventListeners: Set<CommittedEventListener>;
  close(): Promise<void>;
}

/** Opens the SQLite file, applies pending migrations and defines the models. */
export async function connectDatabase(databaseFile: string): Promise<Database & { migrationsApplied: string[] }> {
  const sequelize = await openDatabase(databaseFile);
  const migrationsApplied = await migrate(sequelize);
  return {
    sequelize,
    models: defineModels(sequelize),
    committedEventListeners: new Set(),
    migrationsApplied,
    close: () => sequelize.close(),
  };
}
