// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from '../../../tests/helpers/appliance.js';

const PERSONAL = 'Ada.Family@Example.ORG';

describe('students', () => {
  let app: TestAppliance;
  let school: TestInstitution;
  let key: TestKey;

  const post = (path: string, body: unknown, auth = key.auth) =>
    app.http
      .post(`/v1${path}`)
      .set('Authorization', auth)
      .send(body as object);
  const get = (path: string, auth = key.auth) => app.http.get(`/v1${path}`).set('Authorization', auth);

  /** Every event about one student since `since`, read page by page (other tests' bulk calls make hundreds). */
  async function eventsAbout(studentId: string, since: string, type?: string) {
    const found: Array<{ type: string; data: Record<string, unknown> }> = [];
    for (let cursor = since; ;) {
      const page = (await get(`/events?since=${cursor}&limit=200${type ? `&type=${type}` : ''}`)).body.data;
      found.push(...page.items.filter((e: { data: { student_id?: string } }) => e.data.student_id === studentId));
      if (!page.has_more) return found;
      cursor = page.items.at(-1).created_at;
    }
  }
  const patch = (path: string, body: unknown, auth = key.auth) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', auth)
      .send(body as object);

  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeInstitution(app, { name: 'Riverside High' });
    key = await makeKey(app, school);
  });
  afterAll(() => app.close());

  describe('create', () => {
    it('generates a login email, grants a license and returns the person without the personal email', async () => {
      const res = await post('/students', { full_name: 'Ada Lovelace', student_id: 'S-100', personal_email: PERSONAL, license_days: 30 });
      expect(res.status).toBe(200);
      const student = res.body.data;
      expect(Object.keys(student).sort()).toEqual(['created_at', 'full_name', 'id', 'login_email', 'status', 'student_id', 'updated_at']);
      expect(student.id).toMatch(/^stu_[A-Za-z0-9]{24}$/);
      expect(student.login_email).toBe('ada.lovelace@riverside-high.campusbridge.local');
      expect(student).toMatchObject({ full_name: 'Ada Lovelace', student_id: 'S-100', status: 'active' });
      expect(student.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(JSON.stringify(res.body).toLowerCase()).not.toContain('family@example.org');

      const licenses = await school.tenant.licenses.findAll({ where: { user_id: student.id } });
      expect(licenses).toHaveLength(1);
      const days = (licenses[0]!.expires_at.getTime() - licenses[0]!.starts_at.getTime()) / 86_400_000;
      expect(days).toBeCloseTo(30, 5);
      expect(licenses[0]!.type).toBe('student');
    });

    it('defaults the license to 365 days and keeps login emails unique and stable', async () => {
      const first = await post('/students', { full_name: 'Émile Zola' });
      const second = await post('/students', { full_name: 'Emile Zola' });
      expect(first.body.data.login_email).toBe('emile.zola@riverside-high.campusbridge.local');
      expect(second.body.data.login_email).toBe('emile.zola2@riverside-high.campusbridge.local');
      const license = await school.tenant.licenses.findOne({ where: { user_id: first.body.data.id } });
      expect((license!.expires_at.getTime() - license!.starts_at.getTime()) / 86_400_000).toBeCloseTo(365, 5);

      const renamed = await patch(`/students/${first.body.data.id}`, { full_name: 'Émile Édouard Zola' });
      expect(renamed.body.data.full_name).toBe('Émile Édouard Zola');
      expect(renamed.body.data.login_email).toBe(first.body.data.login_email);
    });

    it('is not idempotent: the same body twice makes two students', async () => {
      const a = await post('/students', { full_name: 'Twin Person' });
      const b = await post('/students', { full_name: 'Twin Person' });
      expect(a.body.data.id).not.toBe(b.body.data.id);
    });

    it('refuses a taken student_id with 409 conflict, and bad input with 422 details', async () => {
      await post('/students', { full_name: 'Holder', student_id: 'DUP-1' });
      const dup = await post('/students', { full_name: 'Other', student_id: 'DUP-1' });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toBe('conflict');

      const cases: Array<[unknown, string]> = [
        [{}, 'full_name'],
        [{ full_name: '' }, 'full_name'],
        [{ full_name: 'x'.repeat(201) }, 'full_name'],
        [{ full_name: 'A', license_days: 0 }, 'license_days'],
        [{ full_name: 'A', license_days: 3651 }, 'license_days'],
        [{ full_name: 'A', personal_email: 'not-an-email' }, 'personal_email'],
        [{ full_name: 'A', role: 'admin' }, 'role'],
      ];
      for (const [body, field] of cases) {
        const res = await post('/students', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
      }
    });
  });

  describe('bulk', () => {
    it('creates 200 in one call with per-item results', async () => {
      const students = Array.from({ length: 200 }, (_, i) => ({ full_name: `Bulk Learner ${i}`, student_id: `B-${i}` }));
      const res = await post('/students/bulk', { students });
      expect(res.status).toBe(200);
      expect(res.body.data.results).toHaveLength(200);
      expect(res.body.data.created).toBe(200);
      expect(res.body.data.results[199]).toMatchObject({ index: 199, id: expect.stringMatching(/^stu_/), login_email: expect.any(String) });
      const logins = new Set(res.body.data.results.map((r: { login_email: string }) => r.login_email));
      expect(logins.size).toBe(200);
    });

    it('refuses 201 items as a whole and writes nothing', async () => {
      const before = await school.tenant.people.count({ where: { role: 'student' } });
      const students = Array.from({ length: 201 }, (_, i) => ({ full_name: `Too Many ${i}` }));
      const res = await post('/students/bulk', { students });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      expect(await school.tenant.people.count({ where: { role: 'student' } })).toBe(before);
    });

    it('reports bad items without sinking the good ones', async () => {
      const res = await post('/students/bulk', {
        students: [
          { full_name: 'Good One', student_id: 'G-1' },
          { full_name: 'Dup In Batch', student_id: 'G-1' },
          { student_id: 'no-name' },
          'not an object',
          { full_name: 'Good Two', personal_email: PERSONAL },
          { full_name: 'Extra', unknown_field: true },
        ],
      });
      expect(res.status).toBe(200);
      const results = res.body.data.results;
      expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(results[0].id).toMatch(/^stu_/);
      expect(results[1]).toMatchObject({ error: 'conflict' });
      expect(results[2]).toMatchObject({ error: 'validation_error' });
      expect(results[2].message).toContain('full_name');
      expect(results[3]).toMatchObject({ error: 'validation_error' });
      expect(results[4].id).toMatch(/^stu_/);
      expect(results[5]).toMatchObject({ error: 'validation_error' });
      expect(results[5].message).toContain('unknown_field');
      expect(res.body.data).toMatchObject({ created: 2, failed: 4 });
      expect(JSON.stringify(res.body).toLowerCase()).not.toContain('family@example.org');
      // Failed items left nothing behind.
      expect(await school.tenant.people.count({ where: { external_id: 'G-1' } })).toBe(1);
    });

    it('gives same-named students of one call the next free addresses, lists them in call order, and announces each', async () => {
      const before = (await post('/students', { full_name: 'Marie Curie' })).body.data;
      expect(before.login_email).toBe('marie.curie@riverside-high.campusbridge.local');
      const res = await post('/students/bulk', {
        students: [{ full_name: 'Marie Curie' }, { full_name: 'Pierre Curie' }, { full_name: 'Marie  CURIE' }, { full_name: 'Marie Curie' }],
      });
      const results = res.body.data.results as Array<{ id: string; login_email: string }>;
      expect(results.map((r) => r.login_email.split('@')[0])).toEqual(['marie.curie2', 'pierre.curie', 'marie.curie3', 'marie.curie4']);

      const listed = await get('/students?limit=200&page=1');
      const lastPage = listed.body.data.totalPages;
      const tail = lastPage > 1 ? (await get(`/students?limit=200&page=${lastPage}`)).body.data.items : listed.body.data.items;
      expect(tail.slice(-4).map((s: { id: string }) => s.id)).toEqual(results.map((r) => r.id));
      const created = new Set(results.map((r) => r.id));
      const events = await eventsAbout(results[3]!.id, new Date(Date.now() - 60_000).toISOString(), 'student.created');
      expect(events).toHaveLength(1);
      expect(created.has(events[0]!.data.student_id as string)).toBe(true);
    });

    it('needs a non-empty students array', async () => {
      expect((await post('/students/bulk', { students: [] })).status).toBe(422);
      expect((await post('/students/bulk', {})).status).toBe(422);
    });
  });

  describe('read and list', () => {
    let ada: { id: string; login_email: string };
    beforeAll(async () => {
      ada = (await post('/students', { full_name: 'Listed Ada', student_id: 'L-1', personal_email: 'listed.family@example.org' })).body.data;
      const other = (await post('/students', { full_name: 'Listed Other', student_id: 'L-2' })).body.data;
      await post(`/students/${other.id}/suspend`, {});
    });

    it('gets by id and by login email, case-insensitively', async () => {
      const byId = await get(`/students/${ada.id}`);
      const byEmail = await get(`/students/${encodeURIComponent(ada.login_email.toUpperCase())}`);
      expect(byId.status).toBe(200);
      expect(byEmail.body.data).toEqual(byId.body.data);
      expect((await get('/students/stu_doesnotexist0000000000000')).status).toBe(404);
      expect((await get('/students/nobody@riverside-high.campusbridge.local')).body.error).toBe('not_found');
    });

    it('filters by email (login or personal, case-insensitive), status and student_id', async () => {
      const byPersonal = await get('/students?email=LISTED.Family@Example.org');
      expect(byPersonal.body.data.items.map((s: { id: string }) => s.id)).toEqual([ada.id]);
      const byLogin = await get(`/students?email=${encodeURIComponent(ada.login_email)}`);
      expect(byLogin.body.data.items.map((s: { id: string }) => s.id)).toEqual([ada.id]);
      expect((await get('/students?email=nobody@example.org')).body.data.total).toBe(0);

      const suspended = await get('/students?status=suspended&limit=200');
      expect(suspended.body.data.items.length).toBeGreaterThan(0);
      expect(suspended.body.data.items.every((s: { status: string }) => s.status === 'suspended')).toBe(true);
      expect((await get('/students?student_id=L-1')).body.data.items.map((s: { id: string }) => s.id)).toEqual([ada.id]);
      expect((await get('/students?status=gone')).status).toBe(422);
    });

    it('filters by group membership', async () => {
      const faculty = (await post('/faculty', { full_name: 'Group Owner' })).body.data;
      const member = (await post('/students', { full_name: 'Group Member' })).body.data;
      const { id: groupId } = await school.tenant.inTransaction((tx) =>
        tx.groups.create({ id: 'grp_filtertest000000000000000', name: 'G', description: '', faculty_id: faculty.id }),
      );
      await school.tenant.groupMembers.create({
        group_id: groupId,
        student_id: member.id,
        added_at: new Date(),
        student_created_at: new Date(member.created_at),
      });
      const res = await get(`/students?group_id=${groupId}`);
      expect(res.body.data.items.map((s: { id: string }) => s.id)).toEqual([member.id]);
      expect((await get('/students?group_id=grp_unknown')).body.data.total).toBe(0);
    });

    it('pages with total and totalPages', async () => {
      const res = await get('/students?page=2&limit=3');
      expect(res.status).toBe(200);
      const { page, limit, total, totalPages, items } = res.body.data;
      expect({ page, limit }).toEqual({ page: 2, limit: 3 });
      expect(items).toHaveLength(3);
      expect(totalPages).toBe(Math.ceil(total / 3));
      expect((await get('/students?limit=201')).status).toBe(422);
      expect((await get('/students?page=0')).status).toBe(422);
    });
  });

  describe('update, suspend, reactivate', () => {
    it('patches fields, clears student_id with null and refuses a taken one', async () => {
      const s = (await post('/students', { full_name: 'Patch Me', student_id: 'P-1' })).body.data;
      await post('/students', { full_name: 'Taken', student_id: 'P-2' });
      const res = await patch(`/students/${s.login_email}`, { full_name: 'Patched', student_id: null, personal_email: 'new.family@example.org' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ full_name: 'Patched', student_id: null });
      expect(JSON.stringify(res.body)).not.toContain('new.family');
      expect((await get('/students?email=new.family@example.org')).body.data.items[0].id).toBe(s.id);
      expect((await patch(`/students/${s.id}`, { student_id: 'P-2' })).status).toBe(409);
      expect((await patch(`/students/${s.id}`, { login_email: 'x@y.z' })).status).toBe(422);
      expect((await patch(`/students/${s.id}`, { status: 'suspended' })).body.data.status).toBe('suspended');
    });

    it('suspends and reactivates idempotently, with one event per change', async () => {
      const s = (await post('/students', { full_name: 'Status Flip' })).body.data;
      const since = new Date(Date.now() - 1000).toISOString();
      expect((await post(`/students/${s.id}/suspend`, {})).body.data.status).toBe('suspended');
      expect((await post(`/students/${s.id}/suspend`, {})).body.data.status).toBe('suspended');
      expect((await post(`/students/${s.login_email}/reactivate`, {})).body.data.status).toBe('active');
      expect((await post(`/students/${s.id}/reactivate`, {})).body.data.status).toBe('active');
      const events = await eventsAbout(s.id, since, 'student.*');
      expect(events.map((e: { type: string }) => e.type)).toEqual(['student.created', 'student.suspended', 'student.reactivated']);
      expect((await post('/students/stu_nope/suspend', {})).status).toBe(404);
      expect((await post(`/students/${s.id}/suspend`, { reason: 'x' })).status).toBe(422);
    });
  });

  describe('events and privacy', () => {
    it('emits student.created and student.updated with ids and changed field names only', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const s = (await post('/students', { full_name: 'Event Person', personal_email: 'event.family@example.org' })).body.data;
      await patch(`/students/${s.id}`, { full_name: 'Event Person Renamed', personal_email: 'event2.family@example.org' });
      await patch(`/students/${s.id}`, { personal_email: 'event3.family@example.org' });
      const events = await eventsAbout(s.id, since);
      expect(events.map((e: { type: string }) => e.type)).toEqual(['student.created', 'student.updated']);
      expect(events[0]!.data).toEqual({ student_id: s.id, license_id: expect.stringMatching(/^lic_/) });
      expect(events[1]!.data).toEqual({ student_id: s.id, changed: ['full_name'], status: 'active' });
      const text = JSON.stringify(events);
      expect(text).not.toContain('family@example.org');
      expect(text).not.toContain('Event Person');
    });

    it('never writes a personal email to the log or the database in clear', async () => {
      await post('/students', { full_name: 'Private Person', personal_email: 'Kept.Secret@Example.org' });
      await get('/students?email=kept.secret@example.org');
      expect(app.logText().toLowerCase()).not.toContain('kept.secret');
      const [rows] = await app.ctx.db.sequelize.query("SELECT * FROM people WHERE full_name = 'Private Person'");
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows).toLowerCase()).not.toContain('kept.secret');
    });
  });

  describe('scopes and tenancy', () => {
    it('needs students:read to read and students:write to change', async () => {
      const reader = await makeKey(app, school, { scopes: ['students:read'] });
      expect((await get('/students', reader.auth)).status).toBe(200);
      const denied = await post('/students', { full_name: 'Nope' }, reader.auth);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ error: 'insufficient_scope', required: ['students:write'], missing: ['students:write'] });
      const other = await makeKey(app, school, { scopes: ['faculty:write'] });
      expect((await get('/students', other.auth)).status).toBe(403);
    });

    it("answers 404 for another institution's students on every path", async () => {
      const mine = (await post('/students', { full_name: 'Mine Only', student_id: 'T-1' })).body.data;
      const rival = await makeInstitution(app, { name: 'Rival Academy' });
      const rivalKey = await makeKey(app, rival);
      const paths = [mine.id, mine.login_email];
      for (const ref of paths) {
        expect((await get(`/students/${ref}`, rivalKey.auth)).status).toBe(404);
        expect((await patch(`/students/${ref}`, { full_name: 'Hijack' }, rivalKey.auth)).status).toBe(404);
        expect((await post(`/students/${ref}/suspend`, {}, rivalKey.auth)).status).toBe(404);
        expect((await post(`/students/${ref}/reactivate`, {}, rivalKey.auth)).status).toBe(404);
      }
      const list = await get('/students?limit=200', rivalKey.auth);
      expect(list.body.data.total).toBe(0);
      expect((await get(`/students?email=${mine.login_email}`, rivalKey.auth)).body.data.total).toBe(0);
      // The same student_id is free in another institution.
      expect((await post('/students', { full_name: 'Rival T', student_id: 'T-1' }, rivalKey.auth)).status).toBe(200);
      expect((await get(`/students/${mine.id}`)).body.data.full_name).toBe('Mine Only');
    });
  });
});
