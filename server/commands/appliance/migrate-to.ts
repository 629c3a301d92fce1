import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import sqlite3 from 'sqlite3';
import { FileMasterKeyStore, masterKeyFile, type MasterKeyStore } from '../../crypto/master-key.js';
import { connectDatabase, type ConnectedDatabase } from '../../db/index.js';
import { SQLITE_SEARCH_TABLE_PREFIX } from '../../db/migrations/20261206000000-people-search.js';
import { openPostgres } from '../../db/postgres.js';
import { allRows, closeSqlite, ensureNotInUse, openSqlite } from '../../db/sqlite-file.js';
import { AppError } from '../../errors.js';

/** Rows per INSERT: a round trip per thousand rows, within PostgreSQL's 65,535 parameters. */
const BATCH_ROWS = 1_000;
const MAX_PARAMETERS = 60_000;
/** Filled by the target's own migrations (the same list), not copied. */
const MIGRATIONS_TABLE = 'schema_migrations';
/** Kept by triggers on `people`: the copied people count themselves on PostgreSQL (compared after). */
const TRIGGER_TABLES = new Set(['person_counts']);
/** SQLite's own index of people's search text (FTS5 and its shadow tables): PostgreSQL indexes the column itself. */
const isSqliteSearchTable = (name: string) => name === SQLITE_SEARCH_TABLE_PREFIX || name.startsWith(`${SQLITE_SEARCH_TABLE_PREFIX}_`);

export interface MigrateToSource {
  databaseFile: string;
  /** The desktop app's keychain; by default DATA_DIR/master.key. */
  masterKeyStore?: MasterKeyStore;
}

export interface MigrateToResult {
  /** Tables copied (every table but schema_migrations and person_counts, empty ones included). */
  tables: number;
  /** Rows copied, over all of them. */
  rows: number;
}

const SQLITE_TABLES = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`;

type Row = Record<string, unknown>;
interface Column {
  name: string;
  /** PostgreSQL's `data_type`: how a value SQLite stored is handed over. */
  type: string;
}

/**
 * `migrate-to <postgres url>` (docs/scale-out.md#moving-up-from-one-computer): copies the SQLite database into an empty
 * PostgreSQL database. The source is migrated to the latest schema first (keeping its usual
 * pre-migration copy in backups/), the target gets the same schema from the same migrations, and
 * every table's rows are copied in foreign-key order, in one transaction: a failure leaves the
 * target's tables empty (and a second run may use it). Values are copied as SQLite stores them,
 * so sealed fields stay sealed with DATA_DIR's master key; nothing is re-encrypted. Afterwards
 * the row counts of both sides are compared. The URL's password is never part of a message.
 */
export async function migrateTo(source: MigrateToSource, postgresUrl: string): Promise<MigrateToResult> {
  const target = describeUrl(postgresUrl);
  const { databaseFile } = source;
  if (!fs.existsSync(databaseFile)) throw new AppError('not_found', `No database at ${databaseFile}: nothing to copy.`);
  const keyStore = source.masterKeyStore ?? new FileMasterKeyStore(masterKeyFile(path.dirname(databaseFile)));
  if (!keyStore.load()) throw new AppError('conflict', `No master key beside ${databaseFile}: its sealed fields could not be read on PostgreSQL either.`);
  await ensureNotInUse(databaseFile, 'run migrate-to');
  // Both at the latest schema, from the same migrations: first the source, whose tables then say what an empty target may hold.
  await (await connectDatabase(databaseFile, keyStore)).close();
  await ensureEmpty(postgresUrl, target, await sqliteTableNames(databaseFile));
  const destination = await connectDatabase({ postgresUrl, keyDir: path.dirname(databaseFile) }, keyStore);
  // SQLite's write lock, held for the copy: the counts compared afterwards are those of the rows
  // copied, and an appliance started meanwhile waits (or fails) rather than write rows the copy misses.
  const reader = await openSqlite(databaseFile, sqlite3.OPEN_READWRITE).catch(async (error: unknown) => {
    await destination.close();
    throw error;
  });
  try {
    await allRows(reader, 'BEGIN IMMEDIATE');
    await sameMigrations(reader, destination.sequelize);
    const tables = await copyOrder(reader, destination.sequelize);
    let rows = 0;
    await destination.sequelize.transaction(async (transaction) => {
      rows = 0;
      for (const table of tables) rows += await copyTable(reader, destination.sequelize, transaction, table);
    });
    await verifyCounts(reader, destination, tables);
    await allRows(reader, 'ROLLBACK');
    return { tables: tables.length, rows };
  } finally {
    await closeSqlite(reader);
    await destination.close();
  }
}

/** `host:port/database`, for messages: never the user's password. */
function describeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('validation_error', 'The target must be a URL: postgres://user:password@host:5432/database.');
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new AppError('validation_error', `The target must be a postgres:// URL, not ${parsed.protocol}//….`);
  return `${parsed.host}${parsed.pathname}`;
}

