// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../policies/scopes.js';
import {
  makeKey,
  makeSchool,
  readEvents,
  requestsAs,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const GROUP_FIELDS = ['created_at', 'description', 'faculty_id', 'id', 'name', 'student_count', 'updated_at'];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Person {
  id: string;
  login_email: string;
  full_name: string;
  status: string;
}

interface WireGroup {
  id: string;
  name: string;
  description: string;
  faculty_id: string;
  student_count: number;
  created_at: string;
  updated_at: string;
  [extra: string]: unknown;
}

describe('Groups', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  /** An institution with a key holding every scope and a separate webhooks:read key for the event stream. */
  type School = TestSchool & { eventsKey: TestKey };
  const school = () => makeSchool(app, { eventsKey: true });

  const { get, post, patch, del } = requestsAs(() => app);

  async function faculty(key: TestKey, fullName = 'Grace Hopper'): Promise<Person> {
    const res = await post(key, '/faculty', { full_name: fullName });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function student(key: TestKey, fullName = 'Ada Lovelace', extra: Record<string, unknown> = {}): Promise<Person> {
    const res = await post(key, '/students', { full_name: fullName, ...extra });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function suspendFaculty(key: TestKey, id: string) {
    const res = await patch(key, `/faculty/${id}`, { status: 'suspended' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('suspended');
  }

  async function createGroup(key: TestKey, body: Record<string, unknown>): Promise<WireGroup & { rejected_student_ids: string[] }> {
    const res = await post(key, '/groups', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  const groupEvents = (s: School) => readEvents(app, s.eventsKey, 'group.*');

  async function memberIds(key: TestKey, groupId: string): Promise<string[]> {
    const res = await get(key, `/groups/${groupId}`);
    expect(res.status).toBe(200);
    return res.body.data.members.map((member: Person) => member.id);
  }

  const expectError = (res: { status: number; body: Record<string, unknown> }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  describe('POST /v1/groups', () => {
    it('creates a group and returns exactly the Group object plus rejected_student_ids', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace');
      const alan = await student(s.key, 'Alan Turing');

      const res = await post(s.key, '/groups', {
        name: 'Physics 101',
        description: 'Room 12',
        faculty_id: teacher.id,
        student_ids: [ada.id, alan.login_email],
      });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual([...GROUP_FIELDS, 'rejected_student_ids'].sort());
      expect(data.id).toMatch(/^grp_[A-Za-z0-9]{24}$/);
      expect(data).toMatchObject({ name: 'Physics 101', description: 'Room 12', faculty_id: teacher.id, student_count: 2, rejected_student_ids: [] });
      expect(data.created_at).toMatch(ISO_MS);
      expect(data.updated_at).toMatch(ISO_MS);
      expect(Math.abs(Date.parse(data.created_at) - Date.now())).toBeLessThan(60_000);
      expect((await memberIds(s.key, data.id)).sort()).toEqual([ada.id, alan.id].sort());
    });

    it('takes the owner by login email, stores the internal id, and defaults description to ""', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const group = await createGroup(s.key, { name: 'Chemistry', faculty_id: teacher.login_email.toUpperCase() });
      expect(group.faculty_id).toBe(teacher.id);
      expect(group.description).toBe('');
      expect(group.student_count).toBe(0);
      expect(group.rejected_student_ids).toEqual([]);
    });

    it('skips ids that are not students of this institution and returns them as sent', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace');
      const alan = await student(s.key, 'Alan Turing');
      const group = await createGroup(s.key, {
        name: 'Mixed',
        faculty_id: teacher.id,
        // a student by id and by upper-cased login email (the same person), a teacher, an unknown id, an unknown email, a duplicate
        student_ids: [ada.id, ada.login_email.toUpperCase(), alan.id, teacher.id, 'stu_doesNotExist', 'nobody@example.org', alan.id],
      });
      expect(group.student_count).toBe(2);
      expect(group.rejected_student_ids).toEqual([teacher.id, 'stu_doesNotExist', 'nobody@example.org']);
      expect((await memberIds(s.key, group.id)).sort()).toEqual([ada.id, alan.id].sort());
    });

    it('accepts an empty student_ids list', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const group = await createGroup(s.key, { name: 'Empty', faculty_id: teacher.id, student_ids: [] });
      expect(group.student_count).toBe(0);
      expect(group.rejected_student_ids).toEqual([]);
    });

    it('answers 422 no_owner when faculty_id is missing or null, and creates nothing', async () => {
      const s = await school();
      const ada = await student(s.key);
      expectError(await post(s.key, '/groups', { name: 'Orphan', student_ids: [ada.id] }), 422, 'no_owner');
      expectError(await post(s.key, '/groups', { name: 'Orphan', faculty_id: null }), 422, 'no_owner');
      expect((await get(s.key, '/groups')).body.data.total).toBe(0);
      expect(await groupEvents(s)).toEqual([]);
    });

    it('answers 422 invalid_faculty for an unknown id or email, a student, or a suspended teacher', async () => {
      const s = await school();
      const ada = await student(s.key);
      const suspended = await faculty(s.key, 'Sus Pended');
      await suspendFaculty(s.key, suspended.id);
      for (const ref of ['fac_doesNotExist', 'nobody@example.org', ada.id, ada.login_email, suspended.id, suspended.login_email]) {
        expectError(await post(s.key, '/groups', { name: 'X', faculty_id: ref }), 422, 'invalid_faculty');
      }
      expect((await get(s.key, '/groups')).body.data.total).toBe(0);
    });

    it('answers 422 no_valid_students when a non-empty list has no student of this institution', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const res = await post(s.key, '/groups', { name: 'Nobody', faculty_id: teacher.id, student_ids: ['stu_nope', teacher.id] });
      expectError(res, 422, 'no_valid_students');
      expect(res.body.rejected_student_ids).toEqual(['stu_nope', teacher.id]);
      expect((await get(s.key, '/groups')).body.data.total).toBe(0);
      expect(await groupEvents(s)).toEqual([]);
    });

    it('answers 422 validation_error naming unknown fields and bad values', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const unknown = await post(s.key, '/groups', { name: 'X', faculty_id: teacher.id, owner: 'me' });
      expectError(unknown, 422, 'validation_error');
      expect(unknown.body.details).toContainEqual({ path: 'owner', message: 'Unknown field.' });

      const bad: Array<Record<string, unknown>> = [
        { faculty_id: teacher.id },
        { name: '', faculty_id: teacher.id },
        { name: 'x'.repeat(201), faculty_id: teacher.id },
        { name: 'X', description: 'd'.repeat(2001), faculty_id: teacher.id },
        { name: 'X', faculty_id: teacher.id, student_ids: 'stu_1' },
        { name: 'X', faculty_id: teacher.id, student_ids: Array.from({ length: 1001 }, (_, i) => `stu_${i}`) },
        { name: 'X', faculty_id: 42 },
      ];
      for (const body of bad) expectError(await post(s.key, '/groups', body), 422, 'validation_error');
      expect((await get(s.key, '/groups')).body.data.total).toBe(0);
    });

    it('accepts names of 200 characters and descriptions of 2000', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const group = await createGroup(s.key, { name: 'n'.repeat(200), description: 'd'.repeat(2000), faculty_id: teacher.id });
      expect(group.name).toHaveLength(200);
      expect(group.description).toHaveLength(2000);
    });

    it('emits group.created with ids and the student count only', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Eventful', faculty_id: teacher.login_email, student_ids: [ada.id, 'stu_nope'] });
      const events = await groupEvents(s);
      expect(events).toHaveLength(1);
      expect(events[0]!.type).toBe('group.created');
      expect(events[0]!.data).toEqual({ group_id: group.id, faculty_id: teacher.id, student_count: 1 });
    });
  });

  describe('GET /v1/groups', () => {
    it('lists groups with their student counts, paged', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const made: WireGroup[] = [];
      for (let i = 0; i < 5; i += 1) {
        made.push(await createGroup(s.key, { name: `Group ${i}`, faculty_id: teacher.id, student_ids: i === 2 ? [ada.id] : [] }));
      }
      const first = await get(s.key, '/groups', { limit: 2 });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ page: 1, limit: 2, total: 5, totalPages: 3 });
      expect(first.body.data.items.map((g: WireGroup) => g.id)).toEqual([made[0]!.id, made[1]!.id]);
      for (const item of first.body.data.items) expect(Object.keys(item).sort()).toEqual(GROUP_FIELDS);

      const second = await get(s.key, '/groups', { limit: 2, page: 2 });
      expect(second.body.data.items.map((g: WireGroup) => g.id)).toEqual([made[2]!.id, made[3]!.id]);
      expect(second.body.data.items.map((g: WireGroup) => g.student_count)).toEqual([1, 0]);

      const all = await get(s.key, '/groups');
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 5, totalPages: 1 });
      const { created_at: _c, updated_at: _u, rejected_student_ids: _r, ...expected } = made[2]!;
      expect(all.body.data.items[2]).toMatchObject({ ...expected, student_count: 1 });
    });

    it('filters by faculty_id given as id or login email; an unknown teacher gives an empty page', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const edsger = await faculty(s.key, 'Edsger Dijkstra');
      const g1 = await createGroup(s.key, { name: 'Grace A', faculty_id: grace.id });
      const g2 = await createGroup(s.key, { name: 'Grace B', faculty_id: grace.id });
      const e1 = await createGroup(s.key, { name: 'Edsger A', faculty_id: edsger.id });

      const byId = await get(s.key, '/groups', { faculty_id: grace.id });
      expect(byId.body.data.items.map((g: WireGroup) => g.id)).toEqual([g1.id, g2.id]);
      expect(byId.body.data.total).toBe(2);

      const byEmail = await get(s.key, '/groups', { faculty_id: edsger.login_email.toUpperCase() });
      expect(byEmail.body.data.items.map((g: WireGroup) => g.id)).toEqual([e1.id]);

      for (const unknown of ['fac_doesNotExist', 'nobody@example.org']) {
        const res = await get(s.key, '/groups', { faculty_id: unknown });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ items: [], page: 1, limit: 50, total: 0, totalPages: 0 });
      }
    });

    it('still lists the groups of a teacher who was suspended', async () => {
      const s = await school();
      const grace = await faculty(s.key);
      const g = await createGroup(s.key, { name: 'Kept', faculty_id: grace.id });
      await suspendFaculty(s.key, grace.id);
      const res = await get(s.key, '/groups', { faculty_id: grace.id });
      expect(res.body.data.items.map((item: WireGroup) => item.id)).toEqual([g.id]);
    });

    it('q matches a case-insensitive substring of the name', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const physics = await createGroup(s.key, { name: 'Advanced PHYSICS', faculty_id: teacher.id });
      const astro = await createGroup(s.key, { name: 'astrophysics lab', faculty_id: teacher.id });
      await createGroup(s.key, { name: 'Chemistry', faculty_id: teacher.id });
      const aerzte = await createGroup(s.key, { name: 'Ärzte KURS', faculty_id: teacher.id });
      const res = await get(s.key, '/groups', { q: 'PhYsIcS' });
      expect(res.body.data.items.map((g: WireGroup) => g.id)).toEqual([physics.id, astro.id]);
      expect(res.body.data.total).toBe(2);
      expect((await get(s.key, '/groups', { q: 'biology' })).body.data.total).toBe(0);
      // Non-ASCII text typed as stored matches; its ASCII part still folds case.
      for (const q of ['Ärzte', 'ÄRZTE kurs', 'Ärzte Kurs']) {
        expect(
          (await get(s.key, '/groups', { q })).body.data.items.map((g: WireGroup) => g.id),
          q,
        ).toEqual([aerzte.id]);
      }
    });

    it('q treats %, _ and \\ literally', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const percent = await createGroup(s.key, { name: '100% attendance', faculty_id: teacher.id });
      const plain = await createGroup(s.key, { name: '100 attendance', faculty_id: teacher.id });
      const underscore = await createGroup(s.key, { name: 'lab_a', faculty_id: teacher.id });
      const labxa = await createGroup(s.key, { name: 'labXa', faculty_id: teacher.id });
      const backslash = await createGroup(s.key, { name: 'C:\\course', faculty_id: teacher.id });
      const quote = await createGroup(s.key, { name: "O'Brien's class", faculty_id: teacher.id });

      const ids = async (q: string) => (await get(s.key, '/groups', { q })).body.data.items.map((g: WireGroup) => g.id);
      expect(await ids('%')).toEqual([percent.id]);
      expect(await ids('0% a')).toEqual([percent.id]);
      expect(await ids('_')).toEqual([underscore.id]);
      expect(await ids('LAB_A')).toEqual([underscore.id]);
      expect(await ids('\\')).toEqual([backslash.id]);
      expect(await ids('c:\\c')).toEqual([backslash.id]);
      // Without the filter all six are there, so the narrow answers above come from q.
      expect(await ids("o'brien")).toEqual([quote.id]);
      expect(await ids("'; DROP TABLE groups; --")).toEqual([]);
      expect(await ids('')).toEqual([percent.id, plain.id, underscore.id, labxa.id, backslash.id, quote.id]);
      expect(await ids('attendance')).toEqual([percent.id, plain.id]);
    });

    it('combines faculty_id and q', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const edsger = await faculty(s.key, 'Edsger Dijkstra');
      const mine = await createGroup(s.key, { name: 'Math A', faculty_id: grace.id });
      await createGroup(s.key, { name: 'Math B', faculty_id: edsger.id });
      await createGroup(s.key, { name: 'Art', faculty_id: grace.id });
      const res = await get(s.key, '/groups', { faculty_id: grace.login_email, q: 'math' });
      expect(res.body.data.items.map((g: WireGroup) => g.id)).toEqual([mine.id]);
    });

    it('filters by student_id given as id or login email, with the counts of the whole group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace');
      const alan = await student(s.key, 'Alan Turing');
      const both = await createGroup(s.key, { name: 'Both', faculty_id: teacher.id, student_ids: [ada.id, alan.id] });
      await createGroup(s.key, { name: 'Alan only', faculty_id: teacher.id, student_ids: [alan.id] });
      const adas = await createGroup(s.key, { name: 'Ada only', faculty_id: teacher.id, student_ids: [ada.id] });

      const byId = await get(s.key, '/groups', { student_id: ada.id, sort: 'name' });
      expect(byId.body.data.items.map((g: WireGroup) => [g.id, g.student_count])).toEqual([
        [adas.id, 1],
        [both.id, 2],
      ]);
      const byEmail = await get(s.key, '/groups', { student_id: ada.login_email.toUpperCase(), q: 'both' });
      expect(byEmail.body.data.items.map((g: WireGroup) => g.id)).toEqual([both.id]);

      // A teacher's id is not a student's; neither is an unknown one; a student in no group has none.
      const loner = await student(s.key, 'Grace Loner');
      for (const ref of [teacher.id, 'stu_doesNotExist', loner.id]) {
        const res = await get(s.key, '/groups', { student_id: ref });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ items: [], page: 1, limit: 50, total: 0, totalPages: 0 });
      }
    });

    it('answers 422 validation_error, never 500, for NUL characters wherever a string is taken', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'G', faculty_id: teacher.id, student_ids: [ada.id] });
      const NUL = '\u0000';
      const calls = [
        () => get(s.key, '/groups', { q: `a${NUL}b` }),
        () => get(s.key, '/groups', { faculty_id: `fac${NUL}` }),
        () => get(s.key, `/groups/grp${encodeURIComponent(NUL)}`),
        () => post(s.key, '/groups', { name: `x${NUL}y`, faculty_id: teacher.id }),
        () => post(s.key, '/groups', { name: 'X', faculty_id: `${teacher.id}${NUL}` }),
        () => post(s.key, '/groups', { name: 'X', faculty_id: teacher.id, student_ids: [ada.id, `stu${NUL}`] }),
        () => patch(s.key, `/groups/${group.id}`, { description: NUL }),
        () => post(s.key, `/groups/${group.id}/members`, { student_ids: [`stu${NUL}`] }),
        () => del(s.key, `/groups/${group.id}/members/stu${encodeURIComponent(NUL)}`),
      ];
      for (const call of calls) expectError(await call(), 422, 'validation_error');
      expect((await get(s.key, '/groups')).body.data.total).toBe(1);
    });

    it('rejects unknown query parameters and out-of-range paging with 422 validation_error', async () => {
      const s = await school();
      expectError(await get(s.key, '/groups', { owner: 'x' }), 422, 'validation_error');
      expectError(await get(s.key, '/groups', { limit: 201 }), 422, 'validation_error');
      expectError(await get(s.key, '/groups', { page: 0 }), 422, 'validation_error');
    });
  });

  describe('GET /v1/groups/{id}', () => {
    it('returns the group with members (ordered by added_at, then name) and exams', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const zed = await student(s.key, 'Zed Zimmer', { personal_email: 'zed.family@example.org' });
      const yan = await student(s.key, 'Yan Young');
      const mia = await student(s.key, 'Mia Moore');
      const cat = await student(s.key, 'Cat Cole');
      const amy = await student(s.key, 'Amy Adams');
      const aaron = await student(s.key, 'Aaron Abbot');
      const group = await createGroup(s.key, { name: 'Ordered', faculty_id: teacher.id, student_ids: [zed.id, yan.id, mia.id, cat.id, amy.id] });
      await sleep(5);
      expect((await post(s.key, `/groups/${group.id}/members`, { student_ids: [aaron.id] })).status).toBe(200);

      const res = await get(s.key, `/groups/${group.id}`);
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual([...GROUP_FIELDS, 'exams', 'members'].sort());
      expect(data).toMatchObject({ id: group.id, name: 'Ordered', faculty_id: teacher.id, student_count: 6 });
      expect(data.exams).toEqual([]);
      // The first five joined together (so by name), Aaron later despite his name.
      expect(data.members.map((m: Person) => m.full_name)).toEqual(['Amy Adams', 'Cat Cole', 'Mia Moore', 'Yan Young', 'Zed Zimmer', 'Aaron Abbot']);
      const [first, second] = data.members;
      const last = data.members.at(-1);
      expect(first).toEqual({ id: amy.id, login_email: amy.login_email, full_name: 'Amy Adams', status: 'active', added_at: expect.stringMatching(ISO_MS) });
      for (const member of data.members) expect(Object.keys(member).sort()).toEqual(['added_at', 'full_name', 'id', 'login_email', 'status']);
      expect(first.added_at).toBe(second.added_at);
      expect(last.id).toBe(aaron.id);
      expect(Date.parse(last.added_at)).toBeGreaterThan(Date.parse(first.added_at));
      expect(JSON.stringify(res.body)).not.toContain('zed.family@example.org');
    });

    it('shows a suspended member with status suspended', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'G', faculty_id: teacher.id, student_ids: [ada.id] });
      expect((await post(s.key, `/students/${ada.id}/suspend`, {})).status).toBe(200);
      const res = await get(s.key, `/groups/${group.id}`);
      expect(res.body.data.members).toEqual([expect.objectContaining({ id: ada.id, status: 'suspended' })]);
      expect(res.body.data.student_count).toBe(1);
    });

    it('answers 404 not_found for an unknown id', async () => {
      const s = await school();
      expectError(await get(s.key, '/groups/grp_doesNotExist'), 404, 'not_found');
    });
  });

  describe('PATCH /v1/groups/{id}', () => {
    it('changes name, description and owner; emits group.updated naming the changed fields', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const edsger = await faculty(s.key, 'Edsger Dijkstra');
      const group = await createGroup(s.key, { name: 'Old', description: 'old', faculty_id: grace.id });
      await sleep(5);

      const res = await patch(s.key, `/groups/${group.id}`, { name: 'New', description: 'new', faculty_id: edsger.login_email });
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual([...GROUP_FIELDS, 'rejected_student_ids'].sort());
      expect(data).toMatchObject({ id: group.id, name: 'New', description: 'new', faculty_id: edsger.id, student_count: 0, rejected_student_ids: [] });
      expect(data.created_at).toBe(group.created_at);
      expect(Date.parse(data.updated_at)).toBeGreaterThan(Date.parse(group.updated_at));

      const read = await get(s.key, `/groups/${group.id}`);
      expect(read.body.data).toMatchObject({ name: 'New', description: 'new', faculty_id: edsger.id, updated_at: data.updated_at });

      const events = await groupEvents(s);
      expect(events.map((e) => e.type)).toEqual(['group.created', 'group.updated']);
      expect(events[1]!.data).toEqual({ group_id: group.id, changed: ['name', 'description', 'faculty_id'], student_count: 0 });
    });

    it('changes nothing and emits nothing when nothing differs; omitting faculty_id keeps the owner', async () => {
      const s = await school();
      const grace = await faculty(s.key);
      const group = await createGroup(s.key, { name: 'Same', description: 'same', faculty_id: grace.id });
      await sleep(5);
      for (const body of [{}, { name: 'Same' }, { description: 'same', faculty_id: grace.login_email }]) {
        const res = await patch(s.key, `/groups/${group.id}`, body);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ name: 'Same', faculty_id: grace.id, updated_at: group.updated_at });
      }
      expect((await groupEvents(s)).map((e) => e.type)).toEqual(['group.created']);
    });

    it('student_ids replaces the whole membership; members who stay keep added_at', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const [ada, alan, bob] = [await student(s.key, 'Ada A'), await student(s.key, 'Alan B'), await student(s.key, 'Bob C')];
      const group = await createGroup(s.key, { name: 'Replace', faculty_id: teacher.id, student_ids: [ada.id, alan.id] });
      const before = (await get(s.key, `/groups/${group.id}`)).body.data.members;
      await sleep(5);

      const res = await patch(s.key, `/groups/${group.id}`, { student_ids: [alan.login_email, bob.id, 'stu_nope'] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ student_count: 2, rejected_student_ids: ['stu_nope'] });
      const after = (await get(s.key, `/groups/${group.id}`)).body.data.members;
      expect(after.map((m: Person) => m.id)).toEqual([alan.id, bob.id]);
      expect(after[0].added_at).toBe(before.find((m: Person) => m.id === alan.id).added_at);
      expect(Date.parse(after[1].added_at)).toBeGreaterThan(Date.parse(after[0].added_at));

      const events = await groupEvents(s);
      expect(events.at(-1)).toMatchObject({ type: 'group.updated', data: { group_id: group.id, changed: ['members'], student_count: 2 } });
    });

    it('student_ids [] empties the group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'ToEmpty', faculty_id: teacher.id, student_ids: [ada.id] });
      const res = await patch(s.key, `/groups/${group.id}`, { student_ids: [] });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ student_count: 0, rejected_student_ids: [] });
      expect(await memberIds(s.key, group.id)).toEqual([]);
      // The student still exists: only the membership went.
      expect((await get(s.key, `/students/${ada.id}`)).status).toBe(200);
      expect((await groupEvents(s)).at(-1)!.data).toEqual({ group_id: group.id, changed: ['members'], student_count: 0 });
    });

    it('the same membership again is no change', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Stable', faculty_id: teacher.id, student_ids: [ada.id] });
      const res = await patch(s.key, `/groups/${group.id}`, { student_ids: [ada.login_email] });
      expect(res.body.data).toMatchObject({ student_count: 1, updated_at: group.updated_at });
      expect((await groupEvents(s)).map((e) => e.type)).toEqual(['group.created']);
    });

    it('answers no_owner for faculty_id null and invalid_faculty for unknown or suspended teachers, changing nothing', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const suspended = await faculty(s.key, 'Sus Pended');
      await suspendFaculty(s.key, suspended.id);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Owned', faculty_id: grace.id });

      expectError(await patch(s.key, `/groups/${group.id}`, { name: 'Changed', faculty_id: null }), 422, 'no_owner');
      for (const ref of ['fac_doesNotExist', ada.id, suspended.id, suspended.login_email]) {
        expectError(await patch(s.key, `/groups/${group.id}`, { name: 'Changed', faculty_id: ref }), 422, 'invalid_faculty');
      }
      const read = await get(s.key, `/groups/${group.id}`);
      expect(read.body.data).toMatchObject({ name: 'Owned', faculty_id: grace.id });
      expect((await groupEvents(s)).map((e) => e.type)).toEqual(['group.created']);
    });

    it('answers no_valid_students when the new list has no valid student, keeping the old membership', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Kept', faculty_id: teacher.id, student_ids: [ada.id] });
      const res = await patch(s.key, `/groups/${group.id}`, { name: 'Renamed', student_ids: ['stu_nope', teacher.login_email] });
      expectError(res, 422, 'no_valid_students');
      expect(res.body.rejected_student_ids).toEqual(['stu_nope', teacher.login_email]);
      const read = await get(s.key, `/groups/${group.id}`);
      expect(read.body.data).toMatchObject({ name: 'Kept', student_count: 1 });
    });

    it('answers 422 validation_error for unknown fields and 404 for an unknown group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const group = await createGroup(s.key, { name: 'V', faculty_id: teacher.id });
      const res = await patch(s.key, `/groups/${group.id}`, { name: 'W', id: 'grp_mine' });
      expectError(res, 422, 'validation_error');
      expect(res.body.details).toContainEqual({ path: 'id', message: 'Unknown field.' });
      expectError(await patch(s.key, `/groups/${group.id}`, { name: '' }), 422, 'validation_error');
      expectError(await patch(s.key, '/groups/grp_doesNotExist', { name: 'W' }), 404, 'not_found');
      expect((await get(s.key, `/groups/${group.id}`)).body.data.name).toBe('V');
    });
  });

  describe('DELETE /v1/groups/{id}', () => {
    it('deletes the group and its memberships, not the students; emits group.deleted', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Doomed', faculty_id: teacher.id, student_ids: [ada.id] });
      const other = await createGroup(s.key, { name: 'Other', faculty_id: teacher.id, student_ids: [ada.id] });

      const res = await del(s.key, `/groups/${group.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: group.id, deleted: true } });

      expectError(await get(s.key, `/groups/${group.id}`), 404, 'not_found');
      expectError(await del(s.key, `/groups/${group.id}`), 404, 'not_found');
      expect((await get(s.key, '/students', { group_id: group.id })).body.data.total).toBe(0);
      expect((await get(s.key, `/students/${ada.id}`)).status).toBe(200);
      expect((await get(s.key, `/groups/${other.id}`)).body.data.student_count).toBe(1);
      expect((await get(s.key, '/groups')).body.data.items.map((g: WireGroup) => g.id)).toEqual([other.id]);

      const events = await groupEvents(s);
      expect(events.at(-1)).toMatchObject({ type: 'group.deleted', data: { group_id: group.id } });
      expect(events.at(-1)!.data).toEqual({ group_id: group.id });
    });
  });

  describe('POST /v1/groups/{id}/members', () => {
    it('adds the valid students who are not members yet and reports added and rejected ids', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const [ada, alan, bob] = [await student(s.key, 'Ada A'), await student(s.key, 'Alan B'), await student(s.key, 'Bob C')];
      const group = await createGroup(s.key, { name: 'Grow', faculty_id: teacher.id, student_ids: [ada.id] });
      await sleep(5);

      const res = await post(s.key, `/groups/${group.id}/members`, { student_ids: [ada.id, alan.login_email, bob.id, teacher.id, 'stu_nope'] });
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual([...GROUP_FIELDS, 'added', 'rejected_student_ids'].sort());
      expect(data).toMatchObject({ id: group.id, student_count: 3, added: [alan.id, bob.id], rejected_student_ids: [teacher.id, 'stu_nope'] });
      expect(Date.parse(data.updated_at)).toBeGreaterThan(Date.parse(group.updated_at));
      expect((await memberIds(s.key, group.id)).sort()).toEqual([ada.id, alan.id, bob.id].sort());

      const events = await groupEvents(s);
      expect(events.at(-1)).toMatchObject({ type: 'group.updated' });
      expect(events.at(-1)!.data).toEqual({ group_id: group.id, changed: ['members'], student_count: 3 });
    });

    it('answers 409 already_added when every valid id is already a member, even with invalid ones', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Full', faculty_id: teacher.id, student_ids: [ada.id] });
      expectError(await post(s.key, `/groups/${group.id}/members`, { student_ids: [ada.id] }), 409, 'already_added');
      expectError(await post(s.key, `/groups/${group.id}/members`, { student_ids: [ada.login_email, 'stu_nope'] }), 409, 'already_added');
      expect((await groupEvents(s)).map((e) => e.type)).toEqual(['group.created']);
    });

    it('answers 422 no_valid_students, 422 validation_error for an empty or missing list, 404 for an unknown group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'G', faculty_id: teacher.id });
      const none = await post(s.key, `/groups/${group.id}/members`, { student_ids: ['stu_nope', teacher.id] });
      expectError(none, 422, 'no_valid_students');
      expect(none.body.rejected_student_ids).toEqual(['stu_nope', teacher.id]);
      expectError(await post(s.key, `/groups/${group.id}/members`, { student_ids: [] }), 422, 'validation_error');
      expectError(await post(s.key, `/groups/${group.id}/members`, {}), 422, 'validation_error');
      const extra = await post(s.key, `/groups/${group.id}/members`, { student_ids: [ada.id], role: 'x' });
      expectError(extra, 422, 'validation_error');
      expect(extra.body.details).toContainEqual({ path: 'role', message: 'Unknown field.' });
      expectError(await post(s.key, '/groups/grp_doesNotExist/members', { student_ids: [ada.id] }), 404, 'not_found');
      expect(await memberIds(s.key, group.id)).toEqual([]);
    });
  });

  describe('DELETE /v1/groups/{id}/members/{studentId}', () => {
    it('removes one member by id or login email and returns the Group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const [ada, alan, bob] = [await student(s.key, 'Ada A'), await student(s.key, 'Alan B'), await student(s.key, 'Bob C')];
      const group = await createGroup(s.key, { name: 'Shrink', faculty_id: teacher.id, student_ids: [ada.id, alan.id, bob.id] });
      await sleep(5);

      const byId = await del(s.key, `/groups/${group.id}/members/${ada.id}`);
      expect(byId.status).toBe(200);
      expect(Object.keys(byId.body.data).sort()).toEqual(GROUP_FIELDS);
      expect(byId.body.data).toMatchObject({ id: group.id, student_count: 2 });
      expect(Date.parse(byId.body.data.updated_at)).toBeGreaterThan(Date.parse(group.updated_at));

      const byEmail = await del(s.key, `/groups/${group.id}/members/${encodeURIComponent(alan.login_email.toUpperCase())}`);
      expect(byEmail.status).toBe(200);
      expect(byEmail.body.data.student_count).toBe(1);
      expect(await memberIds(s.key, group.id)).toEqual([bob.id]);

      const events = await groupEvents(s);
      expect(events.map((e) => e.type)).toEqual(['group.created', 'group.updated', 'group.updated']);
      expect(events[1]!.data).toEqual({ group_id: group.id, changed: ['members'], student_count: 2 });
      expect(events[2]!.data).toEqual({ group_id: group.id, changed: ['members'], student_count: 1 });
    });

    it('answers 404 not_found for a non-member, a non-student, an unknown student or an unknown group', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const outsider = await student(s.key, 'Out Sider');
      const group = await createGroup(s.key, { name: 'G', faculty_id: teacher.id, student_ids: [ada.id] });
      for (const ref of [outsider.id, outsider.login_email, teacher.id, 'stu_nope']) {
        expectError(await del(s.key, `/groups/${group.id}/members/${encodeURIComponent(ref)}`), 404, 'not_found');
      }
      expectError(await del(s.key, `/groups/grp_doesNotExist/members/${ada.id}`), 404, 'not_found');
      expect(await memberIds(s.key, group.id)).toEqual([ada.id]);
      expect((await groupEvents(s)).map((e) => e.type)).toEqual(['group.created']);
    });
  });

  describe('events', () => {
    it('carry ids and outcomes only: no names, emails or descriptions', async () => {
      const s = await school();
      const teacher = await faculty(s.key, 'Grace Hopper');
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const alan = await student(s.key, 'Alan Turing');
      const group = await createGroup(s.key, {
        name: 'Secret Society',
        description: 'Top secret notes',
        faculty_id: teacher.login_email,
        student_ids: [ada.login_email],
      });
      await post(s.key, `/groups/${group.id}/members`, { student_ids: [alan.login_email] });
      await patch(s.key, `/groups/${group.id}`, { name: 'Renamed Society', description: 'Other notes', student_ids: [alan.id] });
      await del(s.key, `/groups/${group.id}/members/${alan.login_email}`);
      await del(s.key, `/groups/${group.id}`);

      const events = await groupEvents(s);
      expect(events.map((e) => e.type)).toEqual(['group.created', 'group.updated', 'group.updated', 'group.updated', 'group.deleted']);
      const allowed = new Set(['group_id', 'faculty_id', 'student_count', 'changed']);
      for (const event of events) {
        for (const key of Object.keys(event.data)) expect(allowed.has(key), `${event.type} has ${key}`).toBe(true);
      }
      const text = JSON.stringify(events);
      for (const secret of ['Secret Society', 'Renamed Society', 'Top secret', 'Other notes', 'Grace', 'Ada', 'Alan', '@', 'ada.family']) {
        expect(text).not.toContain(secret);
      }
    });
  });

  describe('scopes', () => {
    it('groups:read reads but cannot write; groups:write reads and writes; other scopes get 403', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const group = await createGroup(s.key, { name: 'Scoped', faculty_id: teacher.id, student_ids: [ada.id] });
      const keyWith = (scopes: Scope[]) => makeKey(app, s.inst, { scopes });
      const reader = await keyWith(['groups:read']);
      const writer = await keyWith(['groups:write']);
      const stranger = await keyWith(['students:write', 'faculty:write']);

      expect((await get(reader, '/groups')).status).toBe(200);
      expect((await get(reader, `/groups/${group.id}`)).status).toBe(200);
      const writes = [
        () => post(reader, '/groups', { name: 'X', faculty_id: teacher.id }),
        () => patch(reader, `/groups/${group.id}`, { name: 'X' }),
        () => del(reader, `/groups/${group.id}`),
        () => post(reader, `/groups/${group.id}/members`, { student_ids: [ada.id] }),
        () => del(reader, `/groups/${group.id}/members/${ada.id}`),
      ];
      for (const write of writes) {
        const res = await write();
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ success: false, error: 'insufficient_scope', required: ['groups:write'], missing: ['groups:write'] });
      }
      for (const res of [await get(stranger, '/groups'), await get(stranger, `/groups/${group.id}`)]) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['groups:read'], missing: ['groups:read'] });
      }
      expect((await post(stranger, '/groups', { name: 'X', faculty_id: teacher.id })).status).toBe(403);
      // Nothing the denied calls asked for happened.
      expect((await get(s.key, `/groups/${group.id}`)).body.data).toMatchObject({ name: 'Scoped', student_count: 1 });
      expect((await get(s.key, '/groups')).body.data.total).toBe(1);

      expect((await get(writer, '/groups')).status).toBe(200);
      expect((await patch(writer, `/groups/${group.id}`, { name: 'Written' })).status).toBe(200);
      expect((await app.http.get('/v1/groups')).status).toBe(401);
    });
  });

  describe('tenancy', () => {
    /** Institution B's group, teacher and students, and institution A's key. */
    async function twoSchools() {
      const a = await school();
      const b = await school();
      const aTeacher = await faculty(a.key, 'Alice Teacher');
      const aStudent = await student(a.key, 'Alice Student');
      const bTeacher = await faculty(b.key, 'Bob Teacher');
      const bStudent = await student(b.key, 'Bob Student');
      const bGroup = await createGroup(b.key, { name: 'B group', faculty_id: bTeacher.id, student_ids: [bStudent.id] });
      return { a, b, aTeacher, aStudent, bTeacher, bStudent, bGroup };
    }

    it("another institution's group id is 404 not_found on every groups path, and B's group is untouched", async () => {
      const { a, b, aTeacher, aStudent, bStudent, bGroup } = await twoSchools();
      const id = bGroup.id;
      const calls = [
        () => get(a.key, `/groups/${id}`),
        () => patch(a.key, `/groups/${id}`, { name: 'Hijacked' }),
        () => patch(a.key, `/groups/${id}`, { faculty_id: aTeacher.id }),
        () => post(a.key, `/groups/${id}/members`, { student_ids: [aStudent.id] }),
        () => del(a.key, `/groups/${id}/members/${bStudent.id}`),
        () => del(a.key, `/groups/${id}/members/${aStudent.id}`),
        () => del(a.key, `/groups/${id}`),
      ];
      for (const call of calls) expectError(await call(), 404, 'not_found');

      const listed = await get(a.key, '/groups');
      expect(listed.body.data.total).toBe(0);
      expect((await get(a.key, '/groups', { q: 'B group' })).body.data.items).toEqual([]);

      const intact = await get(b.key, `/groups/${id}`);
      expect(intact.status).toBe(200);
      expect(intact.body.data).toMatchObject({ name: 'B group', student_count: 1, updated_at: bGroup.updated_at });
      expect(intact.body.data.members.map((m: Person) => m.id)).toEqual([bStudent.id]);
      expect(await groupEvents(a)).toEqual([]);
      expect((await groupEvents(b)).map((e) => e.type)).toEqual(['group.created']);
    });

    it("another institution's students are rejected and its teachers are invalid_faculty", async () => {
      const { a, aTeacher, aStudent, bTeacher, bStudent } = await twoSchools();

      const mixed = await createGroup(a.key, { name: 'A group', faculty_id: aTeacher.id, student_ids: [aStudent.id, bStudent.id, bStudent.login_email] });
      expect(mixed.student_count).toBe(1);
      expect(mixed.rejected_student_ids).toEqual([bStudent.id, bStudent.login_email]);

      expectError(await post(a.key, '/groups', { name: 'Only B', faculty_id: aTeacher.id, student_ids: [bStudent.id] }), 422, 'no_valid_students');
      expectError(await post(a.key, '/groups', { name: 'B owner', faculty_id: bTeacher.id }), 422, 'invalid_faculty');
      expectError(await post(a.key, '/groups', { name: 'B owner', faculty_id: bTeacher.login_email }), 422, 'invalid_faculty');
      expectError(await patch(a.key, `/groups/${mixed.id}`, { faculty_id: bTeacher.id }), 422, 'invalid_faculty');
      expectError(await patch(a.key, `/groups/${mixed.id}`, { student_ids: [bStudent.id] }), 422, 'no_valid_students');
      expectError(await post(a.key, `/groups/${mixed.id}/members`, { student_ids: [bStudent.login_email] }), 422, 'no_valid_students');
      expectError(await del(a.key, `/groups/${mixed.id}/members/${bStudent.id}`), 404, 'not_found');

      const replaced = await patch(a.key, `/groups/${mixed.id}`, { student_ids: [aStudent.id, bStudent.id] });
      expect(replaced.body.data).toMatchObject({ student_count: 1, rejected_student_ids: [bStudent.id] });

      const byBTeacher = await get(a.key, '/groups', { faculty_id: bTeacher.id });
      expect(byBTeacher.body.data.total).toBe(0);
      expect(await memberIds(a.key, mixed.id)).toEqual([aStudent.id]);
    });
  });
});
