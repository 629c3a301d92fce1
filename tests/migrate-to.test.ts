// @tier integration
// @databases sqlite: moves a SQLite file to a PostgreSQL cluster of its own
/**
 * `cli migrate-to <postgres url>` (docs/scale-out.md#moving-up-from-one-computer): an appliance's SQLite data, lived in
 * (the demo school and more), copied to an empty PostgreSQL database; an appliance started on
 * that database with the same DATA_DIR serves the same school. This suite starts a PostgreSQL
 * cluster of its own, so it runs in the sqlite project only.
 */
import path from 'node:path';
import pg from 'pg';
import type { Model, ModelStatic } from 'sequelize';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../server/db/index.js';
import { allRows, closeSqlite, openSqlite } from '../server/db/sqlite-file.js';
import { openBody } from '../server/mail/outbox.js';
import { startTestAppliance, tempDataDirs, type TestAppliance } from './helpers/appliance.js';
import { cliFails, cliOk, runCliCaptured } from './helpers/cli.js';
import { closedPort } from './helpers/net.js';
import { createTestDatabase, postgresBinDir, startTestCluster, testPostgresAdminUrl, type TestCluster } from './helpers/postgres.js';

const binDir = postgresBinDir();
if (!binDir && process.env.CI === 'true') throw new Error('PostgreSQL is not installed; .ci/run installs it with apt');
/** The postgres project runs its suites against its own cluster; this one brings its own. */
const skip = !binDir || testPostgresAdminUrl() !== undefined;

const PASSWORD = 'pw-never-printed-7c1e';
const PERSONAL_EMAIL = 'people.personal_email';

