// Migrated databases made once per test run by the global setups and copied for every appliance
// that starts on a fresh folder: migrating costs about half a second on SQLite and more on
// PostgreSQL, a copy a few milliseconds. Suites about migrations themselves (backup, migrate-to,
// list-migrations) open their folders without a template and migrate for real.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { connectDatabase } from '../../server/db/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A SQLite file migrated once by the global setup. */
    sqliteTemplate?: string;
  }
}

/** The file name the appliance gives its SQLite database in DATA_DIR (server/config.ts). */
const DATABASE_FILE = 'campusbridge.sqlite';

/** Migrates a new SQLite database in a temp folder; `remove` deletes the folder. */
export async function migrateSqliteTemplate(): Promise<{ file: string; remove: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-template-'));
  const file = path.join(dir, DATABASE_FILE);
  const db = await connectDatabase(file);
  await db.close();
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Creates and migrates the database `name` on the cluster, for `CREATE DATABASE … TEMPLATE name`. */
export async function migratePostgresTemplate(adminUrl: string, name = 'cb_template'): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-template-key-'));
  try {
    const db = await connectDatabase({ postgresUrl: url.toString(), keyDir });
    await db.close();
  } finally {
    fs.rmSync(keyDir, { recursive: true, force: true });
  }
  return name;
}

/** Puts a copy of the migrated SQLite template in a fresh data folder (nothing without one). */
export function copySqliteTemplate(dataDir: string): void {
  const template = inject('sqliteTemplate');
  if (template) fs.copyFileSync(template, path.join(dataDir, DATABASE_FILE));
}
