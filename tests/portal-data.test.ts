// @tier integration
// @databases sqlite, postgres
/**
 * Portal institution data: students, faculty, groups, licenses, exams and
 * submissions, over HTTP against a real appliance (127.0.0.1, port 0, real SQLite file). What the
 * portal writes the API reads and the other way round, with the same errors and events; only
 * admins of an approved institution get in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { expectError, institutionApi, ok, portalRequests, setUpPortal, signedInMember, type FirstRun, type SignedIn } from './helpers/portal.js';

const ADMIN = { institution: 'Lakeside School', admin_email: 'admin@lakeside.test', admin_password: 'correct horse battery' };

/** Portal requests for one signed-in browser, rooted at one institution's data. */
const portalAs = (signed: () => SignedIn, institution: () => string) => portalRequests(signed, () => institutionApi(institution()));

describe('Portal: institution data', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let key: TestKey;
  const api = requestsAs(() => app);
  const portal = portalAs(
    () => admin,
    () => admin.institutionId,
  );

  /** Events of the institution since the test started, as /v1/events gives them. */
  async function eventsOf(type: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const page = ok<{ items: Array<{ type: string; data: Record<string, unknown> }> }>(await api.get(key, '/events', { type, limit: 200 }));
    return page.items;
  }

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    key = await makeKey(app, admin.institution);
  });
  afterAll(() => app.close());

  describe('students', () => {
    it('a student made in the portal is the one the API reads, with the same event; the personal email stays sealed', async () => {
      const created = ok(
        await portal.post('/students', { full_name: 'Ada Lovelace', student_id: 'S-100', personal_email: 'Ada.Family@Example.org', license_days: 30 }),
      );
      expect(created).toMatchObject({ id: expect.stringMatching(/^stu_/), full_name: 'Ada Lovelace', student_id: 'S-100', status: 'active' });
      expect(created.login_email).toMatch(/^ada\.lovelace@/);

      const viaApi = ok(await api.get(key, `/students/${created.id}`));
      expect(viaApi).toEqual(created);
      expect(ok(await portal.get(`/students/${created.login_email}`))).toEqual(created);

      // Sealed in the database; never in an answer, but the `email` filter finds it through the blind index.
      const row = await app.ctx.db.models.Person.findByPk(created.id);
      expect(JSON.stringify(row!.get())).not.toContain('ada.family@example.org');
      expect(JSON.stringify(created)).not.toContain('example.org');
      const byPersonalEmail = ok(await portal.get('/students', { email: 'ADA.FAMILY@example.org' }));
      expect(byPersonalEmail.items).toEqual([created]);

      const events = await eventsOf('student.created');
      const event = events.find((item) => item.data.student_id === created.id);
      expect(event).toBeDefined();
      expect(Object.keys(event!.data).sort()).toEqual(['license_id', 'student_id']);
      const license = ok(await api.get(key, `/licenses/${event!.data.license_id as string}`));
      expect(license).toMatchObject({ user_id: created.id, type: 'student', status: 'active' });
    });

    it('a student made through the API is found by portal search; the same event shape follows either door', async () => {
      const viaApi = ok(await api.post(key, '/students', { full_name: 'Alan Turing', student_id: 'S-200' }));
      const found = ok(await portal.get('/students', { student_id: 'S-200' }));
      expect(found).toMatchObject({ page: 1, limit: 50, total: 1, totalPages: 1 });
      expect(found.items).toEqual([viaApi]);
      expect(ok(await portal.get('/students', { email: viaApi.login_email.toUpperCase() })).items).toEqual([viaApi]);

      const events = (await eventsOf('student.created')).filter((item) => item.data.student_id === viaApi.id);
      expect(events).toHaveLength(1);
      expect(Object.keys(events[0]!.data).sort()).toEqual(['license_id', 'student_id']);

      // Paging as in /v1: page and limit, the same order.
      const paged = ok(await portal.get('/students', { limit: 1, page: 2 }));
      const apiPaged = ok(await api.get(key, '/students', { limit: 1, page: 2 }));
      expect(paged).toEqual(apiPaged);
      expect(paged.totalPages).toBeGreaterThanOrEqual(2);
    });

    it('updates, suspends and reactivates with the API events; errors carry the spec codes', async () => {
      const student = ok(await portal.post('/students', { full_name: 'Grace Brewster' }));
      const updated = ok(await portal.patch(`/students/${student.id}`, { full_name: 'Grace Murray', student_id: 'S-300', personal_email: 'gm@example.org' }));
      expect(updated).toMatchObject({ full_name: 'Grace Murray', student_id: 'S-300' });
      expect(ok(await api.get(key, `/students/${student.id}`))).toEqual(updated);
      const change = (await eventsOf('student.updated')).find((item) => item.data.student_id === student.id);
      // The personal email change is saved but never named in the event.
      expect(change!.data).toEqual({ student_id: student.id, changed: ['full_name', 'student_id'], status: 'active' });

      expect(ok(await portal.post(`/students/${student.id}/suspend`)).status).toBe('suspended');
      expect(ok(await portal.post(`/students/${student.id}/suspend`)).status).toBe('suspended');
      expect(ok(await api.get(key, `/students/${student.id}`)).status).toBe('suspended');
      expect(ok(await portal.get('/students', { status: 'suspended' })).items.map((s: { id: string }) => s.id)).toEqual([student.id]);
      expect(ok(await portal.post(`/students/${student.id}/reactivate`)).status).toBe('active');
      expect((await eventsOf('student.suspended')).filter((item) => item.data.student_id === student.id)).toHaveLength(1);
      expect((await eventsOf('student.reactivated')).filter((item) => item.data.student_id === student.id)).toHaveLength(1);

      expectError(await portal.post('/students', { student_id: 'S-999' }), 422, 'validation_error');
      expectError(await portal.post('/students', { full_name: 'X', license_days: 0 }), 422, 'validation_error');
      expectError(await portal.post('/students', { full_name: 'X', role: 'admin' }), 422, 'validation_error');
      expectError(await portal.post('/students', { full_name: 'X', personal_email: 'not-an-email' }), 422, 'validation_error');
      expectError(await portal.get('/students', { limit: 500 }), 422, 'validation_error');
      expectError(await portal.get('/students', { name: 'Ada' }), 422, 'validation_error');
      expectError(await portal.post('/students', { full_name: 'Another', student_id: 'S-300' }), 409, 'conflict');
      expectError(await portal.patch(`/students/${student.id}`, { student_id: 'S-100' }), 409, 'conflict');
      expectError(await portal.get('/students/stu_doesNotExist'), 404, 'not_found');
      expectError(await portal.post('/students/stu_doesNotExist/suspend'), 404, 'not_found');

      // Bulk: each item on its own, as POST /v1/students/bulk.
      const bulk = ok(
        await portal.post('/students/bulk', {
          students: [{ full_name: 'Bulk One', student_id: 'B-1' }, { full_name: '' }, { full_name: 'Dup', student_id: 'S-300' }],
        }),
      );
      expect(bulk).toMatchObject({ created: 1, failed: 2 });
      expect(bulk.results[1]).toMatchObject({ index: 1, error: 'validation_error' });
      expect(bulk.results[2]).toMatchObject({ index: 2, error: 'conflict' });
    });
  });

  describe('faculty', () => {
    it('creates, lists, reads and updates faculty as the API does', async () => {
      const teacher = ok(await portal.post('/faculty', { full_name: 'Barbara Liskov', faculty_id: 'F-1' }));
      expect(teacher).toMatchObject({ id: expect.stringMatching(/^fac_/), faculty_id: 'F-1', status: 'active' });
      expect(ok(await api.get(key, `/faculty/${teacher.login_email}`))).toEqual(teacher);
      expect(ok(await portal.get('/faculty', { email: teacher.login_email })).items).toEqual([teacher]);
      const created = (await eventsOf('faculty.created')).find((item) => item.data.faculty_id === teacher.id);
      expect(Object.keys(created!.data).sort()).toEqual(['faculty_id', 'license_id']);

      const suspended = ok(await portal.patch(`/faculty/${teacher.id}`, { status: 'suspended' }));
      expect(suspended.status).toBe('suspended');
      expect(ok(await api.get(key, `/faculty/${teacher.id}`)).status).toBe('suspended');
      expect((await eventsOf('faculty.updated')).find((item) => item.data.faculty_id === teacher.id)!.data).toEqual({
        faculty_id: teacher.id,
        changed: ['status'],
        status: 'suspended',
      });
      ok(await portal.patch(`/faculty/${teacher.id}`, { status: 'active' }));

      const viaApi = ok(await api.post(key, '/faculty', { full_name: 'Edsger Dijkstra' }));
      expect(ok(await portal.get(`/faculty/${viaApi.id}`))).toEqual(viaApi);
      expect(ok(await portal.get(`/faculty/${viaApi.id}/exams`)).items).toEqual([]);

      // A student is not a faculty member, on either door.
      const student = ok(await portal.post('/students', { full_name: 'Not A Teacher' }));
      expectError(await portal.get(`/faculty/${student.id}`), 404, 'not_found');
      expectError(await portal.post('/faculty', { full_name: 'Dup', faculty_id: 'F-1' }), 409, 'conflict');
      expectError(await portal.patch(`/faculty/${teacher.id}`, { status: 'retired' }), 422, 'validation_error');
    });
  });

  describe('groups', () => {
    it('a group made in the portal is listed by the API; members are added and removed with the same rules and events', async () => {
      const teacher = ok(await portal.post('/faculty', { full_name: 'Donald Knuth' }));
      const a = ok(await portal.post('/students', { full_name: 'Group Member A' }));
      const b = ok(await api.post(key, '/students', { full_name: 'Group Member B' }));
      const c = ok(await portal.post('/students', { full_name: 'Group Member C' }));

      expectError(await portal.post('/groups', { name: 'No owner' }), 422, 'no_owner');
      expectError(await portal.post('/groups', { name: 'Bad owner', faculty_id: a.id }), 422, 'invalid_faculty');
      expectError(await portal.post('/groups', { name: 'Nobody', faculty_id: teacher.id, student_ids: ['stu_nope'] }), 422, 'no_valid_students');
      expectError(await portal.post('/groups', { faculty_id: teacher.id }), 422, 'validation_error');

      const group = ok(
        await portal.post('/groups', { name: 'Algorithms – Section A', faculty_id: teacher.login_email, student_ids: [a.id, b.login_email, 'stu_nope'] }),
      );
      expect(group).toMatchObject({ name: 'Algorithms – Section A', faculty_id: teacher.id, student_count: 2, rejected_student_ids: ['stu_nope'] });
      const { rejected_student_ids: _rejected, ...plain } = group;
      expect(ok(await api.get(key, '/groups', { q: 'algorithms' })).items).toEqual([plain]);
      expect(ok(await portal.get('/groups', { q: 'ALGO' })).items).toEqual([plain]);
      expect(ok(await portal.get('/groups', { faculty_id: teacher.id })).items).toEqual([plain]);
      expect((await eventsOf('group.created')).find((item) => item.data.group_id === group.id)!.data).toEqual({
        group_id: group.id,
        faculty_id: teacher.id,
        student_count: 2,
      });

      const added = ok(await portal.post(`/groups/${group.id}/members`, { student_ids: [c.id, a.id] }));
      expect(added).toMatchObject({ added: [c.id], student_count: 3, rejected_student_ids: [] });
      expectError(await portal.post(`/groups/${group.id}/members`, { student_ids: [c.id] }), 409, 'already_added');
      expectError(await portal.post(`/groups/${group.id}/members`, { student_ids: [] }), 422, 'validation_error');

      const removed = ok(await portal.del(`/groups/${group.id}/members/${a.login_email}`));
      expect(removed.student_count).toBe(2);
      expectError(await portal.del(`/groups/${group.id}/members/${a.id}`), 404, 'not_found');

      const detail = ok(await portal.get(`/groups/${group.id}`));
      expect(detail).toEqual(ok(await api.get(key, `/groups/${group.id}`)));
      expect(detail.members.map((m: { id: string }) => m.id)).toEqual([b.id, c.id]);
      expect(Object.keys(detail.members[0]).sort()).toEqual(['added_at', 'full_name', 'id', 'login_email', 'status']);
      expect(
        ok(await portal.get('/students', { group_id: group.id }))
          .items.map((s: { id: string }) => s.id)
          .sort(),
      ).toEqual([b.id, c.id].sort());

      const memberships = (await eventsOf('group.updated')).filter((item) => item.data.group_id === group.id);
      expect(memberships.map((item) => item.data)).toEqual([
        { group_id: group.id, changed: ['members'], student_count: 3 },
        { group_id: group.id, changed: ['members'], student_count: 2 },
      ]);

      const renamed = ok(await portal.patch(`/groups/${group.id}`, { name: 'Algorithms – A' }));
      expect(renamed.name).toBe('Algorithms – A');
      expectError(await portal.patch(`/groups/${group.id}`, { faculty_id: null }), 422, 'no_owner');

      expect(ok(await portal.del(`/groups/${group.id}`))).toEqual({ id: group.id, deleted: true });
      expectError(await api.get(key, `/groups/${group.id}`), 404, 'not_found');
      expectError(await portal.get(`/groups/${group.id}`), 404, 'not_found');
    });
  });

  describe('licenses', () => {
    it('lists, summarizes, extends and revokes the licenses the API sees, with its events', async () => {
      const student = ok(await portal.post('/students', { full_name: 'Licensed Student', license_days: 10 }));
      const listed = ok(await portal.get('/licenses', { user_id: student.login_email }));
      expect(listed.items).toHaveLength(1);
      const license = listed.items[0];
      expect(license).toMatchObject({ user_id: student.id, type: 'student', status: 'active', revoked_at: null });
      expect(ok(await api.get(key, `/licenses/${license.id}`))).toEqual(license);
      expect(ok(await portal.get(`/licenses/${license.id}`))).toEqual(license);

      const summary = ok(await portal.get('/licenses/summary'));
      expect(summary).toEqual(ok(await api.get(key, '/licenses/summary')));
      expect(summary.by_type.student.active).toBeGreaterThan(0);
      expect(ok(await portal.get('/licenses', { type: 'faculty', status: 'revoked' })).total).toBe(0);

      const extended = ok(await portal.post(`/licenses/${license.id}/extend`, { days: 5 }));
      expect(Date.parse(extended.expires_at) - Date.parse(license.expires_at)).toBe(5 * 24 * 60 * 60 * 1000);
      expect((await eventsOf('license.extended')).find((item) => item.data.license_id === license.id)).toBeDefined();
      expectError(await portal.post(`/licenses/${license.id}/extend`, {}), 422, 'validation_error');
      expectError(await portal.post(`/licenses/${license.id}/extend`, { expires_at: '2001-01-01T00:00:00.000Z' }), 422, 'validation_error');

      expect(ok(await portal.get(`/licenses/${license.id}/devices`))).toEqual({ items: [] });
      const revoked = ok(await portal.post(`/licenses/${license.id}/revoke`, { reason: 'left the school' }));
      expect(revoked).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      expect(JSON.stringify(revoked)).not.toContain('left the school');
      expect(ok(await api.get(key, `/licenses/${license.id}`)).status).toBe('revoked');
      expectError(await portal.post(`/licenses/${license.id}/revoke`, {}), 409, 'conflict');
      expectError(await portal.get('/licenses/lic_doesNotExist'), 404, 'not_found');
      expectError(await portal.get('/licenses', { expires_before: 'tomorrow' }), 422, 'validation_error');
    });
  });

  describe('exams and submissions', () => {
    it('browses exams and submissions made through the API and grades in the portal with the API event', async () => {
      const teacher = ok(await api.post(key, '/faculty', { full_name: 'Frances Allen' }));
      const student = ok(await api.post(key, '/students', { full_name: 'Exam Taker' }));
      const group = ok(await api.post(key, '/groups', { name: 'Compilers', faculty_id: teacher.id, student_ids: [student.id] }));
      const exam = ok(
        await api.post(key, '/exams', {
          faculty_id: teacher.id,
          title: 'Parsing quiz',
          exam_type: 'quiz',
          max_score: 20,
          publish: true,
          group_ids: [group.id],
        }),
      );
      const draft = ok(await api.post(key, '/exams', { faculty_id: teacher.id, title: 'Codegen draft' }));

      // Browse and search with the API's filters and presenters.
      expect(ok(await portal.get('/exams', { q: 'PARSING' })).items).toEqual([exam]);
      expect(ok(await portal.get('/exams', { status: 'draft' })).items).toEqual([draft]);
      expect(ok(await portal.get('/exams', { faculty_id: teacher.login_email })).total).toBe(2);
      const detail = ok(await portal.get(`/exams/${exam.id}`));
      expect(detail).toEqual(ok(await api.get(key, `/exams/${exam.id}`)));
      expect(detail).toMatchObject({ groups: [{ id: group.id, name: 'Compilers', student_count: 1 }], stats: { assigned_students: 1, submissions: 0 } });
      expect(ok(await portal.get(`/faculty/${teacher.id}/exams`)).items.map((e: { id: string }) => e.id)).toEqual([exam.id, draft.id]);
      expectError(await portal.get('/exams', { status: 'archived' }), 422, 'validation_error');
      expectError(await portal.get('/exams/exm_doesNotExist'), 404, 'not_found');

      // The student takes the exam through the learner side: launch, a device seat, attempt, submit.
      const minted = ok(await api.post(key, '/sso/tokens', { email: student.login_email, app: 'learning', redirect: `exam:${exam.id}`, ttl_seconds: 60 }));
      const token = new URL(minted.launch_url).searchParams.get('token');
      const exchanged = ok(await app.http.post('/v1/sso/exchange').send({ token, device: { id: 'taker-laptop', name: 'Taker laptop' } }));
      const session = `Bearer ${exchanged.session_token}`;
      const attempt = ok(await app.http.post(`/v1/app/exams/${exam.id}/attempts`).set('Authorization', session).send({}));
      const submitted = ok(
        await app.http
          .post(`/v1/app/attempts/${attempt.id}/submit`)
          .set('Authorization', session)
          .send({ answers: { q1: 'LL(1)' } }),
      );

      const listed = ok(await portal.get('/submissions', { exam_id: exam.id }));
      expect(listed).toEqual(ok(await api.get(key, '/submissions', { exam_id: exam.id })));
      expect(listed.items).toEqual([expect.objectContaining({ id: submitted.id, student_id: student.id, status: 'submitted', score: null })]);
      expect(ok(await portal.get('/submissions', { student_id: student.login_email, status: 'submitted' })).items).toEqual(listed.items);
      expect(ok(await portal.get('/submissions', { status: 'graded', exam_id: exam.id })).items).toEqual([]);
      expect(ok(await portal.get(`/students/${student.id}/exams`)).items).toEqual([
        { exam: expect.objectContaining({ id: exam.id }), submission: { id: submitted.id, status: 'submitted', score: null } },
      ]);
      const full = ok(await portal.get(`/submissions/${submitted.id}`));
      expect(full).toMatchObject({ id: submitted.id, answers: { q1: 'LL(1)' }, attachments: [], recordings: [], proctoring: { total: 0 } });
      expect(ok(await portal.get(`/submissions/${submitted.id}/events`))).toMatchObject({ attempt: { id: attempt.id }, items: [] });

      // The seat the launch took is the license's device.
      const license = ok(await portal.get('/licenses', { user_id: student.id })).items[0];
      const seats = ok(await portal.get(`/licenses/${license.id}/devices`)).items;
      expect(seats).toEqual([expect.objectContaining({ app: 'learning', device_name: 'Taker laptop', status: 'active' })]);
      expect(ok(await portal.post(`/licenses/${license.id}/devices/${seats[0].seat_id}/revoke`)).status).toBe('revoked');

      // Grading: the API's range rule and event.
      expectError(await portal.post(`/submissions/${submitted.id}/grade`, { score: 21 }), 422, 'validation_error');
      expectError(await portal.post(`/submissions/${submitted.id}/grade`, { feedback: 'no score' }), 422, 'validation_error');
      const graded = ok(await portal.post(`/submissions/${submitted.id}/grade`, { score: 17.5, feedback: 'Good', graded_by: 'admin@lakeside.test' }));
      expect(graded).toMatchObject({ status: 'graded', score: 17.5, feedback: 'Good', graded_by: 'admin@lakeside.test' });
      expect(ok(await api.get(key, `/submissions/${submitted.id}`))).toMatchObject({ status: 'graded', score: 17.5 });
      const gradedEvents = (await eventsOf('exam.graded')).filter((item) => item.data.submission_id === submitted.id);
      expect(gradedEvents.map((item) => item.data)).toEqual([
        { submission_id: submitted.id, exam_id: exam.id, student_id: student.id, score: 17.5, max_score: 20, status: 'graded' },
      ]);
      expect(ok(await portal.get(`/exams/${exam.id}/scores`))).toEqual(ok(await api.get(key, `/exams/${exam.id}/scores`)));

      expect(ok(await portal.post(`/submissions/${submitted.id}/void`, { reason: 'integrity review' })).status).toBe('voided');
      expectError(await portal.post(`/submissions/${submitted.id}/void`, {}), 409, 'void_failed');
      expectError(await portal.post(`/submissions/${submitted.id}/grade`, { score: 10 }), 409, 'conflict');
      expect((await eventsOf('submission.voided')).filter((item) => item.data.submission_id === submitted.id)).toHaveLength(1);
      expectError(await portal.get('/submissions/sub_doesNotExist'), 404, 'not_found');
    });
  });

  describe('who may', () => {
    const AREAS = ['/students', '/faculty', '/groups', '/licenses', '/licenses/summary', '/exams', '/submissions'];

    it('a developer acts with the scopes of the role: admin-only areas refused, reads and writes alike', async () => {
      const developer = await signedInMember(app, admin.institutionId, 'developer');
      const dev = portalAs(
        () => developer,
        () => admin.institutionId,
      );
      // The areas a developer's key could reach are theirs in the portal too; licenses are the admins'.
      for (const area of AREAS) {
        if (area.startsWith('/licenses')) expectError(await dev.get(area), 403, 'forbidden');
        else ok(await dev.get(area));
      }
      const anyLicense = ok(await portal.get('/licenses', { limit: 1 })).items[0];
      expectError(await dev.get(`/licenses/${anyLicense.id}`), 403, 'forbidden');
      // Refused before the body is looked at.
      expectError(await dev.post(`/licenses/${anyLicense.id}/revoke`, { nonsense: true }), 403, 'forbidden');
      expectError(await dev.post(`/licenses/${anyLicense.id}/revoke`, {}), 403, 'forbidden');
      expect(ok(await portal.get(`/licenses/${anyLicense.id}`)).status).not.toBe('revoked');
      expectError(await dev.put('/institution/config', {}), 403, 'forbidden');
      // A write within the role's scopes goes through the same operation.
      const made = ok(await dev.post('/students', { full_name: 'Developer Made' }));
      expect(ok(await portal.get(`/students/${made.id}`)).full_name).toBe('Developer Made');

      // The keys page is theirs as well.
      ok(await developer.agent.get(`/portal/api/institutions/${admin.institutionId}/keys`));
    });

    it('another institution is 404 to this admin, and its rows cannot be reached through this one', async () => {
      const other = await makeInstitution(app, { name: 'Hilltop Academy' });
      const otherKey = await makeKey(app, other);
      const theirStudent = ok(await api.post(otherKey, '/students', { full_name: 'Hilltop Pupil' }));
      const foreign = portalAs(
        () => admin,
        () => other.id,
      );
      for (const area of AREAS) expectError(await foreign.get(area), 404, 'not_found');
      expectError(await foreign.post('/students', { full_name: 'Intruder' }), 404, 'not_found');
      expectError(await portal.get(`/students/${theirStudent.id}`), 404, 'not_found');
      expectError(await portal.patch(`/students/${theirStudent.id}`, { full_name: 'Renamed' }), 404, 'not_found');
      expect(ok(await portal.get('/students', { email: theirStudent.login_email })).items).toEqual([]);
      expect(ok(await api.get(otherKey, `/students/${theirStudent.id}`)).full_name).toBe('Hilltop Pupil');
    });

    it('an institution awaiting approval keeps its data closed, as its API keys do', async () => {
      const pending = await makeInstitution(app, { name: 'Pending Prep', status: 'pending' });
      const pendingAdmin = await signedInMember(app, pending.id, 'admin');
      const waiting = portalAs(
        () => pendingAdmin,
        () => pending.id,
      );
      for (const area of AREAS) expectError(await waiting.get(area), 403, 'institution_not_approved');
      expectError(await waiting.post('/students', { full_name: 'Too Early' }), 403, 'institution_not_approved');
      // Keys remain available to prepare the integration.
      ok(await pendingAdmin.agent.get(`/portal/api/institutions/${pending.id}/keys`));
    });

    it('needs a session and, for writes, the CSRF token', async () => {
      expectError(await app.http.get(`/portal/api/institutions/${admin.institutionId}/students`), 401, 'unauthorized');
      expectError(await admin.agent.post(`/portal/api/institutions/${admin.institutionId}/students`).send({ full_name: 'No Token' }), 403, 'forbidden');
      expect(await app.ctx.db.models.Person.count({ where: { full_name: 'No Token' } })).toBe(0);
    });
  });
});
