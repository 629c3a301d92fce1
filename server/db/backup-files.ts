import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { allRows, closeSqlite, openSqlite } from './sqlite-file.js';

/**
 * The uploaded files inside a backup (docs/install.md#backups). A backup is one SQLite file: the
 * database's own tables, copied as one snapshot, and beside them three tables of its own holding
 * every file of DATA_DIR/uploads (coding-exam archives, submission files, recordings) in parts,
 * each file with its size and SHA-256. One file is what an admin copies to a USB stick, the portal
 * downloads and uploads, and `restore` takes; a restore writes the files back, checks every one
 * against its checksum, and drops the three tables from the restored database.
 *
 * The files are read after the database's snapshot, so every file a row of the snapshot names is
 * there (files are written before their rows and never changed after, except a recording, which
 * only grows). A file a row names that is already missing on disk is listed in the backup as
 * missing; anything newer than the snapshot that lands in the folder meanwhile is kept as well.
 */

const FILES = 'campusbridge_backup_files';
const PARTS = 'campusbridge_backup_file_parts';
const INFO = 'campusbridge_backup_info';
/** Files are stored in parts of at most this size: memory stays bounded whatever a recording weighs. */
const PART_BYTES = 4 * 1024 * 1024;
/** A path inside the uploads folder as stored: relative, forward slashes, no `.`/`..` segment. */
const SAFE_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;

export interface BackupFilesSummary {
  /** Files held, and their bytes. */
  files: number;
  bytes: number;
  /** Files the backed-up database names (relative to DATA_DIR) that were not on disk when it was made. */
  missing: string[];
}

export interface BackupFilesCheck extends BackupFilesSummary {
  /** What does not match: a part missing, a size or checksum that differs, a path that is not safe. */
  problems: string[];
}

const run = (db: sqlite3.Database, sql: string, params: unknown[] = []) =>
  new Promise<void>((resolve, reject) => db.run(sql, params, (error) => (error ? reject(error) : resolve())));

const rows = <T>(db: sqlite3.Database, sql: string, params: unknown[] = []) =>
  new Promise<T[]>((resolve, reject) => db.all<T>(sql, params, (error, found) => (error ? reject(error) : resolve(found))));

