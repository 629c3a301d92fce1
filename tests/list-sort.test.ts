// @tier integration
// @databases sqlite, postgres
// `sort` on the lists (docs/decisions/sorted-lists.md): each list's natural columns, either way,
// ties broken by creation time then id, pages that join up into the whole sorted list (the back
// half is read backwards), filters kept, and a clear 422 for a column the list does not sort by.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../server/commands/demo/seed.js';
import { makeKey, makeSchool, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { institutionApi, setUpPortal, signIn } from './helpers/portal.js';

interface WireStudent {
  id: string;
  full_name: string;
  student_id: string | null;
  status: string;
  created_at: string;
}

let app: TestAppliance;
let key: TestKey;
const { get, post } = requestsAs(() => app);

// Names out of order, with a tie (two Ada Lovelaces) that creation time must break.
const NAMES: Array<[name: string, studentId: string | null]> = [
  ['Grace Hopper', 'S-04'],
  ['Ada Lovelace', 'S-07'],
  ['Edsger Dijkstra', null],
  ['Barbara Liskov', 'S-01'],
  ['Ada Lovelace', 'S-02'],
  ['Katherine Johnson', null],
  ['Alan Turing', 'S-09'],
];
let made: WireStudent[] = [];

const byNameThenCreation = (a: WireStudent, b: WireStudent) =>
  a.full_name.localeCompare(b.full_name) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/** Every page of `path` at `limit` per page, joined. */
async function allPages<T>(path: string, query: Record<string, string | number>, limit: number): Promise<T[]> {
  const first = await get(key, path, { ...query, limit, page: 1 });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const items: T[] = [...(first.body.data.items as T[])];
  for (let page = 2; page <= first.body.data.totalPages; page += 1) {
    const res = await get(key, path, { ...query, limit, page });
    expect(res.status).toBe(200);
    items.push(...(res.body.data.items as T[]));
  }
  return items;
}

beforeAll(async () => {
  app = await startTestAppliance();
  ({ key } = await makeSchool(app));
  made = [];
  for (const [full_name, student_id] of NAMES) {
    const res = await post(key, '/students', student_id ? { full_name, student_id } : { full_name });
    expect(res.status).toBe(200);
    made.push(res.body.data as WireStudent);
  }
  const suspended = made.find((student) => student.full_name === 'Grace Hopper')!;
  expect((await post(key, `/students/${suspended.id}/suspend`)).status).toBe(200);
});
afterAll(() => app?.close());

describe('Students sorted', () => {
  it('by name, pages of 2 joining up into the whole list, ties in creation order', async () => {
    const expected = [...made].sort(byNameThenCreation).map((student) => student.id);
    expect(await allPages<WireStudent>('/students', { sort: 'full_name' }, 2).then((items) => items.map((student) => student.id))).toEqual(expected);
  });

  it('by name descending: the exact reverse, page by page', async () => {
    const expected = [...made].sort(byNameThenCreation).reverse();
    const items = await allPages<WireStudent>('/students', { sort: '-full_name' }, 3);
    expect(items.map((student) => student.id)).toEqual(expected.map((student) => student.id));
  });

  it('by student_id: the ones with an ID in order, those without together at one end', async () => {
    const items = await allPages<WireStudent>('/students', { sort: 'student_id' }, 50);
    const withId = items.filter((student) => student.student_id !== null).map((student) => student.student_id);
    expect(withId).toEqual(['S-01', 'S-02', 'S-04', 'S-07', 'S-09']);
    const positions = items.flatMap((student, index) => (student.student_id === null ? [index] : []));
    expect(positions.length).toBe(2);
    expect([[0, 1].join(), [items.length - 2, items.length - 1].join()]).toContain(positions.join());
  });

  it('newest first with -created_at; the usual order without sort', async () => {
    const newest = await allPages<WireStudent>('/students', { sort: '-created_at' }, 4);
    expect(newest.map((student) => student.id)).toEqual([...made].reverse().map((student) => student.id));
    const usual = await allPages<WireStudent>('/students', {}, 4);
    expect(usual.map((student) => student.id)).toEqual(made.map((student) => student.id));
  });

  it('keeps the filters: active students by name, a group by name', async () => {
    const active = await allPages<WireStudent>('/students', { status: 'active', sort: 'full_name' }, 2);
    expect(active.map((student) => student.full_name)).toEqual([
      'Ada Lovelace',
      'Ada Lovelace',
      'Alan Turing',
      'Barbara Liskov',
      'Edsger Dijkstra',
      'Katherine Johnson',
    ]);

    const members = made.filter((student) => ['Katherine Johnson', 'Alan Turing', 'Barbara Liskov'].includes(student.full_name));
    const faculty = await post(key, '/faculty', { full_name: 'Tim Teacher' });
    const group = await post(key, '/groups', { name: 'Sorted class', faculty_id: faculty.body.data.id, student_ids: members.map((student) => student.id) });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const inGroup = await allPages<WireStudent>('/students', { group_id: group.body.data.id, sort: '-full_name' }, 2);
    expect(inGroup.map((student) => student.full_name)).toEqual(['Katherine Johnson', 'Barbara Liskov', 'Alan Turing']);
    const inGroupNewest = await allPages<WireStudent>('/students', { group_id: group.body.data.id, sort: '-created_at' }, 2);
    expect(inGroupNewest.map((student) => student.full_name)).toEqual(['Alan Turing', 'Katherine Johnson', 'Barbara Liskov']);
  });

  it('an email filter (found in memory) sorts the same way', async () => {
    const school = await makeSchool(app);
    for (const full_name of ['Yan Yu', 'Zoe Zed', 'Ann Alder']) {
      const res = await post(school.key, '/students', { full_name, personal_email: 'parent@home.test' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const names = async (sort: string) =>
      ((await get(school.key, '/students', { email: 'parent@home.test', sort })).body.data.items as WireStudent[]).map((student) => student.full_name);
    expect(await names('full_name')).toEqual(['Ann Alder', 'Yan Yu', 'Zoe Zed']);
    expect(await names('-full_name')).toEqual(['Zoe Zed', 'Yan Yu', 'Ann Alder']);
    expect(await names('-created_at')).toEqual(['Ann Alder', 'Zoe Zed', 'Yan Yu']);
  });

  it('refuses a column the list does not sort by, in words, with 422', async () => {
    for (const sort of ['email', 'name', '-', '--full_name', 'full_name,created_at', 'FULL_NAME']) {
      const res = await get(key, '/students', { sort });
      expect({ sort, status: res.status, error: res.body.error }).toEqual({ sort, status: 422, error: 'validation_error' });
    }
    const faculty = await get(key, '/faculty', { sort: 'student_id' });
    expect(faculty.status).toBe(422);
    expect(JSON.stringify(faculty.body)).toMatch(/faculty_id/);
  });
});

describe('Other lists sorted', () => {
  it('groups by name; exams by title and by due date; licenses by expiry', async () => {
    const groupNames = await allPages<{ name: string }>('/groups', { sort: 'name' }, 1);
    expect(groupNames.map((group) => group.name)).toEqual(['Sorted class']);

    const teacher = await post(key, '/faculty', { full_name: 'Exam Owner' });
    const exams: Array<[string, string]> = [
      ['Physics final', '2027-06-03T09:00:00.000Z'],
      ['Algebra quiz', '2027-06-01T09:00:00.000Z'],
      ['Chemistry lab', '2027-06-02T09:00:00.000Z'],
    ];
    for (const [title, due_date] of exams) {
      const res = await post(key, '/exams', { title, faculty_id: teacher.body.data.id, exam_type: 'quiz', app: 'learning', due_date });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const byTitle = await allPages<{ title: string }>('/exams', { sort: 'title' }, 2);
    expect(byTitle.map((exam) => exam.title)).toEqual(['Algebra quiz', 'Chemistry lab', 'Physics final']);
    const byDue = await allPages<{ title: string }>('/exams', { sort: '-due_date' }, 2);
    expect(byDue.map((exam) => exam.title)).toEqual(['Physics final', 'Chemistry lab', 'Algebra quiz']);

    const licenses = await allPages<{ expires_at: string }>('/licenses', { sort: 'expires_at' }, 3);
    expect(licenses.length).toBeGreaterThan(3);
    const expiries = licenses.map((license) => license.expires_at);
    expect(expiries).toEqual([...expiries].sort());
    const newestExpiry = await get(key, '/licenses', { sort: '-expires_at', limit: 1 });
    expect(newestExpiry.body.data.items[0].expires_at).toBe(expiries.at(-1));
  });

  // The demo seed is heavy: on a busy machine it took over a minute, so the bound only a hang reaches is three.
  it("the demo institution's submissions by score, highest first, and deliveries oldest first", { timeout: 180_000 }, async () => {
    const demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    const demoKey: TestKey = { id: '', key: demo.key, auth: `Bearer ${demo.key}` };
    const res = await app.http.get('/v1/submissions').query({ sort: '-score', limit: 200 }).set('Authorization', demoKey.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const scores = (res.body.data.items as Array<{ score: number | null }>).map((row) => row.score).filter((score): score is number => score !== null);
    expect(scores.length).toBeGreaterThan(2);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBeGreaterThan(1);

    const deliveries = await app.http.get('/v1/webhooks/deliveries').query({ sort: 'created_at', limit: 200 }).set('Authorization', demoKey.auth);
    expect(deliveries.status).toBe(200);
    const created = (deliveries.body.data.items as Array<{ created_at: string }>).map((row) => row.created_at);
    expect(created).toEqual([...created].sort());
    expect((await app.http.get('/v1/webhooks/deliveries').query({ sort: 'status' }).set('Authorization', demoKey.auth)).status).toBe(422);
  });
});

describe('The portal audit log sorted', () => {
  it('newest first by default, oldest first with sort=occurred_at, for the institution and the operator', async () => {
    const portalApp = await startTestAppliance();
    try {
      const { institutionId } = await setUpPortal(portalApp, {
        institution: 'Sorted Academy',
        admin_email: 'admin@sorted.test',
        admin_password: 'sorted admin pw',
      });
      const { agent, csrf } = await signIn(portalApp, 'admin@sorted.test', 'sorted admin pw');
      for (const name of ['first key', 'second key', 'third key']) {
        const res = await agent
          .post(`/portal/api/institutions/${institutionId}/keys`)
          .set('X-CSRF-Token', csrf)
          .send({ name, scopes: ['groups:read'] });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      for (const path of [`${institutionApi(institutionId)}/audit-log`, '/portal/api/operator/audit-log']) {
        const newest = await agent.get(path);
        const oldest = await agent.get(path).query({ sort: 'occurred_at' });
        expect(newest.status).toBe(200);
        expect(oldest.status).toBe(200);
        const times = (res: { body: { data: { items: Array<{ occurred_at: string; id: string }> } } }) => res.body.data.items.map((entry) => entry.id);
        expect(times(newest).length).toBeGreaterThanOrEqual(3);
        expect(times(oldest)).toEqual([...times(newest)].reverse());
        expect((await agent.get(path).query({ sort: 'actor_email' })).status).toBe(422);
      }
    } finally {
      await portalApp.close();
    }
  });

  it('a key without the list scope is still refused before the sort is read', async () => {
    const { inst } = await makeSchool(app);
    const narrow = await makeKey(app, inst, { scopes: ['groups:read'] });
    const res = await get(narrow, '/students', { sort: 'bogus' });
    expect(res.status).toBe(403);
  });
});
