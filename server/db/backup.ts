import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { AppError } from '../errors.js';
import { migrations } from './migrations/index.js';

/**
 * Copies of the SQLite database, made with SQLite's online backup API: the copy is one
 * consistent snapshot even while the appliance writes (WAL mode), which a file copy is not.
 * Backups live in `backups/` beside the database file (DATA_DIR/backups by default), named
 * `campusbridge-<UTC time>-<reason>.sqlite`. They never contain master.key.
 */

/** Automatic pre-migration copies kept; older ones of that kind are deleted, nothing else is. */
export const PRE_MIGRATION_BACKUPS_KEPT = 3;

export type BackupReason = 'manual' | 'before-restore' | `before-${string}`;

const PRE_MIGRATION_NAME = /^campusbridge-\d{8}T\d{6}\.\d{3}Z-before-\d{14}-.+\.sqlite$/;
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
const BUSY_RETRIES = 20;

export function backupsDir(databaseFile: string): string {
  return path.join(path.dirname(path.resolve(databaseFile)), 'backups');
}

/** `campusbridge-20261121T101500.123Z-manual.sqlite`: names sort in the order they were taken. */
export function backupFileName(reason: BackupReason, at: Date = new Date()): string {
  return `campusbridge-${at.toISOString().replace(/[-:]/g, '')}-${reason}.sqlite`;
}

export class BackupFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackupFailedError';
  }
}

/**
 * The copy taken before pending migrations run on an existing database; then only the newest
 * PRE_MIGRATION_BACKUPS_KEPT of these remain. Any failure is a BackupFailedError: the caller
 * must not migrate without the copy.
 */
export async function backupBeforeMigrating(databaseFile: string, firstPending: string, at: Date = new Date()): Promise<string> {
  const dir = backupsDir(databaseFile);
  let file: string;
  try {
    fs.mkdirSync(dir, { recursive: true });
    file = path.join(dir, backupFileName(`before-${firstPending}`, at));
    await copyDatabase(databaseFile, file);
  } catch (error) {
    throw new BackupFailedError(
      `The database was not upgraded: the backup CampusBridge takes before migrating (into ${dir}) failed: ` +
        `${error instanceof Error ? error.message : String(error)}. The database is unchanged; fix the cause ` +
        '(disk space, permissions of the backups folder) and start again.',
      { cause: error },
    );
  }
  prunePreMigrationBackups(dir);
  return file;
}

/** Deletes all but the newest pre-migration copies; manual and before-restore copies are never touched. */
export function prunePreMigrationBackups(dir: string, keep: number = PRE_MIGRATION_BACKUPS_KEPT): string[] {
  const automatic = fs
    .readdirSync(dir)
    .filter((name) => PRE_MIGRATION_NAME.test(name))
    .sort();
  const removed = automatic.slice(0, Math.max(0, automatic.length - keep));
  for (const name of removed) {
    // An old copy that cannot be deleted only costs disk space; it must not stop the start.
    try {
      fs.rmSync(path.join(dir, name), { force: true });
    } catch {
      /* kept */
    }
  }
  return removed;
}

/**
 * `cli backup`: a copy into DATA_DIR/backups, or to `out` (a file, replaced atomically when it
 * exists, or a folder to put the usual name in). Works while the appliance runs.
 */
export async function backupNow(databaseFile: string, out?: string, at: Date = new Date()): Promise<string> {
  if (!fs.existsSync(databaseFile)) throw new AppError('not_found', `No database at ${databaseFile}: nothing to back up.`);
  let file: string;
  if (out === undefined) {
    fs.mkdirSync(backupsDir(databaseFile), { recursive: true });
    file = path.join(backupsDir(databaseFile), backupFileName('manual', at));
  } else {
    file = path.resolve(out);
    if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, backupFileName('manual', at));
    if (!fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) {
      throw new AppError('not_found', `No folder ${path.dirname(file)} to write the backup into.`);
    }
    if (sameFile(file, databaseFile)) throw new AppError('validation_error', '--out names the live database itself; choose another file.');
  }
  await copyDatabase(databaseFile, file);
  return file;
}

