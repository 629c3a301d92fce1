import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';
import { addUploadsToBackup, type BackupFilesSummary } from './backup-files.js';
import { copyDatabase, sameFile } from './sqlite-file.js';

/**
 * Backups: one SQLite file holding the database, copied with SQLite's online backup API (one
 * consistent snapshot even while the appliance writes, which a file copy is not), and every
 * uploaded file of DATA_DIR/uploads with its checksum (db/backup-files.ts). Backups live in
 * `backups/` beside the database file (DATA_DIR/backups by default), named
 * `campusbridge-<UTC time>-<reason>.sqlite`. They never contain master.key: the recovery kit
 * carries that (docs/install.md#backups).
 */

/** What a backup is made from: the live database and the uploads folder. */
export interface BackupSource {
  databaseFile: string;
  /** DATA_DIR/uploads. */
  uploadsDir: string;
}

/** A backup just made: its file, and the uploaded files it holds. */
export type BackupMade = { file: string } & BackupFilesSummary;

/** Automatic pre-migration copies kept; older ones of that kind are deleted, nothing else is. */
export const PRE_MIGRATION_BACKUPS_KEPT = 3;
/** Copies of the daily-backup job kept (a week); older daily copies are deleted, nothing else is. */
export const DAILY_BACKUPS_KEPT = 7;

export type BackupReason = 'manual' | 'daily' | 'before-restore' | `before-${string}`;

const PRE_MIGRATION_NAME = /^campusbridge-\d{8}T\d{6}\.\d{3}Z-before-\d{14}-.+\.sqlite$/;
const DAILY_NAME = /^campusbridge-\d{8}T\d{6}\.\d{3}Z-daily\.sqlite$/;

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

/** Deletes all but the newest pre-migration copies; manual, daily and before-restore copies are never touched. */
export function prunePreMigrationBackups(dir: string, keep: number = PRE_MIGRATION_BACKUPS_KEPT): string[] {
  return pruneKind(dir, PRE_MIGRATION_NAME, keep);
}

/** Deletes all but the newest daily copies; every other kind is left alone. */
export function pruneDailyBackups(dir: string, keep: number = DAILY_BACKUPS_KEPT): string[] {
  return pruneKind(dir, DAILY_NAME, keep);
}

function pruneKind(dir: string, kind: RegExp, keep: number): string[] {
  const automatic = fs
    .readdirSync(dir)
    .filter((name) => kind.test(name))
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
 * `cli backup` and the portal's "Back up now": the database and the uploaded files into
 * DATA_DIR/backups, or to `out` (a file, replaced atomically when it exists, or a folder to put
 * the usual name in). Works while the appliance runs. The file appears under its name only once
 * whole. (The copy taken before migrating holds the database alone: a migration changes no file.)
 */
export async function backupNow(source: BackupSource, out?: string, at: Date = new Date(), reason: 'manual' | 'daily' = 'manual'): Promise<BackupMade> {
  const { databaseFile } = source;
  if (!fs.existsSync(databaseFile)) throw new AppError('not_found', `No database at ${databaseFile}: nothing to back up.`);
  let file: string;
  if (out === undefined) {
    fs.mkdirSync(backupsDir(databaseFile), { recursive: true });
    file = path.join(backupsDir(databaseFile), backupFileName(reason, at));
  } else {
    file = path.resolve(out);
    if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, backupFileName(reason, at));
    if (!fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) {
      throw new AppError('not_found', `No folder ${path.dirname(file)} to write the backup into.`);
    }
    if (sameFile(file, databaseFile)) throw new AppError('validation_error', '--out names the live database itself; choose another file.');
  }
  const making = `${file}.making`;
  try {
    await copyDatabase(databaseFile, making);
    const files = await addUploadsToBackup(making, source.uploadsDir);
    fs.renameSync(making, file);
    return { file, ...files };
  } finally {
    fs.rmSync(making, { force: true });
  }
}

/** The daily-backup job's copy: into DATA_DIR/backups, then only the newest DAILY_BACKUPS_KEPT daily copies remain. */
export async function dailyBackup(source: BackupSource, at: Date = new Date()): Promise<BackupMade & { removed: string[] }> {
  const made = await backupNow(source, undefined, at, 'daily');
  return { ...made, removed: pruneDailyBackups(backupsDir(source.databaseFile)) };
}

export type BackupKind = 'manual' | 'daily' | 'before-migration' | 'before-restore' | 'other';

export interface BackupFile {
  name: string;
  file: string;
  created_at: Date;
  size_bytes: number;
  reason: BackupKind;
}

/** A file name the backups folder may hold: no folders, no hidden or temporary files. */
export const BACKUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.sqlite$/;
const NAME_PARTS = /^campusbridge-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z-(.+)\.sqlite$/;

/**
 * Every copy in DATA_DIR/backups, newest first: the ones CampusBridge made (time and reason from
 * the name) and any `.sqlite` file put there by hand (its modification time, reason `other`).
 */
export function listBackups(databaseFile: string): BackupFile[] {
  const dir = backupsDir(databaseFile);
  if (!fs.existsSync(dir)) return [];
  const found: BackupFile[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!BACKUP_NAME.test(name)) continue;
    const file = path.join(dir, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    const parts = NAME_PARTS.exec(name);
    const created = parts ? new Date(`${parts[1]}-${parts[2]}-${parts[3]}T${parts[4]}:${parts[5]}:${parts[6]}.${parts[7]}Z`) : stat.mtime;
    found.push({ name, file, created_at: Number.isNaN(created.getTime()) ? stat.mtime : created, size_bytes: stat.size, reason: kindOf(parts?.[8]) });
  }
  return found.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.name.localeCompare(a.name));
}

function kindOf(reason: string | undefined): BackupKind {
  if (reason === 'manual' || reason === 'daily' || reason === 'before-restore') return reason;
  if (reason && /^before-\d{14}-/.test(reason)) return 'before-migration';
  return 'other';
}

/** One listed backup by its file name; not_found for anything else (other folders included). */
export function findBackup(databaseFile: string, name: string): BackupFile {
  const found = BACKUP_NAME.test(name) ? listBackups(databaseFile).find((backup) => backup.name === name) : undefined;
  if (!found) throw new AppError('not_found', `No backup named ${name} in ${backupsDir(databaseFile)}.`);
  return found;
}
