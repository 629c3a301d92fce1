// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from '../../../tests/helpers/appliance.js';

describe('faculty', () => {
  let app: TestAppliance;
  let school: TestInstitution;
  let key: TestKey;

  const post = (path: string, body: unknown, auth = key.auth) =>
    app.http
      .post(`/v1${path}`)
      .set('Authorization', auth)
      .send(body as object);
  const get = (path: string, auth = key.auth) => app.http.get(`/v1${path}`).set('Authorization', auth);
  const patch = (path: string, body: unknown, auth = key.auth) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', auth)
      .send(body as object);

  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeInstitution(app, { name: 'Hill School' });
    key = await makeKey(app, school);
  });
  afterAll(() => app.close());

  it('creates a faculty member with a login email and a faculty license', async () => {
    const res = await post('/faculty', { full_name: 'Grace Hopper', faculty_id: 'F-1', license_days: 90 });
    expect(res.status).toBe(200);
    const person = res.body.data;
    expect(Object.keys(person).sort()).toEqual(['created_at', 'faculty_id', 'full_name', 'id', 'login_email', 'status', 'updated_at']);
    expect(person).toMatchObject({
      full_name: 'Grace Hopper',
      faculty_id: 'F-1',
      status: 'active',
      login_email: 'grace.hopper@hill-school.campusbridge.local',
    });
    expect(person.id).toMatch(/^fac_/);
    const license = await school.tenant.licenses.findOne({ where: { user_id: person.id } });
    expect(license?.type).toBe('faculty');
    expect((license!.expires_at.getTime() - license!.starts_at.getTime()) / 86_400_000).toBeCloseTo(90, 5);
  });

  it('shares the login-email namespace with students', async () => {
    const student = (await post('/students', { full_name: 'Same Name' })).body.data;
    const teacher = (await post('/faculty', { full_name: 'Same Name' })).body.data;
    expect(teacher.login_email).not.toBe(student.login_email);
    // A student's id or login email is not a faculty member, and vice versa.
    expect((await get(`/faculty/${student.id}`)).status).toBe(404);
    expect((await get(`/faculty/${student.login_email}`)).status).toBe(404);
    expect((await get(`/students/${teacher.id}`)).status).toBe(404);
  });

  it('refuses bad input and taken faculty ids', async () => {
    expect((await post('/faculty', {})).body.details[0].path).toBe('full_name');
    expect((await post('/faculty', { full_name: 'X', personal_email: 'a@b.org' })).status).toBe(422);
    await post('/faculty', { full_name: 'First', faculty_id: 'F-DUP' });
    const dup = await post('/faculty', { full_name: 'Second', faculty_id: 'F-DUP' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
    // Faculty and student identifiers are separate namespaces.
    expect((await post('/students', { full_name: 'Student F', student_id: 'F-DUP' })).status).toBe(200);
  });

  it('reads by id or login email, lists with email and status filters', async () => {
    const t = (await post('/faculty', { full_name: 'Listed Teacher' })).body.data;
    expect((await get(`/faculty/${t.login_email}`)).body.data.id).toBe(t.id);
    const byEmail = await get(`/faculty?email=${t.login_email.toUpperCase()}`);
    expect(byEmail.body.data.items.map((f: { id: string }) => f.id)).toEqual([t.id]);

    await patch(`/faculty/${t.id}`, { status: 'suspended' });
    const suspended = await get('/faculty?status=suspended');
    expect(suspended.body.data.items.map((f: { id: string }) => f.id)).toContain(t.id);
    expect(suspended.body.data.items.every((f: { status: string }) => f.status === 'suspended')).toBe(true);
    const active = await get('/faculty?status=active&limit=200');
    expect(active.body.data.items.map((f: { id: string }) => f.id)).not.toContain(t.id);
    const all = await get('/faculty?limit=2');
    expect(all.body.data).toMatchObject({ page: 1, limit: 2 });
    expect(all.body.data.totalPages).toBe(Math.ceil(all.body.data.total / 2));
  });

  it('changes status only through PATCH and emits faculty events', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const t = (await post('/faculty', { full_name: 'Status Teacher', faculty_id: 'F-S' })).body.data;
    expect((await patch(`/faculty/${t.id}`, { status: 'suspended', faculty_id: null })).body.data).toMatchObject({ status: 'suspended', faculty_id: null });
    expect((await patch(`/faculty/${t.id}`, { status: 'active' })).body.data.status).toBe('active');
    expect((await patch(`/faculty/${t.id}`, { status: 'retired' })).status).toBe(422);
    expect((await post(`/faculty/${t.id}/suspend`, {})).status).toBe(404);
    const events = (await get(`/events?since=${since}&type=faculty.*`)).body.data.items.filter(
      (e: { data: { faculty_id?: string } }) => e.data.faculty_id === t.id,
    );
    expect(events.map((e: { type: string; data: { changed?: string[] } }) => [e.type, e.data.changed])).toEqual([
      ['faculty.created', undefined],
      ['faculty.updated', ['faculty_id', 'status']],
      ['faculty.updated', ['status']],
    ]);
  });

  it('needs faculty scopes and keeps institutions apart', async () => {
    const reader = await makeKey(app, school, { scopes: ['faculty:read'] });
    expect((await get('/faculty', reader.auth)).status).toBe(200);
    expect((await post('/faculty', { full_name: 'No' }, reader.auth)).body).toMatchObject({ error: 'insufficient_scope', missing: ['faculty:write'] });
    expect((await get('/faculty', (await makeKey(app, school, { scopes: ['students:write'] })).auth)).status).toBe(403);

    const t = (await post('/faculty', { full_name: 'Private Teacher' })).body.data;
    const rival = await makeInstitution(app);
    const rivalKey = await makeKey(app, rival);
    for (const ref of [t.id, t.login_email]) {
      expect((await get(`/faculty/${ref}`, rivalKey.auth)).status).toBe(404);
      expect((await patch(`/faculty/${ref}`, { full_name: 'Hijack' }, rivalKey.auth)).status).toBe(404);
    }
    expect((await get('/faculty', rivalKey.auth)).body.data.total).toBe(0);
  });
});
