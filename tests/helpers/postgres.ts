// PostgreSQL for the tests: a throwaway cluster on 127.0.0.1 (Debian's postgresql package) that
// the `postgres` project's global setup starts, and one database per test data folder (below).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { closedPort } from './net.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test cluster's maintenance database (`postgres://…/postgres`); only the postgres project sets it. */
    postgresAdminUrl?: string;
    /** A database on that cluster migrated once by the global setup, copied for each appliance that starts on a fresh folder. */
    postgresTemplate?: string;
  }
}

/** Where Debian installs the server's programs (`/usr/lib/postgresql/<major>/bin`), newest first; null without it. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const majors = fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? path.join(root, majors[0]!, 'bin') : null;
}

export interface TestCluster {
  adminUrl: string;
  stop(): void;
}

/**
 * initdb and pg_ctl in a temp folder, listening on 127.0.0.1 only, with a Unix socket in that
 * folder and trust authentication (nothing but this machine's tests can reach it). As root, the
 * programs run as the `postgres` user the package creates, since initdb refuses root.
 */
export async function startTestCluster(binDir: string): Promise<TestCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const run = (program: string, args: string[]) => {
    const [command, commandArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(binDir, program), ...args]] : [path.join(binDir, program), args];
    const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C.UTF-8']);
  // A port nothing listens on yet, taken from the OS.
  const port = await closedPort();
  // No durability needed for throwaway data: fsync off makes the suite's many small databases cheap.
  const options = `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The cluster of this test run when the suite runs on PostgreSQL (the `postgres` project); undefined on SQLite. */
export const testPostgresAdminUrl = (): string | undefined => inject('postgresAdminUrl');

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database on the test cluster, empty or a copy of `template` (a migrated one: copying it
 * takes a few milliseconds where migrating takes a second); `drop` removes it (closing what is
 * still connected).
 */
export async function createTestDatabase(adminUrl: string, template?: string): Promise<TestDatabase> {
  const name = `cb_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** In the postgres project, whether this suite runs on PostgreSQL: for the few cases about SQLite itself (its file, pragmas, query plans). */
export const onPostgres = (): boolean => testPostgresAdminUrl() !== undefined;

// A data folder's database: on SQLite the file in it, on PostgreSQL a database made the first time
// an appliance or a CLI run uses the folder, kept while the folder lives so a restart or a CLI run
// on the folder sees the same data, and dropped when the folder is removed (`forgetTestDatabase`).
const databasesByDataDir = new Map<string, Promise<TestDatabase>>();

/**
 * The PostgreSQL database standing for `dataDir` in this run (made on first use, a copy of the
 * migrated template when `migrated` asks for it and the folder has none yet), or null on SQLite.
 */
export function testDatabaseFor(dataDir: string, options: { migrated?: boolean } = {}): Promise<TestDatabase> | null {
  const adminUrl = testPostgresAdminUrl();
  if (!adminUrl) return null;
  let database = databasesByDataDir.get(dataDir);
  if (!database) {
    database = createTestDatabase(adminUrl, options.migrated ? inject('postgresTemplate') : undefined);
    databasesByDataDir.set(dataDir, database);
  }
  return database;
}

/**
 * DATA_DIR, and in the postgres project DATABASE_URL of the folder's database: the environment of
 * an appliance or CLI run on the folder. `migrated`: a folder met here for the first time gets a
 * copy of the migrated template (see `testDatabaseFor`).
 */
export async function dataDirEnv(dataDir: string, options: { migrated?: boolean } = {}): Promise<{ DATA_DIR: string; DATABASE_URL?: string }> {
  const database = await testDatabaseFor(dataDir, options);
  return { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
}

/** Drops the database made for `dataDir`, if any; whoever removes the folder calls it. */
export async function forgetTestDatabase(dataDir: string): Promise<void> {
  const database = databasesByDataDir.get(dataDir);
  if (!database) return;
  databasesByDataDir.delete(dataDir);
  await (await database).drop();
}
