// @tier integration
// @databases sqlite, postgres
// `q` on GET /v1/students and /v1/faculty (docs/api.md#finding-people): part of a
// name, id or login e-mail, whatever its case and accents, served by a trigram index on each
// database (FTS5 on SQLite, pg_trgm on PostgreSQL). It combines with the other filters and with
// `sort`, follows renames, stays inside the institution, and refuses a query with nothing to
// search for in words. The migration fills the search text of people an older version stored.
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../server/db/index.js';
import { migrations } from '../server/db/migrations/index.js';
import { listPeople } from '../server/commands/people/list.js';
import { Tenant } from '../server/db/tenant.js';
import { dataDirDatabase, makeSchool, requestsAs, startTestAppliance, tempDataDirs, type TestAppliance, type TestKey } from './helpers/appliance.js';

interface WireStudent {
  id: string;
  login_email: string;
  full_name: string;
  student_id: string | null;
  status: string;
}

let app: TestAppliance;
let key: TestKey;
let otherKey: TestKey;
const { get, post, patch } = requestsAs(() => app);
const made = new Map<string, WireStudent>();

const STUDENTS: Array<[name: string, studentId: string | null]> = [
  ['Ingrid Sørensen', 'S-1042'],
  ['Søren Kierkegaard', 'S-2001'],
  ['José Dubois', 'S-3003'],
  ['Zoë Ångström', null],
  ['Bo Wu', 'S-4004'],
  ['Kwun Lee', 'S-5005'],
  ['Łukasz Dąbrowski', 'S-6006'],
];

