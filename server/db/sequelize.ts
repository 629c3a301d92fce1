import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes, Sequelize, Transaction, type QueryOptions } from 'sequelize';
import sqlite3 from 'sqlite3';

type Rows = Array<Record<string, unknown>>;
type RowsCallback = (err: Error | null, rows: Rows) => void;

/** The statement Sequelize's SQLite dialect runs for each table of a SELECT before running it. */
const TABLE_INFO = /^PRAGMA table_info\(`([^`]+)`\)$/;
/** Statements that may change a table's columns; one clears the remembered columns. */
const SCHEMA_CHANGE = /\b(CREATE|ALTER|DROP)\s+TABLE\b/i;

/**
 * Before every SELECT, Sequelize's SQLite dialect asks `PRAGMA table_info` of each table in it
 * (to parse dates and JSON by column type), each a round trip queued on the connection. The
 * answer only changes with the schema, which only this process's migrations change (they run
 * before the server listens, and the CLI runs the same ones), so one database's connections
 * remember it until a CREATE, ALTER or DROP TABLE goes through any of them.
 * See docs/decisions/authenticated-hot-path.md.
 */
function dialectModuleFor() {
  const columnsByTable = new Map<string, Rows>();

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

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's own signature
    override all(sql: string, ...params: any[]): this {
      const table = params.length === 1 && typeof params[0] === 'function' ? TABLE_INFO.exec(sql)?.[1] : undefined;
      if (table === undefined) {
        if (SCHEMA_CHANGE.test(sql)) columnsByTable.clear();
        return super.all(sql, ...params);
      }
      const callback = params[0] as RowsCallback;
      const known = columnsByTable.get(table);
      if (known) {
        process.nextTick(callback, null, known);
        return this;
      }
      return super.all(sql, (err: Error | null, rows: Rows) => {
        // A table that does not exist (yet) answers no rows: not remembered.
        if (!err && rows.length > 0) columnsByTable.set(table, rows);
        callback(err, rows);
      });
    }

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's own signature
    override run(sql: string, ...params: any[]): this {
      if (SCHEMA_CHANGE.test(sql)) columnsByTable.clear();
      return super.run(sql, ...params);
    }

    override exec(sql: string, callback?: (this: sqlite3.Statement, err: Error | null) => void): this {
      if (SCHEMA_CHANGE.test(sql)) columnsByTable.clear();
      return super.exec(sql, callback);
    }
  }

  return { ...sqlite3, Database: WaitingDatabase };
}

export async function openDatabase(databaseFile: string): Promise<Sequelize> {
  fs.mkdirSync(path.dirname(databaseFile), { recursive: true });
  const sequelize = new Sequelize({
    dialect: 'sqlite',
    dialectModule: dialectModuleFor(),
    storage: databaseFile,
    logging: false,
    // BEGIN IMMEDIATE takes the write lock up front, so two writers queue instead of deadlocking
    // when both upgrade from a read lock.
    transactionType: Transaction.TYPES.IMMEDIATE,
    define: { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  });
  queueWriteTransactions(sequelize);
  reuseTransactionConnection(sequelize);
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

/**
 * The transaction each database's work runs in, for this async context. One store for the whole
 * process, not one per database: Node calls every AsyncLocalStorage that was ever used on every
 * promise made, so a store per opened database (a backup check, a restore, each suite of a test
 * worker) would make every later promise slower, for as long as the process lives.
 */
const insideTransaction = new AsyncLocalStorage<ReadonlyMap<Sequelize, { current?: Transaction }>>();

/** Resolves when every write transaction queued so far has finished (used before closing). */
export function settledWrites(sequelize: Sequelize): Promise<unknown> {
  return writeQueueTails.get(sequelize)?.() ?? Promise.resolve();
}

function queueWriteTransactions(sequelize: Sequelize): void {
  const original = sequelize.transaction.bind(sequelize) as (options: object, work?: (t: Transaction) => Promise<unknown>) => Promise<unknown>;
  // The transaction this async context runs in; after-commit hooks see it finished and may queue more.
  const enclosingTransaction = () => insideTransaction.getStore()?.get(sequelize);
  let tail: Promise<unknown> = Promise.resolve();

  type Work = (t: Transaction) => Promise<unknown>;
  const queued = (optionsOrWork?: object | Work, maybeWork?: Work) => {
    const [options, work]: [object, Work | undefined] = typeof optionsOrWork === 'function' ? [{}, optionsOrWork as Work] : [optionsOrWork ?? {}, maybeWork];
    if (!work || (options as { transaction?: unknown }).transaction) return original(options, work);
    const enclosing = enclosingTransaction();
    if (enclosing && !(enclosing.current as { finished?: string } | undefined)?.finished) {
      return Promise.reject(new Error('a new transaction was started inside another one; pass the open transaction instead'));
    }
    const holder: { current?: Transaction } = {};
    const run = tail.then(() =>
      insideTransaction.run(new Map(insideTransaction.getStore()).set(sequelize, holder), () =>
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

  // A write outside a transaction (`Model.update(…)` with no `transaction`) would run on the
  // connection the reads share and wait for the lock there, holding that connection's mutex: reads
  // queued behind it fill the thread pool, and the transaction holding the lock cannot run its next
  // statement until the wait times out (15 s). So such a write joins the queue, as a transaction of
  // its own. Inside an open transaction it is a missing `transaction` option: it fails at once.
  const query = sequelize.query.bind(sequelize) as (sql: unknown, options?: QueryOptions) => Promise<unknown>;
  const queuedQuery = (sql: unknown, options?: QueryOptions) => {
    if (options?.transaction || !isWrite(sql, options)) return query(sql, options);
    const enclosing = enclosingTransaction();
    if (enclosing && !(enclosing.current as { finished?: string } | undefined)?.finished) {
      return Promise.reject(new Error('a write outside the open transaction; pass the transaction'));
    }
    return queued((transaction) => query(sql, { ...options, transaction }));
  };
  (sequelize as unknown as { query: typeof queuedQuery }).query = queuedQuery;
  writeQueueTails.set(sequelize, async () => {
    // Work queued by after-commit hooks extends the tail while we wait.
    for (let seen = tail; ; seen = tail) {
      await seen;
      if (seen === tail) return;
    }
  });
}

/** The query types Sequelize gives its own writes; a raw statement is judged by its first word. */
const WRITE_TYPES = new Set<string>([QueryTypes.INSERT, QueryTypes.UPDATE, QueryTypes.BULKUPDATE, QueryTypes.DELETE, QueryTypes.BULKDELETE, QueryTypes.UPSERT]);
const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|ALTER|DROP)\b/i;

function isWrite(sql: unknown, options: QueryOptions | undefined): boolean {
  if (options?.type && WRITE_TYPES.has(options.type)) return true;
  const text = typeof sql === 'string' ? sql : (sql as { query?: unknown } | null)?.query;
  return typeof text === 'string' && WRITE_STATEMENT.test(text);
}

interface SqliteConnectionManager {
  connections: Record<string, sqlite3.Database>;
  getConnection(options?: { uuid?: string }): Promise<sqlite3.Database>;
  releaseConnection(connection: sqlite3.Database, force?: boolean): void;
  destroyConnection(connection: sqlite3.Database): Promise<void>;
}

/** The key of the one connection every top-level transaction of this process runs on. */
const TRANSACTIONS = 'transactions';

/**
 * Sequelize's SQLite dialect opens a new connection for each transaction and closes it after:
 * opening the file and reading its schema again cost about 1 ms a transaction, more than a small
 * transaction itself. This process's top-level transactions already run one at a time (the write
 * queue above), so they share one connection, kept open; savepoints ride on their parent's as
 * before. A connection Sequelize gives up on (a failed COMMIT or ROLLBACK) is closed and the next
 * transaction opens a fresh one. See docs/decisions/webhook-throughput.md.
 */
function reuseTransactionConnection(sequelize: Sequelize): void {
  const manager = sequelize.connectionManager as unknown as SqliteConnectionManager;
  const getConnection = manager.getConnection.bind(manager);
  const releaseConnection = manager.releaseConnection.bind(manager);
  const destroyConnection = manager.destroyConnection.bind(manager);
  const isShared = (connection: sqlite3.Database) => manager.connections[TRANSACTIONS] === connection;
  manager.getConnection = (options = {}) =>
    getConnection(options.uuid !== undefined && options.uuid !== 'default' ? { ...options, uuid: TRANSACTIONS } : options);
  manager.releaseConnection = (connection, force) => {
    if (!isShared(connection)) releaseConnection(connection, force);
  };
  // Sequelize closes its connections all at once, so none is the last to close and SQLite's
  // closing checkpoint can be skipped, leaving the WAL to be folded into the file by the next
  // start. The shared connection closes first; the last one then checkpoints as before.
  const close = sequelize.close.bind(sequelize);
  sequelize.close = async () => {
    const shared = manager.connections[TRANSACTIONS];
    if (shared) {
      delete manager.connections[TRANSACTIONS];
      await new Promise<void>((resolve) => shared.close(() => resolve()));
    }
    return close();
  };
  manager.destroyConnection = async (connection) => {
    if (!isShared(connection)) return destroyConnection(connection);
    delete manager.connections[TRANSACTIONS];
    await new Promise<void>((resolve) => connection.close(() => resolve()));
  };
}