/** The URL with a password in it (the test cluster trusts 127.0.0.1 and ignores it). */
const withPassword = (url: string) => {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const tablesOf = (url: string) =>
  withClient(url, async (client) =>
    (await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).rows.map(
      (row) => row.name,
    ),
  );

describe.skipIf(skip)('migrate-to: SQLite to PostgreSQL', () => {
  const dataDirs = tempDataDirs('campusbridge-migrate-');
  let cluster: TestCluster;
  let dataDir: string;
  let databaseFile: string;
  let key: string;
  let expected: { tables: number; rows: number };
  let rowsBefore: Record<string, number>;
  let studentsBefore: unknown;
  let eventsBefore: unknown;
  let personalEmailStudent: string;

  const get = async (app: TestAppliance, url: string) => {
    const res = await app.http.get(`/v1${url}`).set('Authorization', `Bearer ${key}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    cluster = await startTestCluster(binDir!);
    dataDir = dataDirs();
    databaseFile = path.join(dataDir, 'campusbridge.sqlite');
    ({ key } = cliOk<{ key: string }>(await runCliCaptured(dataDir, 'demo', 'seed')));

    // A running SQLite appliance: more of the school through the API, what it serves, and a refused move.
    const app = await startTestAppliance({ dataDir });
    try {
      const created = await app.http
        .post('/v1/students')
        .set('Authorization', `Bearer ${key}`)
        .send({ full_name: 'Grace Hopper', student_id: 'MIG-1', personal_email: 'grace@home.example' });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      personalEmailStudent = created.body.data.id;
      studentsBefore = await get(app, '/students?limit=200');
      eventsBefore = await get(app, '/events?limit=200');

      const target = await createTestDatabase(cluster.adminUrl);
      const refused = cliFails(await runCliCaptured(dataDir, 'migrate-to', target.url), 'conflict');
      expect(refused).toContain('open');
      expect(await tablesOf(target.url)).toEqual([]);
    } finally {
      await app.stop();
    }

    // What the copy must carry: every table's rows but the migrations list, the trigger-kept
    // counts and SQLite's own search index (people_search*: PostgreSQL indexes the column itself).
    const reader = await openSqlite(databaseFile, sqlite3.OPEN_READONLY);
    rowsBefore = {};
    for (const { name } of await allRows<{ name: string }>(reader, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)) {
      const [{ n }] = (await allRows<{ n: number }>(reader, `SELECT count(*) AS n FROM "${name}"`)) as [{ n: number }];
      rowsBefore[name] = n;
    }
    await closeSqlite(reader);
    const copied = Object.entries(rowsBefore).filter(([name]) => name !== 'schema_migrations' && name !== 'person_counts' && !name.startsWith('people_search'));
    expected = { tables: copied.length, rows: copied.reduce((sum, [, n]) => sum + n, 0) };
  });
  afterAll(() => cluster?.stop());

  it('refuses a database that is not empty, says what it found, never prints the password, and writes nothing', async () => {
    const target = await createTestDatabase(cluster.adminUrl);
    await withClient(target.url, (client) => client.query('CREATE TABLE notes (body text); INSERT INTO notes VALUES ($$keep me$$)'));
    const message = cliFails(await runCliCaptured(dataDir, 'migrate-to', withPassword(target.url)), 'conflict');
    expect(message).toContain('not empty');
    expect(message).toContain('notes');
    expect(message).not.toContain(PASSWORD);
    expect(await tablesOf(target.url)).toEqual(['notes']);
  });

  it('a server it cannot reach: conflict, without the password', async () => {
    const message = cliFails(
      await runCliCaptured(dataDir, 'migrate-to', `postgres://postgres:${PASSWORD}@127.0.0.1:${await closedPort()}/campusbridge`),
      'conflict',
    );
    expect(message).toContain('Cannot connect to 127.0.0.1:');
    expect(message).not.toContain(PASSWORD);
  });

  it('refuses a URL that is not PostgreSQL', async () => {
    cliFails(await runCliCaptured(dataDir, 'migrate-to', 'mysql://root@127.0.0.1/campusbridge'), 'validation_error');
  });

  describe('into an empty database', () => {
    let url: string;
    let printed: { tables: number; rows: number };
    let printedText: string;

    beforeAll(async () => {
      url = (await createTestDatabase(cluster.adminUrl)).url;
      const result = await runCliCaptured(dataDir, 'migrate-to', withPassword(url));
      printedText = result.stdout;
      printed = cliOk(result);
    });

    it('prints {tables, rows}: every table and row of the SQLite database, and not the password', () => {
      expect(expected.rows).toBeGreaterThan(500);
      expect(printed).toEqual(expected);
      expect(printedText).not.toContain(PASSWORD);
    });

    it('leaves the SQLite database as it was', async () => {
      const reader = await openSqlite(databaseFile, sqlite3.OPEN_READONLY);
      for (const [name, n] of Object.entries(rowsBefore)) {
        expect((await allRows<{ n: number }>(reader, `SELECT count(*) AS n FROM "${name}"`))[0]!.n, name).toBe(n);
      }
      await closeSqlite(reader);
    });

    it('every model reads back the same values on PostgreSQL: dates, JSON, booleans, numbers, sealed text', async () => {
      const source = await connectDatabase(databaseFile);
      const target = await connectDatabase({ postgresUrl: url, keyDir: dataDir });
      try {
        const modelsOf = (db: Database) => db.models as unknown as Record<string, ModelStatic<Model>>;
        for (const [name, model] of Object.entries(modelsOf(source))) {
          // SQLite's own search index (PostgreSQL indexes people.search_text itself): compared through q below.
          if (model.getTableName() === 'people_search_rows') continue;
          const order = model.primaryKeyAttributes.map((key) => [key, 'ASC'] as [string, string]);
          const read = async (db: Database) => (await modelsOf(db)[name]!.findAll({ order })).map((row) => normalized(model, row.get({ plain: true })));
          const [here, there] = await Promise.all([read(source), read(target)]);
          expect(there, name).toEqual(here);
        }
      } finally {
        await Promise.all([source.close(), target.close()]);
      }
    });

    describe('an appliance started on it', () => {
      let app: TestAppliance;
      beforeAll(async () => {
        app = await startTestAppliance({ dataDir, config: { databaseUrl: url } });
      });
      afterAll(() => app?.stop());

      it('with the same DATA_DIR serves the same school with the same key', async () => {
        expect(await get(app, '/students?limit=200')).toEqual(studentsBefore);
        expect(await get(app, '/events?limit=200')).toEqual(eventsBefore);
        const me = await get(app, '/me');
        expect(me.institution.name).toBe('Demo Academy');
      });

      it('sealed fields open with the master key kept in DATA_DIR', async () => {
        const { models, fieldCrypto } = app.ctx.db;
        const grace = await models.Person.findByPk(personalEmailStudent);
        expect(fieldCrypto.decrypt(grace!.personal_email_sealed!, PERSONAL_EMAIL)).toBe('grace@home.example');
        const mail = await models.MailOutbox.findOne({ where: {}, order: [['id', 'ASC']] });
        expect(openBody(app.ctx.db, mail!)).toEqual(expect.any(String));
      });

      it('the people counts the triggers kept match: writes on PostgreSQL go on from the copied data', async () => {
        const before = (studentsBefore as { total: number }).total;
        const res = await app.http.post('/v1/students').set('Authorization', `Bearer ${key}`).send({ full_name: 'Alan Turing' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect((await get(app, '/students?limit=1')).total).toBe(before + 1);
      });

      it('q finds the copied people on PostgreSQL: their search text came along and its index is there', async () => {
        const copied = (studentsBefore as { items: Array<{ id: string; full_name: string }> }).items[0]!;
        const word = copied.full_name.split(' ').find((part) => part.length >= 3)!;
        const found = await get(app, `/students?q=${encodeURIComponent(word.toUpperCase())}&limit=200`);
        expect(found.items.map((student: { id: string }) => student.id)).toContain(copied.id);
      });
    });

    it('refuses to copy again into the now filled database', async () => {
      const message = cliFails(await runCliCaptured(dataDir, 'migrate-to', url), 'conflict');
      expect(message).toContain('not empty');
    });
  });
});

/** The pg driver returns BIGINT and DECIMAL as strings where SQLite's returns numbers: the values, not their JS types, must match. */
function normalized(model: ModelStatic<Model>, row: Record<string, unknown>): Record<string, unknown> {
  const numeric = Object.entries(model.getAttributes())
    .filter(([, attribute]) => ['BIGINT', 'DECIMAL'].includes((attribute.type as { key?: string }).key ?? ''))
    .map(([name]) => name);
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, numeric.includes(name) && typeof value === 'string' ? Number(value) : value]));
}