/** The names a query finds among the students, sorted, every page read. */
async function namesFound(query: Record<string, string | number>, path = '/students', as = key): Promise<string[]> {
  const res = await get(as, path, { limit: 100, ...query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.total).toBe(res.body.data.items.length);
  return (res.body.data.items as WireStudent[]).map((person) => person.full_name).sort();
}

beforeAll(async () => {
  app = await startTestAppliance();
  ({ key } = await makeSchool(app));
  ({ key: otherKey } = await makeSchool(app));
  for (const [full_name, student_id] of STUDENTS) {
    const res = await post(key, '/students', student_id ? { full_name, student_id } : { full_name });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    made.set(full_name, res.body.data as WireStudent);
  }
  expect((await post(key, '/faculty', { full_name: 'Ingrid Teacher', faculty_id: 'T-100' })).status).toBe(200);
  // Another school's Ingrid Sørensen: never found by this school's key.
  expect((await post(otherKey, '/students', { full_name: 'Ingrid Sørensen', student_id: 'S-1042' })).status).toBe(200);
});

afterAll(async () => {
  await app?.close();
});

describe('q on the people lists', () => {
  it('finds "Ingrid Sørensen" by "sorens" and by "SØR", whatever the case and accents', async () => {
    expect(await namesFound({ q: 'sorens' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: 'SØR' })).toEqual(['Ingrid Sørensen', 'Søren Kierkegaard']);
    expect(await namesFound({ q: 'SØRENSEN' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: 'jose' })).toEqual(['José Dubois']);
    expect(await namesFound({ q: 'angstr' })).toEqual(['Zoë Ångström']);
    expect(await namesFound({ q: 'lukasz dabrow' })).toEqual(['Łukasz Dąbrowski']);
  });

  it('matches every word, in any order, and a word of 1 or 2 characters only at the start of a word', async () => {
    expect(await namesFound({ q: 'Sørensen, Ingrid' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: 'ingrid kierkegaard' })).toEqual([]);
    // "wu" starts a word of "Bo Wu"; it is inside "Kwun" but at no word's start there.
    expect(await namesFound({ q: 'wu' })).toEqual(['Bo Wu']);
    expect(await namesFound({ q: 'ingrid s' })).toEqual(['Ingrid Sørensen']);
  });

  it('finds by the student id and by the login e-mail, whole or in part', async () => {
    const ingrid = made.get('Ingrid Sørensen')!;
    expect(await namesFound({ q: 'S-1042' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: '1042' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: ingrid.login_email })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: ingrid.login_email.split('@')[0]!.toUpperCase() })).toEqual(['Ingrid Sørensen']);
    // The e-mail's domain is every student's: a query of it alone has nothing to search for.
    const domain = ingrid.login_email.split('@')[1]!;
    expect((await get(key, '/students', { q: `@${domain}` })).status).toBe(422);
  });

  it('combines with status, group, email and sort, and counts only the matches', async () => {
    const ingrid = made.get('Ingrid Sørensen')!;
    const soren = made.get('Søren Kierkegaard')!;
    expect((await post(key, `/students/${soren.id}/suspend`)).status).toBe(200);
    try {
      expect(await namesFound({ q: 'sor', status: 'suspended' })).toEqual(['Søren Kierkegaard']);
      expect(await namesFound({ q: 'sor', status: 'active' })).toEqual(['Ingrid Sørensen']);
    } finally {
      expect((await post(key, `/students/${soren.id}/reactivate`)).status).toBe(200);
    }
    const faculty = await get(key, '/faculty', { q: 'teacher' });
    const group = await post(key, '/groups', { name: 'Philosophy', faculty_id: faculty.body.data.items[0].id, student_ids: [soren.id, made.get('Bo Wu')!.id] });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    expect(await namesFound({ q: 'sor', group_id: group.body.data.id })).toEqual(['Søren Kierkegaard']);
    expect(await namesFound({ q: 'ingrid', group_id: group.body.data.id })).toEqual([]);
    expect(await namesFound({ q: 'sor', email: ingrid.login_email })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: 'wu', email: ingrid.login_email })).toEqual([]);

    const sorted = await get(key, '/students', { q: 'sor', sort: '-full_name' });
    expect(sorted.body.data.items.map((person: WireStudent) => person.full_name)).toEqual(['Søren Kierkegaard', 'Ingrid Sørensen']);
    const paged = await get(key, '/students', { q: 'sor', sort: 'full_name', limit: 1, page: 2 });
    expect(paged.body.data).toMatchObject({ total: 2, totalPages: 2, page: 2 });
    expect(paged.body.data.items.map((person: WireStudent) => person.full_name)).toEqual(['Søren Kierkegaard']);
  });

  it('keeps students and faculty apart, and each institution to itself', async () => {
    expect(await namesFound({ q: 'ingrid' })).toEqual(['Ingrid Sørensen']);
    expect(await namesFound({ q: 'ingrid' }, '/faculty')).toEqual(['Ingrid Teacher']);
    expect(await namesFound({ q: 'T-100' }, '/faculty')).toEqual(['Ingrid Teacher']);
    const other = await get(otherKey, '/students', { q: 'sorens' });
    expect(other.body.data.items.map((person: WireStudent) => person.id)).not.toContain(made.get('Ingrid Sørensen')!.id);
    expect(other.body.data.total).toBe(1);
  });

  it('follows a change of name or id', async () => {
    const dubois = made.get('José Dubois')!;
    const renamed = await patch(key, `/students/${dubois.id}`, { full_name: 'José Dupont', student_id: 'S-3999' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await namesFound({ q: 'dupont' })).toEqual(['José Dupont']);
    expect(await namesFound({ q: 'S-3003' })).toEqual([]);
    expect(await namesFound({ q: '3999' })).toEqual(['José Dupont']);
    // The login e-mail is the one made at creation (jose.dubois@…), and still finds them.
    expect(dubois.login_email).toMatch(/^jose\.dubois/);
    expect(await namesFound({ q: 'dubois' })).toEqual(['José Dupont']);
  });

  it('on SQLite, the index keeps one row per person however people go: an institution deleted takes its rows with it', async ({ skip }) => {
    const { sequelize, models } = app.ctx.db;
    if (sequelize.getDialect() !== 'sqlite') skip('PostgreSQL indexes people.search_text itself');
    const counts = async () =>
      (
        await sequelize.query<{ people: number; rows: number; indexed: number }>(
          'SELECT (SELECT count(*) FROM people) AS people, (SELECT count(*) FROM people_search_rows) AS rows, (SELECT count(*) FROM people_search) AS indexed',
          { type: QueryTypes.SELECT },
        )
      )[0]!;
    const leaving = await makeSchool(app);
    for (const name of ['Gone Sørensen', 'Gone Dubois']) expect((await post(leaving.key, '/students', { full_name: name })).status).toBe(200);
    const before = await counts();
    expect(before.rows).toBe(before.people);
    expect(before.indexed).toBe(before.people);
    // As a sandbox reset deletes its institution: the people go by cascade, their rows and FTS rows with them.
    await models.Institution.destroy({ where: { id: leaving.inst.id } });
    const after = await counts();
    expect(after.people).toBe(before.people - 2);
    expect(after).toEqual({ people: after.people, rows: after.people, indexed: after.people });
    expect(await namesFound({ q: 'gone' })).toEqual([]);
  });

  it('refuses, in words, a q with nothing to search for or too long', async () => {
    for (const q of ['a', ' ', '--', '@', 'x'.repeat(101)]) {
      const res = await get(key, '/students', { q });
      expect({ q, status: res.status, error: res.body.error }).toEqual({ q, status: 422, error: 'validation_error' });
      expect(JSON.stringify(res.body)).toMatch(/q/);
    }
    const short = await get(key, '/faculty', { q: 'x' });
    expect(short.status).toBe(422);
    expect(JSON.stringify(short.body)).toMatch(/at least 2 letters or digits of a name, faculty ID or login e-mail/);
  });
});