export interface RestoreResult {
  restored_from: string;
  /** The copy of the database that was replaced, or null when there was none. */
  previous_database: string | null;
  /** Migrations recorded in the restored database; newer ones are applied on the next start. */
  migrations: string[];
}

/**
 * `cli restore <file>`: checks the file, refuses while anything has the database open, keeps a
 * copy of the current database, then puts the file in its place. Stale -wal/-shm files go too:
 * SQLite would otherwise replay the old database's log onto the restored one.
 */
export async function restoreDatabase(databaseFile: string, candidate: string, at: Date = new Date()): Promise<RestoreResult> {
  const source = path.resolve(candidate);
  const target = path.resolve(databaseFile);
  if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) throw new AppError('not_found', `No file at ${source}.`);
  if (sameFile(source, target)) throw new AppError('validation_error', `${source} is the live database itself.`);
  const { migrations: recorded } = await verifyCampusBridgeDatabase(source);

  // Staged beside the target so the final step is a rename on one file system.
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staged = `${target}.restoring`;
  await copyDatabase(source, staged, sqlite3.OPEN_READONLY);
  try {
    let previous: string | null = null;
    if (fs.existsSync(target)) {
      fs.mkdirSync(backupsDir(target), { recursive: true });
      previous = path.join(backupsDir(target), backupFileName('before-restore', at));
      await keepCurrentDatabase(target, previous);
    }
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${target}${suffix}`, { force: true });
    fs.renameSync(staged, target);
    return { restored_from: source, previous_database: previous, migrations: recorded };
  } finally {
    fs.rmSync(staged, { force: true });
  }
}

/**
 * A CampusBridge database: SQLite, intact (`PRAGMA integrity_check`), with the migrations table,
 * and no migration this version does not know (a newer version's database would not work here).
 * Opened read-only; anything else is a validation_error naming what is wrong.
 */
export async function verifyCampusBridgeDatabase(file: string): Promise<{ migrations: string[] }> {
  const refuse = (why: string) => new AppError('validation_error', `${file} ${why}; nothing was restored.`);
  let db: sqlite3.Database;
  try {
    db = await openSqlite(file, sqlite3.OPEN_READONLY);
  } catch (error) {
    throw refuse(`cannot be opened (${errorMessage(error)})`);
  }
  try {
    let check: Array<{ integrity_check: string }>;
    try {
      check = await allRows<{ integrity_check: string }>(db, 'PRAGMA integrity_check');
    } catch (error) {
      throw (error as { code?: string }).code === 'SQLITE_NOTADB'
        ? refuse('is not a SQLite database')
        : refuse(`cannot be read as a SQLite database (${errorMessage(error)})`);
    }
    const problems = check.map((row) => row.integrity_check).filter((result) => result !== 'ok');
    if (problems.length) throw refuse(`is damaged: SQLite's integrity check reports "${problems[0]}"`);
    const tables = await allRows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
    if (!tables.length) throw refuse('is a SQLite database but not a CampusBridge one (it has no schema_migrations table)');
    const recorded = (await allRows<{ name: string }>(db, 'SELECT name FROM schema_migrations ORDER BY name')).map((row) => row.name);
    if (!recorded.length) throw refuse('is a CampusBridge database with no migrations applied');
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = recorded.filter((name) => !known.has(name));
    if (unknown.length) throw refuse(`was made by a newer CampusBridge (migration ${unknown[0]} is unknown to this version); install that version first`);
    return { migrations: recorded };
  } finally {
    await closeSqlite(db);
  }
}

/**
 * The online copy, taken under the exclusive lock. A database too damaged for SQLite to lock
 * (restore is how one gets out of that) is kept byte for byte instead, with its -wal beside it.
 */
