import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { AppError } from '../errors.js';

/**
 * SQLite files handled as files, beside Sequelize: online copies, the exclusive lock that proves
 * nothing else has a database open, and the small promise wrappers both need (db/backup.ts,
 * db/restore.ts).
 */

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
const BUSY_RETRIES = 20;

export const isBusy = (error: unknown) => BUSY_CODES.has((error as { code?: string }).code ?? '');

export function openSqlite(file: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db: sqlite3.Database = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

export function closeSqlite(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

export function allRows<T = unknown>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all<T>(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
}

export function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  const [sa, sb] = [fs.statSync(a, { throwIfNoEntry: false }), fs.statSync(b, { throwIfNoEntry: false })];
  return !!sa && !!sb && sa.dev === sb.dev && sa.ino === sb.ino;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Opens the database holding SQLite's exclusive lock until closed. In WAL mode every open
 * connection (the appliance, a running CLI command) keeps a shared lock on the database file,
 * so getting the exclusive lock at once proves nothing else has the database open. `doing`
 * finishes the conflict message: "…, then <doing> again".
 */
export async function lockExclusively(databaseFile: string, doing = 'restore'): Promise<sqlite3.Database> {
  const db = await openSqlite(databaseFile, sqlite3.OPEN_READWRITE);
  try {
    await allRows(db, 'PRAGMA locking_mode = EXCLUSIVE');
    await allRows(db, 'BEGIN EXCLUSIVE');
    await allRows(db, 'COMMIT');
    return db;
  } catch (error) {
    await closeSqlite(db);
    if (isBusy(error)) {
      throw new AppError(
        'conflict',
        `CampusBridge has ${databaseFile} open: quit it (tray icon → Quit, or stop npm start) and any running cli command, then ${doing} again.`,
      );
    }
    throw error;
  }
}

/** Refuses (conflict) while anything has the database open; a missing database is not in use. */
export async function ensureNotInUse(databaseFile: string, doing: string): Promise<void> {
  if (!fs.existsSync(databaseFile)) return;
  await closeSqlite(await lockExclusively(databaseFile, doing));
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
export async function onlineCopy(source: sqlite3.Database, destination: string): Promise<void> {
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
          if (!isBusy(error) || attempt >= BUSY_RETRIES) throw error;
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
