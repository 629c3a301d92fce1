// @tier integration
// @databases sqlite: `backup`, `restore` and the pre-migration copy are copies of the SQLite file; PostgreSQL is backed up with its own tools
// Upgrade safety on real data folders: the online copy taken before migrating, how many are
// kept, what a failed copy stops, and `cli backup` / `cli restore` with and without a running
// appliance.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { describe, expect, it } from 'vitest';
import { createInstitution } from '../server/commands/institutions/institutions.js';
import { BackupFailedError } from '../server/db/backup.js';
import { connectDatabase } from '../server/db/index.js';
import { migrations } from '../server/db/migrations/index.js';
import { isReadOnlyFtsCheck } from '../server/db/search-index.js';
import { Tenant } from '../server/db/tenant.js';
import { listPeople } from '../server/commands/people/list.js';
import { bulkCreateStudents } from '../server/commands/people/students.js';
import { startTestAppliance, tempDataDirs, type TestAppliance } from './helpers/appliance.js';
import { cliFails as fails, cliOk as ok, runCliCaptured } from './helpers/cli.js';

const DB_NAME = 'campusbridge.sqlite';
const ALL = migrations.map((migration) => migration.name);
const FIRST = ALL[0]!;

const makeDataDir = tempDataDirs('campusbridge-backup-');

const dbFile = (dataDir: string) => path.join(dataDir, DB_NAME);
const backupsIn = (dataDir: string) => {
  const dir = path.join(dataDir, 'backups');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Rows straight from a SQLite file, opened read-only: what a backup really holds. */
async function query<T = Record<string, unknown>>(file: string, sql: string): Promise<T[]> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)));
  });
  try {
    return await new Promise<T[]>((resolve, reject) => db.all<T>(sql, (error, rows) => (error ? reject(error) : resolve(rows))));
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** Runs `sql` on a SQLite file straight through sqlite3 (made if missing), as another program would. */
async function execSql(file: string, sql: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const db = new sqlite3.Database(file, (error) => {
      if (error) return reject(error);
      db.exec(sql, (execError) => db.close(() => (execError ? reject(execError) : resolve())));
    });
  });
}

/**
 * What SQLite's integrity check finds wrong in a file opened read-only, as a backup's verification
 * opens it: nothing, once the one line FTS5 cannot check without writing is set aside (a restore
 * checks the search index on its own copy).
 */
const integrityProblems = async (file: string) =>
  (await query<{ integrity_check: string }>(file, 'PRAGMA integrity_check'))
    .map((row) => row.integrity_check)
    .filter((line) => line !== 'ok' && !isReadOnlyFtsCheck(line));
