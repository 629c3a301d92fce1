import { setTimeout as sleep } from 'node:timers/promises';
import { Sequelize, Transaction } from 'sequelize';
import { AppError } from '../errors.js';

/**
 * PostgreSQL through Sequelize's own dialect (the `pg` driver). SQLite runs one write transaction
 * at a time, and the commands were written for that: read, decide, write. PostgreSQL runs them
 * side by side. An institution's writes (`Tenant.inTransaction`) take the institution's lock and
 * run at READ COMMITTED, one after another; every other top-level transaction is SERIALIZABLE
 * by default: the database guarantees the outcome of some one-at-a-time order, and when two
 * transactions could not have run one after the other, one fails with a serialization failure
 * (40001) or a deadlock (40P01) and is run again from the start. The same commands keep their
 * meaning on both databases (docs/scale-out.md#transactions-on-postgresql).
 */
/** How a server process names its connections; the CLI names its own differently, so it can tell a running appliance from itself. */
export const SERVER_APPLICATION_NAME = 'campusbridge';

export async function openPostgres(url: string, applicationName = SERVER_APPLICATION_NAME): Promise<Sequelize> {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: false,
    define: { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    isolationLevel: Transaction.ISOLATION_LEVELS.SERIALIZABLE,
    // Per process: several API processes and workers share the server's max_connections (100 by
    // default). At least one stays open, idle or not: how the CLI tells that an appliance runs.
    pool: { max: 10, min: 1, idle: 10_000, acquire: 30_000 },
    dialectOptions: { application_name: applicationName },
  });
  retrySerializationFailures(sequelize);
  await sequelize.authenticate();
  return sequelize;
}

/**
 * What SQLite's file lock tells the CLI: whether any CampusBridge server process has the database
 * open. Each keeps at least one connection named SERVER_APPLICATION_NAME; `conflict` when one does.
 */
export async function ensurePostgresNotInUse(url: string, doing: string): Promise<void> {
  // Loaded here, not at start: only the CLI on PostgreSQL asks (Sequelize loads pg itself for its dialect).
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, application_name: `${SERVER_APPLICATION_NAME}-cli` });
  await client.connect();
  try {
    const { rows } = await client.query<{ open: number }>(
      'SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [SERVER_APPLICATION_NAME],
    );
    const open = rows[0]?.open ?? 0;
    if (open > 0) {
      throw new AppError('conflict', `CampusBridge has this database open (${open} connections of running processes); stop every process, then ${doing}.`);
    }
  } finally {
    await client.end();
  }
}

export const isPostgres = (sequelize: Sequelize) => sequelize.getDialect() === 'postgres';

/**
 * Options for the webhook engine's transactions: READ COMMITTED on PostgreSQL. Its claims read the
 * whole due set, which every new delivery and every other worker's claim writes into, so as
 * serializable transactions they would keep failing each other. They need no more than row locks:
 * a claim's `UPDATE … WHERE status IN (due)` waits for another claim of the same row and then no
 * longer matches it, and recording locks the rows it changes (`FOR UPDATE`). SQLite ignores this.
 */
export const rowLockedTransaction = (sequelize: Sequelize) => (isPostgres(sequelize) ? { isolationLevel: Transaction.ISOLATION_LEVELS.READ_COMMITTED } : {});

/**
 * How many times a transaction is run before its serialization failure is let through (as a 500).
 * An institution's writes no longer conflict (they take turns on its lock); what remains are the
 * appliance-wide transactions, which rarely meet. Forty, with the backoff below, waits at most a
 * few seconds on a busy two-core machine.
 */
const MAX_RUNS = 40;
const RETRYABLE = new Set(['40001', '40P01']);
/**
 * A unique violation (23505) is retried a little: when the row that collided was inserted by a
 * transaction running beside this one, the next run reads it and takes the path the command has
 * for it (a replay, a 409 in words). A duplicate that was there all along fails the same way again.
 */
const UNIQUE_VIOLATION = '23505';
const MAX_RUNS_ON_UNIQUE_VIOLATION = 3;

/** The SQLSTATE of a failed query, wherever Sequelize keeps the driver's error. */
function sqlState(error: unknown): string | undefined {
  const err = error as { parent?: { code?: unknown }; original?: { code?: unknown }; code?: unknown } | null;
  const code = err?.parent?.code ?? err?.original?.code ?? err?.code;
  return typeof code === 'string' ? code : undefined;
}

export const isSerializationFailure = (error: unknown) => RETRYABLE.has(sqlState(error) ?? '');

/**
 * `sequelize.transaction(work)` runs `work` again, in a new transaction, when the database
 * refused to commit it as serializable. `work` must not have effects outside the database that a
 * second run would repeat; after-commit hooks are fine (a rolled-back run never fires them). A
 * savepoint (`{transaction: parent}`) is part of its parent and is never retried on its own.
 */
function retrySerializationFailures(sequelize: Sequelize): void {
  type Work = (t: Transaction) => Promise<unknown>;
  const original = sequelize.transaction.bind(sequelize) as (options: object, work?: Work) => Promise<unknown>;
  const retrying = async (optionsOrWork?: object | Work, maybeWork?: Work) => {
    const [options, work]: [object, Work | undefined] = typeof optionsOrWork === 'function' ? [{}, optionsOrWork as Work] : [optionsOrWork ?? {}, maybeWork];
    if (!work || (options as { transaction?: unknown }).transaction) return original(options, work);
    for (let run = 1; ; run += 1) {
      try {
        return await original(options, work);
      } catch (error) {
        const state = sqlState(error);
        const retryable = isSerializationFailure(error) ? run < MAX_RUNS : state === UNIQUE_VIOLATION && run < MAX_RUNS_ON_UNIQUE_VIOLATION;
        if (!retryable) throw error;
        // Jittered and growing, so the transactions that collided do not collide again in step.
        await sleep(Math.random() * Math.min(200, 5 * 2 ** run));
      }
    }
  };
  (sequelize as unknown as { transaction: typeof retrying }).transaction = retrying;
}