describe('the people-search migration on an older data folder', () => {
  const makeDataDir = tempDataDirs('campusbridge-people-search-');
  const FIRST = '20261206000000-people-search';
  const BEFORE = migrations[migrations.findIndex((migration) => migration.name === FIRST) - 1]!.name;

  it('fills the search text of the people already stored, so q finds them', async () => {
    const location = await dataDirDatabase(makeDataDir());
    const older = await connectDatabase(location, undefined, { migrateTo: BEFORE });
    const at = '2026-01-01 00:00:00.000 +00:00';
    await older.sequelize.query(
      `INSERT INTO institutions (id, name, status, config, email_domain, created_at, updated_at)
       VALUES ('inst_old', 'Old School', 'approved', '{}', 'old.campusbridge.local', :at, :at)`,
      { replacements: { at } },
    );
    // More than one batch of the migration (500), so the batches join up.
    for (let start = 0; start < 1_100; start += 100) {
      const rows = Array.from({ length: 100 }, (_, offset) => start + offset);
      await older.sequelize.query(
        `INSERT INTO people (id, institution_id, role, login_email, full_name, external_id, status, created_at, updated_at) VALUES ${rows
          .map(
            (n) =>
              `('stu_${String(n).padStart(5, '0')}', 'inst_old', 'student', 'learner${n}@old.campusbridge.local', 'Learner Nummer${n}', 'OLD-${n}', 'active', :at, :at)`,
          )
          .join(', ')}`,
        { replacements: { at } },
      );
    }
    await older.sequelize.query(
      `INSERT INTO people (id, institution_id, role, login_email, full_name, external_id, status, created_at, updated_at)
       VALUES ('stu_sorensen', 'inst_old', 'student', 'ingrid.sorensen@old.campusbridge.local', 'Ingrid Sørensen', NULL, 'active', :at, :at)`,
      { replacements: { at } },
    );
    await older.close();

    const db = await connectDatabase(location);
    try {
      expect(db.migrationsApplied).toContain(FIRST);
      const tenant = new Tenant(db, 'inst_old');
      const found = async (q: string) => (await listPeople(tenant, 'student', { page: 1, limit: 10, q })).items.map((person) => person.id);
      expect(await found('SØR')).toEqual(['stu_sorensen']);
      expect(await found('nummer1099')).toEqual(['stu_01099']);
      expect(await found('OLD-1099')).toEqual(['stu_01099']);
      expect((await listPeople(tenant, 'student', { page: 1, limit: 10, q: 'learner' })).total).toBe(1_100);
    } finally {
      await db.close();
    }
  });
});