const appliedIn = async (file: string) => (await query<{ name: string }>(file, 'SELECT name FROM schema_migrations ORDER BY name')).map((row) => row.name);
const tablesIn = async (file: string) =>
  (await query<{ name: string }>(file, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).map((row) => row.name);
const institutionsIn = (file: string) => query<{ id: string; name: string }>(file, 'SELECT id, name FROM institutions ORDER BY id');

/** A data folder as an older CampusBridge left it: migrated up to `upTo`, with one institution. */
async function olderDataFolder(upTo: string = FIRST): Promise<{ dataDir: string; institutionId: string }> {
  const dataDir = makeDataDir();
  const db = await connectDatabase(dbFile(dataDir), undefined, { migrateTo: upTo });
  expect(db.migrationsApplied.at(-1)).toBe(upTo);
  const institutionId = 'inst_older0000000000000000000001';
  const now = new Date().toISOString();
  await db.sequelize.query("INSERT INTO institutions (id, name, status, config, created_at, updated_at) VALUES (?, 'Riverside High', 'approved', '{}', ?, ?)", {
    replacements: [institutionId, now, now],
  });
  await db.close();
  return { dataDir, institutionId };
}

describe('backup before migrating', () => {
  it('copies the database as it was (schema and data) before pending migrations run, then migrates', async () => {
    const { dataDir, institutionId } = await olderDataFolder();

    const db = await connectDatabase(dbFile(dataDir));
    try {
      expect(db.migrationsApplied).toEqual(ALL.slice(1));
      expect((await db.models.Institution.findByPk(institutionId))?.name).toBe('Riverside High');
    } finally {
      await db.close();
    }

    const [name, ...others] = backupsIn(dataDir);
    expect(others).toEqual([]);
    expect(name).toMatch(new RegExp(`^campusbridge-\\d{8}T\\d{6}\\.\\d{3}Z-before-${ALL[1]}\\.sqlite$`));
    const copy = path.join(dataDir, 'backups', name!);
    expect(db.preMigrationBackup).toBe(copy);
    expect(await appliedIn(copy)).toEqual([FIRST]);
    expect(await tablesIn(copy)).not.toContain('students');
    expect((await query<{ name: string }>(copy, 'PRAGMA table_info(institutions)')).map((c) => c.name)).not.toContain('email_domain');
    expect(await institutionsIn(copy)).toEqual([{ id: institutionId, name: 'Riverside High' }]);
    expect(await query(copy, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    // One self-contained file, not a WAL database that needs companions.
    expect(await query(copy, 'PRAGMA journal_mode')).toEqual([{ journal_mode: 'delete' }]);
    expect(fs.readdirSync(path.join(dataDir, 'backups'))).toEqual([name]);

    expect(await appliedIn(dbFile(dataDir))).toEqual(ALL);
  });

  it('keeps the newest three automatic copies over four upgrades, and never deletes other copies', async () => {
    expect(ALL.length).toBeGreaterThanOrEqual(5);
    const { dataDir } = await olderDataFolder();
    const manual = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup')).file;
    const beforeRestore = path.join(dataDir, 'backups', 'campusbridge-20200101T000000.000Z-before-restore.sqlite');
    fs.copyFileSync(manual, beforeRestore);

    for (const target of ALL.slice(1, 5)) {
      const db = await connectDatabase(dbFile(dataDir), undefined, { migrateTo: target });
      expect(db.migrationsApplied).toEqual([target]);
      await db.close();
    }

    const automatic = backupsIn(dataDir).filter((name) => /-before-\d{14}-/.test(name));
    expect(automatic).toHaveLength(3);
    expect(automatic.map((name) => name.replace(/^.*-before-/, '').replace(/\.sqlite$/, ''))).toEqual(ALL.slice(2, 5));
    // Each is the database just before its migration.
    for (const name of automatic) {
      const before = name.replace(/^.*-before-/, '').replace(/\.sqlite$/, '');
      expect(await appliedIn(path.join(dataDir, 'backups', name))).toEqual(ALL.slice(0, ALL.indexOf(before)));
    }
    expect(fs.existsSync(manual)).toBe(true);
    expect(fs.existsSync(beforeRestore)).toBe(true);
    expect(backupsIn(dataDir)).toHaveLength(3 + 2);
  });

  it('does not migrate when the copy fails: clear error, database untouched; the next start after fixing migrates', async () => {
    const { dataDir, institutionId } = await olderDataFolder();
    // A file where the backups folder should be: mkdir fails even for root, unlike chmod.
    fs.writeFileSync(path.join(dataDir, 'backups'), 'in the way');
    const before = sha256(dbFile(dataDir));

    const error = await connectDatabase(dbFile(dataDir)).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BackupFailedError);
    expect((error as Error).message).toMatch(/database was not upgraded/);
    expect((error as Error).message).toContain(path.join(dataDir, 'backups'));

    expect(sha256(dbFile(dataDir))).toBe(before);
    expect(await appliedIn(dbFile(dataDir))).toEqual([FIRST]);
    expect(await institutionsIn(dbFile(dataDir))).toEqual([{ id: institutionId, name: 'Riverside High' }]);
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('.partial'))).toEqual([]);

    fs.rmSync(path.join(dataDir, 'backups'));
    const db = await connectDatabase(dbFile(dataDir));
    expect(db.migrationsApplied).toEqual(ALL.slice(1));
    await db.close();
    expect(backupsIn(dataDir)).toHaveLength(1);
  });

  it('takes no copy of a new data folder, nor of a database that is up to date', async () => {
    const dataDir = makeDataDir();
    const first = await connectDatabase(dbFile(dataDir));
    expect(first.migrationsApplied).toEqual(ALL);
    expect(first.preMigrationBackup).toBeNull();
    await first.close();
    const again = await connectDatabase(dbFile(dataDir));
    expect(again.migrationsApplied).toEqual([]);
    expect(again.preMigrationBackup).toBeNull();
    await again.close();
    expect(fs.existsSync(path.join(dataDir, 'backups'))).toBe(false);
  });
});

