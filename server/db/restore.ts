import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { AppError } from '../errors.js';
import { backupFileName, backupsDir, type BackupSource } from './backup.js';
import { addUploadsToBackup, checkBackupFiles, extractBackupFiles, holdsFiles, type BackupFilesCheck, type BackupFilesSummary } from './backup-files.js';
import { migrations } from './migrations/index.js';
import { isReadOnlyFtsCheck, remakeSearchIndexIfStale } from './search-index.js';
import { allRows, closeSqlite, copyDatabase, errorMessage, lockExclusively, onlineCopy, openSqlite, sameFile } from './sqlite-file.js';

/**
 * Putting a backup in the database's place: at once (`cli restore`, the appliance stopped), or
 * staged as a pending restore that the next start applies before the database is opened (the
 * operator portal, while the appliance runs). Either way the file is verified first (the database,
 * and every uploaded file it holds against its checksum), and the replaced database and uploaded
 * files are kept as `backups/…-before-restore.sqlite`. A backup made before backups held files
 * restores the database alone and leaves DATA_DIR/uploads as it is.
 */

export interface RestoreResult {
  restored_from: string;
  /** The copy of the database that was replaced, or null when there was none. */
  previous_database: string | null;
  /** Migrations recorded in the restored database; newer ones are applied on the next start. */
  migrations: string[];
  /** The uploaded files put back, or null for a backup that holds none (DATA_DIR/uploads left as it was). */
  files: BackupFilesSummary | null;
}

/**
 * `cli restore <file>`: checks the file, refuses while anything has the database open, keeps a
 * copy of the current database, then puts the file in its place. Stale -wal/-shm files go too:
 * SQLite would otherwise replay the old database's log onto the restored one.
 */
