import fs from 'node:fs';
import path from 'node:path';
import { Sequelize, Transaction } from 'sequelize';
import sqlite3 from 'sqlite3';

/**
 * Sequelize opens one SQLite connection per transaction. Each must wait for the write lock
 * instead of failing with SQLITE_BUSY, whether the other writer is this process or the CLI.
 */
class WaitingDatabase extends sqlite3.Database {
  constructor(filename: string, mode?: number, callback?: (err: Error | null) => void) {
    super(filename, mode ?? sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => {
      if (!err) this.configure('busyTimeout', 15_000);
      callback?.(err);
    });
  }
}

const dialectModule = { ...sqlite3, Database: WaitingDatabase };

export async function openDatabase(databaseFile: string): Promise<Sequelize> {
  fs.mkdirSync(path.dirname(databaseFile), { recursive: true });
  const sequelize = new Sequelize({
    dialect: 'sqlite',
    dialectModule,
    storage: databaseFile,
    logging: false,
    // BEGIN IMMEDIATE takes the write lock up front, so two writers queue instead of deadlocking
    // when both upgrade from a read lock.
    transactionType: Transaction.TYPES.IMMEDIATE,
    define: { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  await sequelize.query('PRAGMA journal_mode = WAL');
  await sequelize.query('PRAGMA synchronous = NORMAL');
  await sequelize.query('PRAGMA foreign_keys = ON');
  return sequelize;
}
