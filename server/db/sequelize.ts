import { AsyncLocalStorage } from 'node:async_hooks';
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
  queueWriteTransactions(sequelize);
  await sequelize.query('PRAGMA journal_mode = WAL');
  await sequelize.query('PRAGMA synchronous = NORMAL');
  await sequelize.query('PRAGMA foreign_keys = ON');
  return sequelize;
}

/**
 * This process's write transactions run one at a time, queued in JavaScript. SQLite has one
 * writer anyway, but a `BEGIN IMMEDIATE` waiting for the lock sleeps (busy timeout) inside a
 * libuv thread-pool thread: with more waiting writers than pool threads (4), the transaction
 * holding the lock could not run its next statement until a wait timed out. Other processes
 * (the CLI) still wait through the busy timeout. Savepoints (`{ transaction: parent }`) join
 * their parent. Starting a new top-level transaction from inside one would wait for itself,
 * so it fails at once instead: pass the transaction down.
 */
const writeQueueTails = new WeakMap<Sequelize, () => Promise<unknown>>();

/** Resolves when every write transaction queued so far has finished (used before closing). */
export function settledWrites(sequelize: Sequelize): Promise<unknown> {
  return writeQueueTails.get(sequelize)?.() ?? Promise.resolve();
}

function queueWriteTransactions(sequelize: Sequelize): void {
  const original = sequelize.transaction.bind(sequelize) as (options: object, work?: (t: Transaction) => Promise<unknown>) => Promise<unknown>;
  // The transaction this async context runs in; after-commit hooks see it finished and may queue more.
  const inside = new AsyncLocalStorage<{ current?: Transaction }>();
  let tail: Promise<unknown> = Promise.resolve();

  type Work = (t: Transaction) => Promise<unknown>;
  const queued = (optionsOrWork?: object | Work, maybeWork?: Work) => {
    const [options, work]: [object, Work | undefined] = typeof optionsOrWork === 'function' ? [{}, optionsOrWork as Work] : [optionsOrWork ?? {}, maybeWork];
    if (!work || (options as { transaction?: unknown }).transaction) return original(options, work);
    const enclosing = inside.getStore();
    if (enclosing && !(enclosing.current as { finished?: string } | undefined)?.finished) {
      return Promise.reject(new Error('a new transaction was started inside another one; pass the open transaction instead'));
    }
    const holder: { current?: Transaction } = {};
    const run = tail.then(() =>
      inside.run(holder, () =>
        original(options, (transaction) => {
          holder.current = transaction;
          return work(transaction);
        }),
      ),
    );
    tail = run.catch(() => undefined);
    return run;
  };
  (sequelize as unknown as { transaction: typeof queued }).transaction = queued;
  writeQueueTails.set(sequelize, async () => {
    // Work queued by after-commit hooks extends the tail while we wait.
    for (let seen = tail; ; seen = tail) {
      await seen;
      if (seen === tail) return;
    }
  });
}