/** Every file below `dir`, as paths relative to it with forward slashes, sorted. */
function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** The storage paths (relative to DATA_DIR) the database names: stored files and recordings. */
async function namedFiles(db: sqlite3.Database): Promise<string[]> {
  const tables = new Set((await allRows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'")).map((row) => row.name));
  const named: string[] = [];
  for (const table of ['stored_files', 'attempt_recordings']) {
    if (tables.has(table)) named.push(...(await rows<{ storage_path: string }>(db, `SELECT storage_path FROM ${table}`)).map((row) => row.storage_path));
  }
  return [...new Set(named.map((name) => name.split(path.sep).join('/')))].sort();
}

/**
 * Adds every file of `uploadsDir` to the backup file `backupFile` (a fresh copy, not the live
 * database), in one transaction: a backup cut off midway holds no files rather than some.
 */
export async function addUploadsToBackup(backupFile: string, uploadsDir: string): Promise<BackupFilesSummary> {
  const db = await openSqlite(backupFile, sqlite3.OPEN_READWRITE);
  try {
    await run(db, 'BEGIN');
    await run(db, `CREATE TABLE ${FILES} (path TEXT PRIMARY KEY, size INTEGER NOT NULL, sha256 TEXT NOT NULL, parts INTEGER NOT NULL)`);
    await run(db, `CREATE TABLE ${PARTS} (path TEXT NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (path, part))`);
    await run(db, `CREATE TABLE ${INFO} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    let bytes = 0;
    const held = filesBelow(uploadsDir).filter((file) => SAFE_PATH.test(file));
    for (const file of held) {
      const hash = createHash('sha256');
      let part = 0;
      let size = 0;
      for await (const chunk of fs.createReadStream(path.join(uploadsDir, file), { highWaterMark: PART_BYTES }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        await run(db, `INSERT INTO ${PARTS} (path, part, data) VALUES (?, ?, ?)`, [file, part, chunk]);
        part += 1;
        size += chunk.length;
      }
      await run(db, `INSERT INTO ${FILES} (path, size, sha256, parts) VALUES (?, ?, ?, ?)`, [file, size, hash.digest('hex'), part]);
      bytes += size;
    }
    const present = new Set(held.map((file) => `uploads/${file}`));
    const missing = (await namedFiles(db)).filter((name) => !present.has(name));
    const summary: BackupFilesSummary = { files: held.length, bytes, missing };
    await run(db, `INSERT INTO ${INFO} (key, value) VALUES ('format', '2'), ('summary', ?)`, [JSON.stringify(summary)]);
    await run(db, 'COMMIT');
    return summary;
  } catch (error) {
    await run(db, 'ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await closeSqlite(db);
  }
}

/** True when the backup carries uploaded files (made by this version or later). */
export async function holdsFiles(db: sqlite3.Database): Promise<boolean> {
  return (await rows(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [FILES])).length > 0;
}

/** Reads a file's parts in order into `sink`, hashing as it goes; its size and SHA-256. */
async function readFile(
  db: sqlite3.Database,
  file: string,
  parts: number,
  sink?: (chunk: Buffer) => Promise<void>,
): Promise<{ size: number; sha256: string; partsFound: number }> {
  const hash = createHash('sha256');
  let size = 0;
  let partsFound = 0;
  // One part at a time: a recording of a gigabyte never sits in memory whole.
  for (let part = 0; part < parts; part += 1) {
    const [row] = await rows<{ data: Buffer }>(db, `SELECT data FROM ${PARTS} WHERE path = ? AND part = ?`, [file, part]);
    if (!row) break;
    partsFound += 1;
    hash.update(row.data);
    size += row.data.length;
    if (sink) await sink(row.data);
  }
  return { size, sha256: hash.digest('hex'), partsFound };
}

/**
 * Checks every file of a backup against its size and checksum, and that every file its database
 * names is held (or was already missing when it was made). Null for a backup without files.
 */
export async function checkBackupFiles(db: sqlite3.Database): Promise<BackupFilesCheck | null> {
  if (!(await holdsFiles(db))) return null;
  const [info] = await rows<{ value: string }>(db, `SELECT value FROM ${INFO} WHERE key = 'summary'`);
  const recordedMissing = new Set<string>(info ? ((JSON.parse(info.value) as BackupFilesSummary).missing ?? []) : []);
  const listed = await rows<{ path: string; size: number; sha256: string; parts: number }>(db, `SELECT path, size, sha256, parts FROM ${FILES} ORDER BY path`);
  const problems: string[] = [];
  let bytes = 0;
  for (const file of listed) {
    if (!SAFE_PATH.test(file.path)) {
      problems.push(`${file.path}: not a path inside the uploads folder`);
      continue;
    }
    const read = await readFile(db, file.path, file.parts);
    if (read.partsFound !== file.parts) problems.push(`uploads/${file.path}: ${file.parts - read.partsFound} of its ${file.parts} parts are missing`);
    else if (read.size !== file.size || read.sha256 !== file.sha256) problems.push(`uploads/${file.path}: its content does not match its checksum`);
    bytes += read.size;
  }
  const held = new Set(listed.map((file) => `uploads/${file.path}`));
  const notHeld = (await namedFiles(db)).filter((name) => !held.has(name));
  for (const name of notHeld) if (!recordedMissing.has(name)) problems.push(`${name}: named by the database but not in the backup`);
  return { files: listed.length, bytes, missing: notHeld, problems };
}

/**
 * Writes the backup's files into `targetDir` (which must not exist yet), each checked against its
 * checksum, then drops the backup's own tables from `db` (the staged copy being restored).
 */
export async function extractBackupFiles(db: sqlite3.Database, targetDir: string): Promise<BackupFilesSummary> {
  const [info] = await rows<{ value: string }>(db, `SELECT value FROM ${INFO} WHERE key = 'summary'`);
  const listed = await rows<{ path: string; size: number; sha256: string; parts: number }>(db, `SELECT path, size, sha256, parts FROM ${FILES} ORDER BY path`);
  fs.mkdirSync(targetDir, { recursive: true, mode: 0o700 });
  let bytes = 0;
  for (const file of listed) {
    if (!SAFE_PATH.test(file.path)) throw new Error(`${file.path} is not a path inside the uploads folder`);
    const target = path.join(targetDir, ...file.path.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const handle = await fs.promises.open(target, 'wx', 0o600);
    let read: Awaited<ReturnType<typeof readFile>>;
    try {
      read = await readFile(db, file.path, file.parts, async (chunk) => void (await handle.write(chunk)));
    } finally {
      await handle.close();
    }
    if (read.partsFound !== file.parts || read.size !== file.size || read.sha256 !== file.sha256) {
      throw new Error(`uploads/${file.path} in the backup does not match its checksum`);
    }
    bytes += read.size;
  }
  for (const table of [PARTS, FILES, INFO]) await run(db, `DROP TABLE ${table}`);
  // The parts' pages go back to the file system: the restored database is the database alone.
  await run(db, 'VACUUM');
  const missing = info ? ((JSON.parse(info.value) as BackupFilesSummary).missing ?? []) : [];
  return { files: listed.length, bytes, missing };
}