export async function restoreDatabase(destination: BackupSource, candidate: string, at: Date = new Date()): Promise<RestoreResult> {
  const source = path.resolve(candidate);
  const target = path.resolve(destination.databaseFile);
  const uploads = path.resolve(destination.uploadsDir);
  if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) throw new AppError('not_found', `No file at ${source}.`);
  if (sameFile(source, target)) throw new AppError('validation_error', `${source} is the live database itself.`);
  const { migrations: recorded } = await verifyCampusBridgeDatabase(source);

  // Staged beside the targets so the final steps are renames on one file system.
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staged = `${target}.restoring`;
  const stagedUploads = `${uploads}.restoring`;
  const replacedUploads = `${uploads}.replaced`;
  fs.rmSync(stagedUploads, { recursive: true, force: true });
  await copyDatabase(source, staged, sqlite3.OPEN_READONLY);
  try {
    const files = await extractStagedFiles(staged, stagedUploads);
    let previous: string | null = null;
    if (fs.existsSync(target)) {
      fs.mkdirSync(backupsDir(target), { recursive: true });
      previous = path.join(backupsDir(target), backupFileName('before-restore', at));
      await keepCurrentDatabase(target, previous);
      // The files go into the kept copy too, so a restore can itself be undone whole.
      if (files) await addUploadsToBackup(previous, uploads);
    }
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${target}${suffix}`, { force: true });
    fs.renameSync(staged, target);
    if (files) {
      fs.rmSync(replacedUploads, { recursive: true, force: true });
      if (fs.existsSync(uploads)) fs.renameSync(uploads, replacedUploads);
      fs.renameSync(stagedUploads, uploads);
      fs.rmSync(replacedUploads, { recursive: true, force: true });
    }
    return { restored_from: source, previous_database: previous, migrations: recorded, files };
  } finally {
    fs.rmSync(staged, { force: true });
    fs.rmSync(stagedUploads, { recursive: true, force: true });
  }
}

/**
 * Writes a staged backup's files into `dir` and leaves the staged file the database alone; null
 * when it holds none. Its search index is checked on the way, and made again if damaged.
 */
async function extractStagedFiles(staged: string, dir: string): Promise<BackupFilesSummary | null> {
  const db = await openSqlite(staged, sqlite3.OPEN_READWRITE);
  try {
    await remakeSearchIndexIfStale(db);
    return (await holdsFiles(db)) ? await extractBackupFiles(db, dir) : null;
  } finally {
    await closeSqlite(db);
  }
}

/**
 * A CampusBridge backup: SQLite, intact (`PRAGMA integrity_check`), with the migrations table,
 * no migration this version does not know (a newer version's database would not work here), and
 * every uploaded file it holds whole and matching its checksum. Opened read-only; anything else is
 * a validation_error naming what is wrong. `cli backup --verify` prints the result.
 */
export async function verifyCampusBridgeDatabase(file: string): Promise<{ migrations: string[]; files: BackupFilesCheck | null }> {
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
    const problems = check.map((row) => row.integrity_check).filter((result) => result !== 'ok' && !isReadOnlyFtsCheck(result));
    if (problems.length) throw refuse(`is damaged: SQLite's integrity check reports "${problems[0]}"`);
    const tables = await allRows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
    if (!tables.length) throw refuse('is a SQLite database but not a CampusBridge one (it has no schema_migrations table)');
    const recorded = (await allRows<{ name: string }>(db, 'SELECT name FROM schema_migrations ORDER BY name')).map((row) => row.name);
    if (!recorded.length) throw refuse('is a CampusBridge database with no migrations applied');
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = recorded.filter((name) => !known.has(name));
    if (unknown.length) throw refuse(`was made by a newer CampusBridge (migration ${unknown[0]} is unknown to this version); install that version first`);
    const files = await checkBackupFiles(db);
    if (files?.problems.length) {
      const more = files.problems.length > 1 ? ` (and ${files.problems.length - 1} more)` : '';
      throw refuse(`holds uploaded files that are damaged: ${files.problems[0]}${more}`);
    }
    return { migrations: recorded, files };
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

// ---------------------------------------------------------------------------------------------
// Pending restore: chosen while the appliance runs, applied by the next start.
// ---------------------------------------------------------------------------------------------

export interface PendingRestore {
  /** What was chosen: a backup's file name, or the path given. */
  source: string;
  staged_at: string;
}

const pendingFile = (databaseFile: string) => `${path.resolve(databaseFile)}.pending-restore`;
const pendingNote = (databaseFile: string) => `${pendingFile(databaseFile)}.json`;

/**
 * Verifies `candidate` and copies it beside the database as the pending restore (replacing an
 * earlier choice). The running database is not touched; `applyPendingRestore` does the swap at
 * the next start, before the database is opened.
 */
export async function stageRestore(databaseFile: string, candidate: string, source: string, at: Date = new Date()): Promise<PendingRestore> {
  if (!fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) throw new AppError('not_found', `No file at ${candidate}.`);
  await verifyCampusBridgeDatabase(candidate);
  const pending: PendingRestore = { source, staged_at: at.toISOString() };
  // Each file is complete under a temporary name before its rename, so the pending database is
  // always a whole one; a crash between the two renames can only leave the note naming the earlier choice.
  await copyDatabase(candidate, pendingFile(databaseFile), sqlite3.OPEN_READONLY);
  const note = pendingNote(databaseFile);
  fs.writeFileSync(`${note}.partial`, `${JSON.stringify(pending)}\n`);
  fs.renameSync(`${note}.partial`, note);
  return pending;
}

/** The restore waiting for the next start, or null. */
export function readPendingRestore(databaseFile: string): PendingRestore | null {
  if (!fs.existsSync(pendingFile(databaseFile))) return null;
  try {
    return JSON.parse(fs.readFileSync(pendingNote(databaseFile), 'utf8')) as PendingRestore;
  } catch {
    return { source: path.basename(pendingFile(databaseFile)), staged_at: fs.statSync(pendingFile(databaseFile)).mtime.toISOString() };
  }
}

/** Forgets the pending restore; true when there was one. */
export function cancelPendingRestore(databaseFile: string): boolean {
  const existed = fs.existsSync(pendingFile(databaseFile));
  fs.rmSync(pendingFile(databaseFile), { force: true });
  fs.rmSync(pendingNote(databaseFile), { force: true });
  return existed;
}

export type AppliedRestore = (RestoreResult & { outcome: 'restored'; source: string }) | { outcome: 'rejected'; source: string; reason: string };

/**
 * At start, before the database is opened: puts the pending restore in place (keeping the
 * current database as a before-restore copy) and forgets it. A pending file that no longer
 * verifies is dropped and reported, and the start goes on with the current database. While
 * something else has the database open this throws `conflict` and the pending restore stays.
 */
export async function applyPendingRestore(destination: BackupSource, at: Date = new Date()): Promise<AppliedRestore | null> {
  const { databaseFile } = destination;
  const pending = readPendingRestore(databaseFile);
  if (!pending) return null;
  try {
    const result = await restoreDatabase(destination, pendingFile(databaseFile), at);
    cancelPendingRestore(databaseFile);
    return { ...result, outcome: 'restored', source: pending.source };
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation_error') {
      cancelPendingRestore(databaseFile);
      return { outcome: 'rejected', source: pending.source, reason: error.message };
    }
    throw error;
  }
}