describe('cli backup and restore', () => {
  it('backs up a running appliance consistently, and restores it once the appliance has stopped', async () => {
    const dataDir = makeDataDir();
    let app: TestAppliance | null = await startTestAppliance({ dataDir });
    try {
      const db = app.ctx.db;
      const kept = await createInstitution(db, { name: 'Kept Academy', approve: true });
      // Writes go on while the copy is taken: the copy is one snapshot, never half of one.
      const writing = Promise.all(Array.from({ length: 10 }, (_, i) => createInstitution(db, { name: `During ${i}`, approve: false })));
      const backedUp = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup'));
      await writing;
      expect(backedUp).toEqual({ file: expect.any(String), files: 0, bytes: 0, missing: [] });
      expect(path.dirname(backedUp.file)).toBe(path.join(dataDir, 'backups'));
      expect(path.basename(backedUp.file)).toMatch(/^campusbridge-\d{8}T\d{6}\.\d{3}Z-manual\.sqlite$/);
      expect(await integrityProblems(backedUp.file)).toEqual([]);
      const live = (await db.models.Institution.findAll({ order: [['created_at', 'ASC']] })).map((row) => ({ id: row.id, name: row.name }));
      const copied = await institutionsIn(backedUp.file);
      expect(copied).toContainEqual({ id: kept.id, name: 'Kept Academy' });
      expect(copied.length).toBeGreaterThanOrEqual(1);
      // Every institution in the copy is live as it was, and the ones missing came after it.
      const liveById = new Map(live.map((row) => [row.id, row.name]));
      for (const row of copied) expect(liveById.get(row.id)).toBe(row.name);
      expect(await appliedIn(backedUp.file)).toEqual(ALL);

      // --out: a named file, or a folder that gets the usual name
      const elsewhere = makeDataDir();
      const named = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup', '--out', path.join(elsewhere, 'nightly.sqlite')));
      expect(named.file).toBe(path.join(elsewhere, 'nightly.sqlite'));
      expect(await institutionsIn(named.file)).toEqual(await institutionsIn(dbFile(dataDir)));
      const inFolder = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup', '--out', elsewhere));
      expect(path.dirname(inFolder.file)).toBe(elsewhere);
      expect(path.basename(inFolder.file)).toMatch(/-manual\.sqlite$/);
      fails(await runCliCaptured(dataDir, 'backup', '--out', path.join(elsewhere, 'missing', 'x.sqlite')), 'not_found');
      fails(await runCliCaptured(dataDir, 'backup', '--out', dbFile(dataDir)), 'validation_error');

      // Changes after the backup
      await db.models.Institution.update({ name: 'Renamed Academy' }, { where: { id: kept.id } });
      const later = await createInstitution(db, { name: 'Later College', approve: true });
      const snapshotBefore = await institutionsIn(dbFile(dataDir));

      // Refused while the appliance has the database open, and nothing changed.
      const refusal = fails(await runCliCaptured(dataDir, 'restore', backedUp.file), 'conflict');
      expect(refusal).toMatch(/open/);
      expect(await institutionsIn(dbFile(dataDir))).toEqual(snapshotBefore);
      expect(backupsIn(dataDir).filter((name) => name.includes('before-restore'))).toEqual([]);

      await app.stop();
      app = null;

      const restored = ok<{ restored_from: string; previous_database: string; migrations: string[] }>(await runCliCaptured(dataDir, 'restore', backedUp.file));
      expect(restored.restored_from).toBe(backedUp.file);
      expect(restored.migrations).toEqual(ALL);
      expect(path.basename(restored.previous_database)).toMatch(/^campusbridge-\d{8}T\d{6}\.\d{3}Z-before-restore\.sqlite$/);
      // The replaced database is kept, with the changes made after the backup.
      expect(await institutionsIn(restored.previous_database)).toEqual(snapshotBefore);
      for (const stale of ['-wal', '-shm', '.restoring']) expect(fs.existsSync(`${dbFile(dataDir)}${stale}`)).toBe(false);

      app = await startTestAppliance({ dataDir });
      const after = await app.ctx.db.models.Institution.findAll();
      expect(after.find((row) => row.id === kept.id)?.name).toBe('Kept Academy');
      expect(after.find((row) => row.id === later.id)).toBeUndefined();
      expect(after.map((row) => ({ id: row.id, name: row.name })).sort((a, b) => a.id.localeCompare(b.id))).toEqual(copied);
      // The backup file itself is left as it was.
      expect(await institutionsIn(backedUp.file)).toEqual(copied);
    } finally {
      await app?.stop();
    }
  });

  it('refuses a file that is not a CampusBridge database, and changes nothing', async () => {
    const { dataDir, institutionId } = await olderDataFolder(ALL.at(-1));
    const elsewhere = makeDataDir();
    const before = sha256(dbFile(dataDir));
    const expectUnchanged = async () => {
      expect(sha256(dbFile(dataDir))).toBe(before);
      expect(await institutionsIn(dbFile(dataDir))).toEqual([{ id: institutionId, name: 'Riverside High' }]);
      expect(backupsIn(dataDir)).toEqual([]);
    };

    const text = path.join(elsewhere, 'notes.sqlite');
    fs.writeFileSync(text, 'These are not the pages you are looking for.\n'.repeat(100));
    expect(fails(await runCliCaptured(dataDir, 'restore', text), 'validation_error')).toContain('is not a SQLite database');
    await expectUnchanged();

    const foreign = path.join(elsewhere, 'other-app.sqlite');
    await execSql(foreign, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi');");
    expect(fails(await runCliCaptured(dataDir, 'restore', foreign), 'validation_error')).toContain('not a CampusBridge');
    await expectUnchanged();

    const newer = path.join(elsewhere, 'newer.sqlite');
    fs.copyFileSync(dbFile(dataDir), newer);
    await execSql(newer, "INSERT INTO schema_migrations (name) VALUES ('29990101000000-from-the-future')");
    expect(fails(await runCliCaptured(dataDir, 'restore', newer), 'validation_error')).toContain('newer CampusBridge');
    await expectUnchanged();

    fails(await runCliCaptured(dataDir, 'restore', path.join(elsewhere, 'missing.sqlite')), 'not_found');
    fails(await runCliCaptured(dataDir, 'restore', dbFile(dataDir)), 'validation_error');
    await expectUnchanged();
    expect((await runCliCaptured(dataDir, 'restore')).code).toBe(2);
  });

  it('restores an older backup; the next start migrates it forward after its own copy', async () => {
    const older = await olderDataFolder();
    const oldCopy = ok<{ file: string }>(await runCliCaptured(older.dataDir, 'backup')).file;
    // `cli backup` copies the database as it is: it never migrates.
    expect(await appliedIn(dbFile(older.dataDir))).toEqual([FIRST]);

    const dataDir = makeDataDir();
    const current = await connectDatabase(dbFile(dataDir));
    await current.close();

    const restored = ok<{ migrations: string[] }>(await runCliCaptured(dataDir, 'restore', oldCopy));
    expect(restored.migrations).toEqual([FIRST]);
    expect(await appliedIn(dbFile(dataDir))).toEqual([FIRST]);

    const db = await connectDatabase(dbFile(dataDir));
    try {
      expect(db.migrationsApplied).toEqual(ALL.slice(1));
      expect(path.basename(db.preMigrationBackup ?? '')).toMatch(new RegExp(`-before-${ALL[1]}\\.sqlite$`));
      expect((await db.models.Institution.findByPk(older.institutionId))?.name).toBe('Riverside High');
    } finally {
      await db.close();
    }
  });

  it('restores into a data folder that has no database yet (a new computer)', async () => {
    const older = await olderDataFolder(ALL.at(-1));
    const copy = ok<{ file: string }>(await runCliCaptured(older.dataDir, 'backup')).file;
    const fresh = path.join(makeDataDir(), 'new-data');
    const restored = ok<{ previous_database: string | null }>(await runCliCaptured(fresh, 'restore', copy));
    expect(restored.previous_database).toBeNull();
    expect(await institutionsIn(dbFile(fresh))).toEqual([{ id: older.institutionId, name: 'Riverside High' }]);
    fails(await runCliCaptured(makeDataDir(), 'backup'), 'not_found');
  });

  it("makes the people search index again when a backup's is incomplete, so q finds everyone after the restore", async () => {
    const dataDir = makeDataDir();
    const app = await startTestAppliance({ dataDir });
    const institution = await createInstitution(app.ctx.db, { name: 'Search Academy', approve: true });
    const made = await bulkCreateStudents(new Tenant(app.ctx.db, institution.id), [{ full_name: 'Ingrid Sørensen' }, { full_name: 'Søren Kierkegaard' }]);
    expect(made.created).toBe(2);
    await app.stop();
    const copy = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup')).file;
    // An index that lost a row (another program's write, a bug of an older version): still a sound SQLite file.
    await execSql(copy, 'DELETE FROM people_search WHERE rowid = (SELECT min(rowid) FROM people_search)');
    expect(await query(copy, 'SELECT count(*) AS n FROM people_search')).toEqual([{ n: 1 }]);
    ok(await runCliCaptured(dataDir, 'backup', '--verify', copy));

    const fresh = path.join(makeDataDir(), 'new-data');
    ok(await runCliCaptured(fresh, 'restore', copy));
    expect(await query(dbFile(fresh), 'SELECT count(*) AS n FROM people_search')).toEqual([{ n: 2 }]);
    const restored = await connectDatabase(dbFile(fresh));
    try {
      const found = await listPeople(new Tenant(restored, institution.id), 'student', { page: 1, limit: 10, q: 'SØR' });
      expect(found.items.map((person) => person.full_name).sort()).toEqual(['Ingrid Sørensen', 'Søren Kierkegaard']);
    } finally {
      await restored.close();
    }
  });
});

describe('the uploaded files in a backup', () => {
  /** Every file below a data folder's uploads folder, with its content's SHA-256. */
  const uploadsOf = (dataDir: string) => {
    const dir = path.join(dataDir, 'uploads');
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [path.relative(dir, path.join(entry.parentPath, entry.name)), sha256(path.join(entry.parentPath, entry.name))])
      .sort(([a], [b]) => a!.localeCompare(b!));
  };

  /** A stopped-and-started data folder with two uploaded files (one of three parts) and a row whose file is gone. */
  async function folderWithUploads() {
    const dataDir = makeDataDir();
    const app = await startTestAppliance({ dataDir });
    const institution = await createInstitution(app.ctx.db, { name: 'Files Academy', approve: true });
    const dir = path.join(dataDir, 'uploads', institution.id);
    fs.mkdirSync(dir, { recursive: true });
    const big = randomBytes(9 * 1024 * 1024 + 7);
    fs.writeFileSync(path.join(dir, 'file_big'), big);
    fs.writeFileSync(path.join(dir, 'file_small'), 'print("hello")\n');
    const now = new Date().toISOString();
    await app.ctx.db.sequelize.query(
      "INSERT INTO stored_files (id, institution_id, owner_type, owner_id, kind, name, content_type, size, sha256, storage_path, created_at) VALUES ('file_gone', ?, 'exam', 'exam_x', 'starter', 'gone.zip', 'application/zip', 1, 'x', ?, ?)",
      { replacements: [institution.id, `uploads/${institution.id}/file_gone`, now] },
    );
    return { dataDir, app, institution, dir, bytes: big.length + 15 };
  }

  it('holds every uploaded file with its checksum; --verify checks them; restore puts them back beside the database alone', async () => {
    const { dataDir, app, institution, dir, bytes } = await folderWithUploads();
    let running: TestAppliance | null = app;
    try {
      const made = ok<{ file: string; files: number; bytes: number; missing: string[] }>(await runCliCaptured(dataDir, 'backup'));
      expect(made).toEqual({ file: expect.any(String), files: 2, bytes, missing: [`uploads/${institution.id}/file_gone`] });
      const atBackup = uploadsOf(dataDir);
      expect(ok(await runCliCaptured(dataDir, 'backup', '--verify', made.file))).toEqual({
        file: made.file,
        database: 'ok',
        migrations: ALL.length,
        files: { held: 2, bytes, missing_when_made: [`uploads/${institution.id}/file_gone`] },
      });

      // One part changed: --verify and restore both refuse, naming the file, and change nothing.
      const damaged = path.join(makeDataDir(), 'damaged.sqlite');
      fs.copyFileSync(made.file, damaged);
      await execSql(damaged, "UPDATE campusbridge_backup_file_parts SET data = zeroblob(10) WHERE path LIKE '%/file_big' AND part = 1");
      expect(fails(await runCliCaptured(dataDir, 'backup', '--verify', damaged), 'validation_error')).toContain(`uploads/${institution.id}/file_big`);
      fails(await runCliCaptured(dataDir, 'backup', '--verify', path.join(dataDir, 'nothing-here.sqlite')), 'not_found');

      // After the backup: a file added and one removed.
      fs.writeFileSync(path.join(dir, 'file_later'), 'later');
      fs.rmSync(path.join(dir, 'file_small'));
      const beforeRestore = uploadsOf(dataDir);
      await running.stop();
      running = null;

      expect(fails(await runCliCaptured(dataDir, 'restore', damaged), 'validation_error')).toContain('file_big');
      expect(uploadsOf(dataDir)).toEqual(beforeRestore);

      const restored = ok<{ previous_database: string; files: { files: number; bytes: number } }>(await runCliCaptured(dataDir, 'restore', made.file));
      expect(restored.files).toMatchObject({ files: 2, bytes });
      expect(uploadsOf(dataDir)).toEqual(atBackup);
      // The restored database is the database alone; the replaced files are in the before-restore copy.
      expect(await tablesIn(dbFile(dataDir))).not.toContain('campusbridge_backup_file_parts');
      expect(fs.statSync(dbFile(dataDir)).size).toBeLessThan(bytes);
      const kept = await query<{ path: string }>(restored.previous_database, 'SELECT path FROM campusbridge_backup_files ORDER BY path');
      expect(kept.map((row) => row.path)).toEqual([`${institution.id}/file_big`, `${institution.id}/file_later`]);
      for (const stale of ['.restoring', '.replaced']) expect(fs.existsSync(path.join(dataDir, `uploads${stale}`))).toBe(false);

      running = await startTestAppliance({ dataDir });
      expect(await running.ctx.db.models.Institution.findByPk(institution.id)).not.toBeNull();
    } finally {
      await running?.stop();
    }
  });

  it('a backup from before backups held files restores the database and leaves the uploads folder as it is', async () => {
    const { dataDir, app } = await folderWithUploads();
    const made = ok<{ file: string }>(await runCliCaptured(dataDir, 'backup'));
    await app.stop();
    const older = path.join(makeDataDir(), 'older.sqlite');
    fs.copyFileSync(made.file, older);
    await execSql(older, 'DROP TABLE campusbridge_backup_file_parts; DROP TABLE campusbridge_backup_files; DROP TABLE campusbridge_backup_info;');
    expect(ok<{ files: string }>(await runCliCaptured(dataDir, 'backup', '--verify', older)).files).toMatch(/^none/);
    const before = uploadsOf(dataDir);
    expect(ok<{ files: unknown }>(await runCliCaptured(dataDir, 'restore', older)).files).toBeNull();
    expect(uploadsOf(dataDir)).toEqual(before);
  });
});