async function keepCurrentDatabase(target: string, copy: string): Promise<void> {
  let live: sqlite3.Database;
  try {
    live = await lockExclusively(target);
  } catch (error) {
    if (error instanceof AppError) throw error;
    fs.copyFileSync(target, copy);
    if (fs.existsSync(`${target}-wal`)) fs.copyFileSync(`${target}-wal`, `${copy}-wal`);
    return;
  }
  try {
    await onlineCopy(live, copy);
  } finally {
    await closeSqlite(live);
  }
}

/**
 * Opens the database holding SQLite's exclusive lock until closed. In WAL mode every open
 * connection (the appliance, a running CLI command) keeps a shared lock on the database file,
 * so getting the exclusive lock at once proves nothing else has the database open.
 */
async function lockExclusively(databaseFile: string): Promise<sqlite3.Database> {
  const db = await openSqlite(databaseFile, sqlite3.OPEN_READWRITE);
  try {
    await allRows(db, 'PRAGMA locking_mode = EXCLUSIVE');
    await allRows(db, 'BEGIN EXCLUSIVE');
    await allRows(db, 'COMMIT');
    return db;
  } catch (error) {
    await closeSqlite(db);
    if (BUSY_CODES.has((error as { code?: string }).code ?? '')) {
      throw new AppError(
        'conflict',
        `CampusBridge has ${databaseFile} open: quit it (tray icon → Quit, or stop npm start) and any running cli command, then restore again.`,
      );
    }
    throw error;
  }
}

/** An online backup of `databaseFile` into `destination`, through a connection of its own. */
export async function copyDatabase(databaseFile: string, destination: string, mode: number = sqlite3.OPEN_READWRITE): Promise<void> {
  const source = await openSqlite(databaseFile, mode);
  try {
    await onlineCopy(source, destination);
  } finally {
    await closeSqlite(source);
  }
}

/** The sqlite3 package has Database#backup but its type definitions do not. */
interface SqliteBackup {
  readonly completed: boolean;
  readonly failed: boolean;
  step(pages: number, callback: (error: Error | null) => void): SqliteBackup;
  finish(callback: (error: Error | null) => void): void;
}
type BackupCapable = sqlite3.Database & { backup(filename: string, callback: (error: Error | null) => void): SqliteBackup };

/**
 * Copies every page in one step, so the copy is a single snapshot. It is written under a
 * temporary name and renamed when complete: a copy cut off midway never looks like a backup.
 */
async function onlineCopy(source: sqlite3.Database, destination: string): Promise<void> {
  const partial = `${destination}.partial`;
  const removePartial = () => {
    for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${partial}${suffix}`, { force: true });
  };
  removePartial();
  try {
    const backup = await new Promise<SqliteBackup>((resolve, reject) => {
      const started: SqliteBackup = (source as BackupCapable).backup(partial, (error) => (error ? reject(error) : resolve(started)));
    });
    try {
      for (let attempt = 0; !backup.completed; attempt += 1) {
        try {
          await new Promise<void>((resolve, reject) => backup.step(-1, (error) => (error ? reject(error) : resolve())));
        } catch (error) {
          if (!BUSY_CODES.has((error as { code?: string }).code ?? '') || attempt >= BUSY_RETRIES) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
        }
        if (backup.failed) throw new Error('SQLite abandoned the backup');
      }
    } finally {
      await new Promise<void>((resolve) => backup.finish(() => resolve()));
    }
    // The pages carry the source's WAL flag; a backup is better as one self-contained file.
    const copy = await openSqlite(partial, sqlite3.OPEN_READWRITE);
    try {
      await allRows(copy, 'PRAGMA journal_mode = DELETE');
    } finally {
      await closeSqlite(copy);
    }
    fs.renameSync(partial, destination);
  } catch (error) {
    removePartial();
    throw error;
  }
}

function openSqlite(file: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db: sqlite3.Database = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

function closeSqlite(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

function allRows<T = unknown>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all<T>(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
}

function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  const [sa, sb] = [fs.statSync(a, { throwIfNoEntry: false }), fs.statSync(b, { throwIfNoEntry: false })];
  return !!sa && !!sb && sa.dev === sb.dev && sa.ino === sb.ino;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