/**
 * Empty means: no table at all, or only CampusBridge's tables with no row beyond the migrations
 * list (a database this command prepared before a copy that failed). Anything else is refused
 * with what was found, so nothing is ever copied over data.
 */
async function ensureEmpty(postgresUrl: string, target: string, known: Set<string>): Promise<void> {
  let sequelize: Sequelize;
  try {
    sequelize = await openPostgres(postgresUrl);
  } catch (error) {
    throw new AppError('conflict', `Cannot connect to ${target}: ${(error as Error).message}.`);
  }
  try {
    const tables = await publicTables(sequelize);
    const foreign = tables.filter((table) => !known.has(table));
    if (foreign.length)
      throw new AppError('conflict', `${target} is not empty: it has tables CampusBridge does not (${listed(foreign)}). Copy into a new, empty database.`);
    const filled: string[] = [];
    for (const table of tables) {
      if (table !== MIGRATIONS_TABLE && (await countRows(sequelize, table)) > 0) filled.push(table);
    }
    if (filled.length) throw new AppError('conflict', `${target} is not empty: ${listed(filled)} hold rows. Copy into a new, empty database.`);
  } finally {
    await sequelize.close();
  }
}

const listed = (names: string[]) => (names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', '));

async function sqliteTableNames(databaseFile: string): Promise<Set<string>> {
  const reader = await openSqlite(databaseFile, sqlite3.OPEN_READONLY);
  try {
    return new Set((await allRows<{ name: string }>(reader, SQLITE_TABLES)).map((row) => row.name));
  } finally {
    await closeSqlite(reader);
  }
}

async function publicTables(sequelize: Sequelize, transaction?: Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    { type: QueryTypes.SELECT, transaction },
  );
  return rows.map((row) => row.name);
}

async function countRows(sequelize: Sequelize, table: string, transaction?: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`, { type: QueryTypes.SELECT, transaction });
  return Number(row!.n);
}

async function sameMigrations(reader: sqlite3.Database, target: Sequelize): Promise<void> {
  const names = (rows: Array<{ name: string }>) => rows.map((row) => row.name).join(',');
  const here = names(await allRows(reader, `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`));
  const there = names(await target.query(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`, { type: QueryTypes.SELECT }));
  if (here !== there) throw new Error('the SQLite and PostgreSQL databases are not at the same migration');
}

interface Table {
  name: string;
  columns: Column[];
}

/** Every table to copy, parents before children, with the target's column types. */
async function copyOrder(reader: sqlite3.Database, target: Sequelize): Promise<Table[]> {
  const sourceTables = (await allRows<{ name: string }>(reader, SQLITE_TABLES))
    .map((row) => row.name)
    .filter((name) => name !== MIGRATIONS_TABLE && !TRIGGER_TABLES.has(name) && !isSqliteSearchTable(name));
  const targetTables = new Set(await publicTables(target));
  const columns = await target.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    { type: QueryTypes.SELECT },
  );
  const foreignKeys = await target.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid`,
    { type: QueryTypes.SELECT },
  );

  const tables: Table[] = [];
  for (const name of sourceTables.sort()) {
    if (!targetTables.has(name)) throw new Error(`table ${name} of the SQLite database is not in the PostgreSQL schema`);
    const targetColumns = columns.filter((column) => column.table_name === name).map((column) => ({ name: column.column_name, type: column.data_type }));
    const sourceColumns = (await allRows<{ name: string }>(reader, `PRAGMA table_info("${name}")`)).map((column) => column.name);
    if (
      [...sourceColumns].sort().join() !==
      targetColumns
        .map((column) => column.name)
        .sort()
        .join()
    ) {
      throw new Error(`table ${name} has other columns on PostgreSQL than on SQLite`);
    }
    tables.push({ name, columns: targetColumns });
  }

  const ordered: Table[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter(
      (table) =>
        !placed.has(table.name) && foreignKeys.every((fk) => fk.child !== table.name || placed.has(fk.parent) || !tables.some((t) => t.name === fk.parent)),
    );
    if (!ready.length) throw new Error('the foreign keys between tables form a cycle');
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
  }
  return ordered;
}

/** SQLite's stored value as PostgreSQL takes it: booleans were 0/1; dates and JSON are text PostgreSQL parses. */
function toTarget(value: unknown, column: Column): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'boolean' && typeof value === 'number') return value !== 0;
  if (column.type === 'bytea' && typeof value === 'string') return Buffer.from(value, 'utf8');
  return value;
}

/** Copies one table in batches, in rowid order; returns its row count. */
async function copyTable(reader: sqlite3.Database, target: Sequelize, transaction: Transaction, table: Table): Promise<number> {
  const names = table.columns.map((column) => `"${column.name}"`).join(', ');
  const batch = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / table.columns.length)));
  let copied = 0;
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const rows = await allRows<Row & { __rowid: number }>(
      reader,
      `SELECT rowid AS __rowid, ${names} FROM "${table.name}" WHERE rowid > ${after} ORDER BY rowid LIMIT ${batch}`,
    );
    if (!rows.length) return copied;
    const bind: unknown[] = [];
    const tuples = rows.map((row) => `(${table.columns.map((column) => `$${bind.push(toTarget(row[column.name], column))}`).join(', ')})`);
    await target.query(`INSERT INTO "${table.name}" (${names}) VALUES ${tuples.join(', ')}`, { bind, transaction, type: QueryTypes.INSERT });
    copied += rows.length;
    after = rows.at(-1)!.__rowid;
  }
}

/** Every table's row count on both sides, and the people counts the triggers kept; a difference names its table. */
async function verifyCounts(reader: sqlite3.Database, target: ConnectedDatabase, tables: Table[]): Promise<void> {
  for (const table of tables) {
    const [{ n }] = (await allRows<{ n: number }>(reader, `SELECT count(*) AS n FROM "${table.name}"`)) as [{ n: number }];
    const copied = await countRows(target.sequelize, table.name);
    if (copied !== n)
      throw new AppError(
        'conflict',
        `After the copy, ${table.name} has ${copied} rows on PostgreSQL and ${n} on SQLite; the PostgreSQL database is left as copied.`,
      );
  }
  const counts = (rows: Array<{ institution_id: string; role: string; status: string; total: number | string }>) =>
    rows
      .filter((row) => Number(row.total) !== 0)
      .map((row) => `${row.institution_id}/${row.role}/${row.status}=${Number(row.total)}`)
      .sort()
      .join(',');
  const sql = 'SELECT institution_id, role, status, total FROM person_counts';
  if (counts(await allRows(reader, sql)) !== counts(await target.sequelize.query(sql, { type: QueryTypes.SELECT }))) {
    throw new AppError('conflict', 'After the copy, person_counts differs between PostgreSQL and SQLite; the PostgreSQL database is left as copied.');
  }
}
