// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALPHA_RULES, nextMastery, utcDay } from '../../commands/alpha/rules.js';
import { newId } from '../../ids.js';
import {
  learnerSession,
  makeKey,
  makePerson,
  makeSchool,
  readEvents,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';
import { runCliCaptured, type CliResult } from '../../../tests/helpers/cli.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURRICULUM_FIELDS = ['concepts', 'description', 'id', 'name', 'scope', 'status'];
const ENROLLMENT_FIELDS = ['created_at', 'curriculum_id', 'daily_target_minutes', 'guide_id', 'id', 'status', 'student_id', 'updated_at'];
const LEDGER_FIELDS = ['created_at', 'id', 'note', 'points', 'ref', 'source'];
const AWARD_FIELDS = ['created_at', 'id', 'note', 'points', 'ref', 'replayed', 'student_id', 'total'];
const MASTERY_FIELDS = ['attempts', 'concept_id', 'concept_name', 'correct', 'curriculum_id', 'last_activity_at', 'mastery'];
const DAY_MS = 86_400_000;
const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

type Person = TestPerson;

interface Curriculum {
  id: string;
  name: string;
  description: string;
  status: 'draft' | 'published';
  scope: 'institution' | 'shared';
  concepts: Array<{ id: string; name: string }>;
}

interface Enrollment {
  id: string;
  curriculum_id: string;
  student_id: string;
  guide_id: string | null;
  daily_target_minutes: number;
  status: 'active' | 'paused' | 'completed';
  created_at: string;
  updated_at: string;
}

describe('Alpha Learning: /v1/alpha/* and POST /v1/app/alpha/activity', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  // -------------------------------------------------------------------------------------------
  // Helpers: people over HTTP, curricula through the CLI (as the operator makes them), learner
  // sessions the way the portal's /launch page gets them.
  // -------------------------------------------------------------------------------------------

  const get = (key: TestKey, path: string, query: Record<string, unknown> = {}) => app.http.get(`/v1${path}`).query(query).set('Authorization', key.auth);
  const post = (key: TestKey, path: string, body?: unknown) => {
    const req = app.http.post(`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };
  const patch = (key: TestKey, path: string, body: unknown) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', key.auth)
      .send(body as object);

  const person = (key: TestKey, role: 'students' | 'faculty', fullName: string) => makePerson(app, key, role, fullName);

  const cli = (...argv: string[]): Promise<CliResult> => runCliCaptured(app, ...argv);

  async function curriculum(
    name: string,
    concepts: string[],
    options: { institution?: string; publish?: boolean; description?: string } = {},
  ): Promise<Curriculum> {
    const argv = ['curriculum', 'create', '--name', name, '--concepts', concepts.join(',')];
    if (options.institution) argv.push('--institution', options.institution);
    if (options.publish !== false) argv.push('--publish');
    if (options.description !== undefined) argv.push('--description', options.description);
    const result = await cli(...argv);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Curriculum;
  }

  interface School extends TestSchool {
    teacher: Person;
    ada: Person;
    alan: Person;
    grace: Person;
  }

  async function school(): Promise<School> {
    const { inst, key } = await makeSchool(app);
    return {
      inst,
      key,
      teacher: await person(key, 'faculty', 'Katherine Johnson'),
      ada: await person(key, 'students', 'Ada Lovelace'),
      alan: await person(key, 'students', 'Alan Turing'),
      grace: await person(key, 'students', 'Grace Hopper'),
    };
  }

  async function enroll(s: School, curriculumId: string, students: Person[], extra: Record<string, unknown> = {}): Promise<Enrollment[]> {
    const res = await post(s.key, '/alpha/enrollments', { curriculum_id: curriculumId, student_ids: students.map((p) => p.id), ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.items as Enrollment[];
  }

  const sessionOf = (key: TestKey, who: Person) => learnerSession(app, key, who);

  const activity = (session: string, body: unknown) =>
    app.http
      .post('/v1/app/alpha/activity')
      .set('Authorization', `Bearer ${session}`)
      .send(body as object);

  const events = (key: TestKey, type: string) => readEvents(app, key, type);

  const award = (s: School, student: string, body: Record<string, unknown>) => post(s.key, `/alpha/students/${student}/points`, body);

  /** An activity row written directly, `daysAgo` UTC days back: the way to stand on an earlier day. */
  async function pastActivity(s: School, enrollment: Enrollment, conceptId: string, daysAgo: number): Promise<void> {
    const at = new Date(Date.now() - daysAgo * DAY_MS);
    await s.inst.tenant.inTransaction(async (tx) => {
      await tx.alphaActivities.create({
        id: newId('act'),
        student_id: enrollment.student_id,
        enrollment_id: enrollment.id,
        curriculum_id: enrollment.curriculum_id,
        concept_id: conceptId,
        correct: true,
        minutes: 1,
        day: utcDay(at),
        mastery_after: 0.3,
        occurred_at: at,
      });
    });
  }

  // -------------------------------------------------------------------------------------------

  describe('curricula', () => {
    let a: School;
    let b: School;
    let shared: Curriculum;
    let own: Curriculum;
    let draft: Curriculum;
    let theirs: Curriculum;
    beforeAll(async () => {
      a = await school();
      b = await school();
      shared = await curriculum('Fractions', ['Equivalent fractions', 'Adding fractions', 'Mixed numbers'], { description: 'For every school.' });
      own = await curriculum('Local history', ['The founding', 'The mill'], { institution: a.inst.id });
      draft = await curriculum('Unfinished', ['One'], { institution: a.inst.id, publish: false });
      theirs = await curriculum('Their secret', ['Hidden'], { institution: b.inst.id });
    });

    it('the CLI prints the curriculum: shared without --institution, a draft without --publish', () => {
      expect(Object.keys(shared).sort()).toEqual(CURRICULUM_FIELDS);
      expect(shared).toMatchObject({ name: 'Fractions', description: 'For every school.', status: 'published', scope: 'shared' });
      expect(shared.id).toMatch(/^cur_[A-Za-z0-9]{24}$/);
      expect(shared.concepts.map((c) => c.name)).toEqual(['Equivalent fractions', 'Adding fractions', 'Mixed numbers']);
      for (const concept of shared.concepts) expect(concept.id).toMatch(/^con_[A-Za-z0-9]{24}$/);
      expect(own).toMatchObject({ status: 'published', scope: 'institution', description: '' });
      expect(draft).toMatchObject({ status: 'draft', scope: 'institution' });
    });

    it("lists the institution's published curricula and the shared ones, never drafts or another institution's", async () => {
      const res = await get(a.key, '/alpha/curricula', { limit: 200 });
      expect(res.status).toBe(200);
      const ids = (res.body.data.items as Curriculum[]).map((c) => c.id);
      expect(ids).toContain(shared.id);
      expect(ids).toContain(own.id);
      expect(ids).not.toContain(draft.id);
      expect(ids).not.toContain(theirs.id);
      const listed = (res.body.data.items as Curriculum[]).find((c) => c.id === shared.id);
      expect(listed).toEqual(shared);
      for (const item of res.body.data.items as Curriculum[]) expect(item.status).toBe('published');

      const other = (await get(b.key, '/alpha/curricula', { limit: 200 })).body.data.items as Curriculum[];
      expect(other.map((c) => c.id)).toContain(theirs.id);
      expect(other.map((c) => c.id)).toContain(shared.id);
      expect(other.map((c) => c.id)).not.toContain(own.id);
    });

    it('status: published is the same as no filter, draft always gives an empty page, anything else is 422', async () => {
      const all = await get(a.key, '/alpha/curricula', { limit: 200 });
      const published = await get(a.key, '/alpha/curricula', { status: 'published', limit: 200 });
      expect(published.body.data).toEqual(all.body.data);
      const drafts = await get(a.key, '/alpha/curricula', { status: 'draft' });
      expect(drafts.status).toBe(200);
      expect(drafts.body.data).toEqual({ items: [], page: 1, limit: 50, total: 0, totalPages: 0 });
      const bad = await get(a.key, '/alpha/curricula', { status: 'archived' });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe('validation_error');
      expect(bad.body.details[0].path).toBe('status');
    });

    it('pages oldest first', async () => {
      const all = (await get(a.key, '/alpha/curricula', { limit: 200 })).body.data;
      expect(all.total).toBe(all.items.length);
      const second = await get(a.key, '/alpha/curricula', { page: 2, limit: 1 });
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({ page: 2, limit: 1, total: all.total, totalPages: all.total });
      expect(second.body.data.items).toEqual([all.items[1]]);
      for (const query of [{ page: 0 }, { limit: 201 }, { limit: 0 }, { q: 'x' }]) {
        expect((await get(a.key, '/alpha/curricula', query)).status, JSON.stringify(query)).toBe(422);
      }
    });

    it('curriculum publish makes a draft listed; publishing again is a no-op', async () => {
      const later = await curriculum('Published later', ['Alpha', 'Beta'], { institution: a.inst.id, publish: false });
      const before = (await get(a.key, '/alpha/curricula', { limit: 200 })).body.data.items as Curriculum[];
      expect(before.map((c) => c.id)).not.toContain(later.id);
      const published = await cli('curriculum', 'publish', later.id);
      expect(published.code).toBe(0);
      expect(JSON.parse(published.stdout)).toEqual({ ...later, status: 'published' });
      expect(JSON.parse((await cli('curriculum', 'publish', later.id)).stdout)).toEqual({ ...later, status: 'published' });
      const after = (await get(a.key, '/alpha/curricula', { limit: 200 })).body.data.items as Curriculum[];
      expect(after.map((c) => c.id)).toContain(later.id);
    });

    it('CLI failures: one line with the code and exit 1; bad usage exit 2', async () => {
      const unknown = await cli('curriculum', 'create', '--name', 'X', '--concepts', 'a', '--institution', 'inst_nope');
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toMatch(/^error not_found: .*\n$/);
      for (const concepts of ['', ' , ', 'a,A', 'a,,b']) {
        const bad = await cli('curriculum', 'create', '--name', 'X', '--concepts', concepts);
        expect(bad.code, concepts).toBe(1);
        expect(bad.stderr, concepts).toMatch(/^error validation_error: /);
      }
      const noName = await cli('curriculum', 'create', '--name', '  ', '--concepts', 'a');
      expect(noName.stderr).toMatch(/^error validation_error: name/);
      expect((await cli('curriculum', 'create', '--concepts', 'a')).code).toBe(2);
      expect((await cli('curriculum', 'publish', 'cur_nope')).stderr).toMatch(/^error not_found: /);
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('enrollments', () => {
    let a: School;
    let b: School;
    let fractions: Curriculum;
    let history: Curriculum;
    let draft: Curriculum;
    let theirs: Curriculum;
    beforeAll(async () => {
      a = await school();
      b = await school();
      fractions = await curriculum('Fractions', ['Equivalent fractions', 'Adding fractions']);
      history = await curriculum('Local history', ['The founding'], { institution: a.inst.id });
      draft = await curriculum('Draft', ['One'], { institution: a.inst.id, publish: false });
      theirs = await curriculum('Theirs', ['Hidden'], { institution: b.inst.id });
    });

    it('enrolls students by id or login email, skips unknown ones and those already enrolled, and emits one event per enrollment', async () => {
      const before = Date.now();
      const res = await post(a.key, '/alpha/enrollments', {
        curriculum_id: fractions.id,
        student_ids: [a.ada.id, a.alan.login_email.toUpperCase(), 'stu_doesNotExist', b.ada.id, a.ada.login_email],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['already_enrolled', 'items', 'rejected_student_ids']);
      const items = res.body.data.items as Enrollment[];
      expect(items).toHaveLength(2);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(ENROLLMENT_FIELDS);
        expect(item.id).toMatch(/^enr_[A-Za-z0-9]{24}$/);
        expect(item).toMatchObject({ curriculum_id: fractions.id, guide_id: null, daily_target_minutes: 30, status: 'active' });
        expect(item.created_at).toMatch(ISO_MS);
        expect(Date.parse(item.created_at)).toBeGreaterThanOrEqual(before - 5);
      }
      expect(items.map((item) => item.student_id)).toEqual([a.ada.id, a.alan.id]);
      expect(res.body.data.rejected_student_ids).toEqual(['stu_doesNotExist', b.ada.id]);
      expect(res.body.data.already_enrolled).toEqual([]);

      const created = await events(a.key, 'alpha.enrollment.created');
      expect(created.map((event) => event.data)).toEqual(
        items.map((item) => ({ enrollment_id: item.id, student_id: item.student_id, curriculum_id: fractions.id })),
      );

      // Again, with one new student: only Grace is enrolled.
      const again = await post(a.key, '/alpha/enrollments', {
        curriculum_id: fractions.id,
        student_ids: [a.ada.id, a.alan.id, a.grace.login_email],
        daily_target_minutes: 45,
      });
      expect(again.status).toBe(200);
      expect((again.body.data.items as Enrollment[]).map((item) => [item.student_id, item.daily_target_minutes])).toEqual([[a.grace.id, 45]]);
      expect(again.body.data.already_enrolled).toEqual([a.ada.id, a.alan.id]);
      expect(again.body.data.rejected_student_ids).toEqual([]);

      // Everyone already enrolled: not an error, nothing made, no event.
      const none = await post(a.key, '/alpha/enrollments', { curriculum_id: fractions.id, student_ids: [a.ada.id] });
      expect(none.status).toBe(200);
      expect(none.body.data).toEqual({ items: [], rejected_student_ids: [], already_enrolled: [a.ada.id] });
      expect(await events(a.key, 'alpha.enrollment.created')).toHaveLength(3);
    });

    it("the curriculum must be published and visible: drafts, unknown ids and another institution's are 422 at curriculum_id", async () => {
      for (const curriculumId of [draft.id, theirs.id, 'cur_doesNotExist']) {
        const res = await post(a.key, '/alpha/enrollments', { curriculum_id: curriculumId, student_ids: [a.ada.id] });
        expect(res.status, curriculumId).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details).toEqual([{ path: 'curriculum_id', message: expect.stringContaining(curriculumId) }]);
      }
      // Its own published curriculum is enrollable.
      expect(await enroll(a, history.id, [a.ada])).toHaveLength(1);
      expect(await a.inst.tenant.alphaEnrollments.count({ where: { curriculum_id: theirs.id } })).toBe(0);
    });

    it('student_ids: none valid is 422 no_valid_students with rejected_student_ids; empty or missing is 422 validation_error', async () => {
      const res = await post(a.key, '/alpha/enrollments', { curriculum_id: fractions.id, student_ids: ['stu_nope', b.alan.id, a.teacher.id] });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'no_valid_students', rejected_student_ids: ['stu_nope', b.alan.id, a.teacher.id] });
      for (const body of [
        { curriculum_id: fractions.id, student_ids: [] },
        { curriculum_id: fractions.id },
        { student_ids: [a.ada.id] },
        { curriculum_id: fractions.id, student_ids: [a.ada.id], daily_target_minutes: 0 },
        { curriculum_id: fractions.id, student_ids: [a.ada.id], daily_target_minutes: 601 },
        { curriculum_id: fractions.id, student_ids: [a.ada.id], daily_target_minutes: 1.5 },
        { curriculum_id: fractions.id, student_ids: [a.ada.id], status: 'active' },
      ]) {
        const bad = await post(a.key, '/alpha/enrollments', body);
        expect(bad.status, JSON.stringify(body)).toBe(422);
        expect(bad.body.error, JSON.stringify(body)).toBe('validation_error');
      }
    });

    it('an optional guide on create: faculty id or login email; unknown is 422 invalid_faculty and nothing is made', async () => {
      const curriculumForGuides = await curriculum('Guided', ['x'], { institution: a.inst.id });
      const bad = await post(a.key, '/alpha/enrollments', { curriculum_id: curriculumForGuides.id, student_ids: [a.ada.id], guide_id: 'fac_nope' });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe('invalid_faculty');
      expect(await a.inst.tenant.alphaEnrollments.count({ where: { curriculum_id: curriculumForGuides.id } })).toBe(0);
      const [made] = await enroll(a, curriculumForGuides.id, [a.ada], { guide_id: a.teacher.login_email });
      expect(made!.guide_id).toBe(a.teacher.id);
    });

    it('lists with filters student_id (id or login email), curriculum_id, status, and pages oldest first', async () => {
      const s = await school();
      const c1 = await curriculum('C1', ['x'], { institution: s.inst.id });
      const c2 = await curriculum('C2', ['y'], { institution: s.inst.id });
      // One call each: enrollments made by one call share a timestamp, and the list is oldest first.
      const [e1] = await enroll(s, c1.id, [s.ada]);
      const [e2] = await enroll(s, c1.id, [s.alan]);
      const [e3] = await enroll(s, c2.id, [s.ada]);
      expect((await patch(s.key, `/alpha/enrollments/${e2!.id}`, { status: 'paused' })).status).toBe(200);

      const all = await get(s.key, '/alpha/enrollments');
      expect(all.status).toBe(200);
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect((all.body.data.items as Enrollment[]).map((e) => e.id)).toEqual([e1!.id, e2!.id, e3!.id]);

      const ids = async (query: Record<string, unknown>) => ((await get(s.key, '/alpha/enrollments', query)).body.data.items as Enrollment[]).map((e) => e.id);
      expect(await ids({ student_id: s.ada.id })).toEqual([e1!.id, e3!.id]);
      expect(await ids({ student_id: s.ada.login_email })).toEqual([e1!.id, e3!.id]);
      expect(await ids({ student_id: 'stu_nope' })).toEqual([]);
      expect(await ids({ student_id: b.ada.id })).toEqual([]);
      expect(await ids({ curriculum_id: c1.id })).toEqual([e1!.id, e2!.id]);
      expect(await ids({ status: 'paused' })).toEqual([e2!.id]);
      expect(await ids({ status: 'active', curriculum_id: c1.id })).toEqual([e1!.id]);
      expect(await ids({ status: 'completed' })).toEqual([]);
      const paged = await get(s.key, '/alpha/enrollments', { page: 2, limit: 2 });
      expect(paged.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect((paged.body.data.items as Enrollment[]).map((e) => e.id)).toEqual([e3!.id]);
      expect((await get(s.key, '/alpha/enrollments', { status: 'done' })).status).toBe(422);
      // Another institution's enrollments are not listed.
      expect(await ids({ curriculum_id: fractions.id })).toEqual([]);
    });

    describe('PATCH', () => {
      it('sets the guide by id or login email, clears it with null, changes the daily target', async () => {
        const [e] = await enroll(a, (await curriculum('Patchable', ['p'], { institution: a.inst.id })).id, [a.ada]);
        const byEmail = await patch(a.key, `/alpha/enrollments/${e!.id}`, { guide_id: a.teacher.login_email, daily_target_minutes: 15 });
        expect(byEmail.status, JSON.stringify(byEmail.body)).toBe(200);
        expect(Object.keys(byEmail.body.data).sort()).toEqual(ENROLLMENT_FIELDS);
        expect(byEmail.body.data).toMatchObject({ id: e!.id, guide_id: a.teacher.id, daily_target_minutes: 15, status: 'active' });
        expect(Date.parse(byEmail.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(e!.updated_at));
        const cleared = await patch(a.key, `/alpha/enrollments/${e!.id}`, { guide_id: null });
        expect(cleared.body.data.guide_id).toBeNull();
        const byId = await patch(a.key, `/alpha/enrollments/${e!.id}`, { guide_id: a.teacher.id });
        expect(byId.body.data.guide_id).toBe(a.teacher.id);
        expect((await patch(a.key, `/alpha/enrollments/${e!.id}`, {})).body.data).toEqual(byId.body.data);
      });

      it('guide_id that is not an active faculty member of this institution is 422 invalid_faculty', async () => {
        const [e] = await enroll(a, (await curriculum('Guides', ['g'], { institution: a.inst.id })).id, [a.ada]);
        const suspended = await person(a.key, 'faculty', 'Suspended Teacher');
        expect((await patch(a.key, `/faculty/${suspended.id}`, { status: 'suspended' })).status).toBe(200);
        for (const guide of ['fac_nope', suspended.id, a.alan.id, b.teacher.id, b.teacher.login_email]) {
          const res = await patch(a.key, `/alpha/enrollments/${e!.id}`, { guide_id: guide });
          expect(res.status, guide).toBe(422);
          expect(res.body.error, guide).toBe('invalid_faculty');
        }
        for (const body of [{ guide_id: '' }, { daily_target_minutes: 0 }, { daily_target_minutes: 601 }, { status: 'done' }, { student_id: a.alan.id }]) {
          const res = await patch(a.key, `/alpha/enrollments/${e!.id}`, body);
          expect(res.status, JSON.stringify(body)).toBe(422);
          expect(res.body.error, JSON.stringify(body)).toBe('validation_error');
        }
        expect((await a.inst.tenant.alphaEnrollments.findById(e!.id))!.guide_id).toBeNull();
      });

      it('transitions: active ↔ paused, active|paused → completed; anything from completed is 409 conflict', async () => {
        const c = await curriculum('Transitions', ['t'], { institution: a.inst.id });
        const [e1, e2] = await enroll(a, c.id, [a.ada, a.alan]);
        const status = async (id: string, value: string) => patch(a.key, `/alpha/enrollments/${id}`, { status: value });

        expect((await status(e1!.id, 'paused')).body.data.status).toBe('paused');
        expect((await status(e1!.id, 'paused')).body.data.status).toBe('paused');
        expect((await status(e1!.id, 'active')).body.data.status).toBe('active');
        expect((await status(e1!.id, 'completed')).body.data.status).toBe('completed');
        expect((await status(e2!.id, 'paused')).body.data.status).toBe('paused');
        expect((await status(e2!.id, 'completed')).body.data.status).toBe('completed');

        for (const body of [
          { status: 'active' },
          { status: 'paused' },
          { daily_target_minutes: 99 },
          { guide_id: a.teacher.id },
          { status: 'completed', daily_target_minutes: 5 },
        ]) {
          const res = await patch(a.key, `/alpha/enrollments/${e1!.id}`, body);
          expect(res.status, JSON.stringify(body)).toBe(409);
          expect(res.body).toMatchObject({ success: false, error: 'conflict' });
        }
        // Restating a completed enrollment changes nothing and is not an error.
        const same = await status(e1!.id, 'completed');
        expect(same.status).toBe(200);
        expect(same.body.data).toMatchObject({ status: 'completed', daily_target_minutes: 30, guide_id: null });
        // An invalid guide is reported before the state.
        expect((await patch(a.key, `/alpha/enrollments/${e1!.id}`, { guide_id: 'fac_nope' })).body.error).toBe('invalid_faculty');
      });

      it("an unknown id, or another institution's enrollment, is 404 not_found", async () => {
        const [theirsEnrollment] = await enroll(b, theirs.id, [b.ada]);
        for (const id of ['enr_nope', theirsEnrollment!.id]) {
          const res = await patch(a.key, `/alpha/enrollments/${id}`, { status: 'paused' });
          expect(res.status, id).toBe(404);
          expect(res.body.error).toBe('not_found');
        }
        expect((await b.inst.tenant.alphaEnrollments.findById(theirsEnrollment!.id))!.status).toBe('active');
      });
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('points awards', () => {
    let s: School;
    let b: School;
    beforeAll(async () => {
      s = await school();
      b = await school();
    });

    it('adds a ledger row of source award, answers the total and emits alpha.points.awarded once', async () => {
      const res = await award(s, s.ada.id, { points: 25, note: 'Science fair finalist', ref: 'sis-1' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(AWARD_FIELDS);
      expect(res.body.data).toMatchObject({ student_id: s.ada.id, points: 25, note: 'Science fair finalist', ref: 'sis-1', total: 25, replayed: false });
      expect(res.body.data.id).toMatch(/^pts_[A-Za-z0-9]{24}$/);
      expect(res.body.data.created_at).toMatch(ISO_MS);

      // By login email, note optional.
      const second = await award(s, s.ada.login_email, { points: 5, ref: 'sis-2' });
      expect(second.body.data).toMatchObject({ points: 5, note: '', total: 30, replayed: false });

      const points = await get(s.key, `/alpha/students/${s.ada.id}/points`);
      expect(points.status).toBe(200);
      expect(points.body.data).toEqual({
        total: 30,
        streak_days: 0,
        badges: [],
        ledger: [
          { id: second.body.data.id, points: 5, note: '', ref: 'sis-2', source: 'award', created_at: second.body.data.created_at },
          { id: res.body.data.id, points: 25, note: 'Science fair finalist', ref: 'sis-1', source: 'award', created_at: res.body.data.created_at },
        ],
      });
      const awarded = await events(s.key, 'alpha.points.awarded');
      expect(awarded.map((event) => event.data)).toEqual([
        { student_id: s.ada.id, points: 25, ref: 'sis-1' },
        { student_id: s.ada.id, points: 5, ref: 'sis-2' },
      ]);
    });

    it('the same ref with the same body answers the first award with replayed: true and adds nothing', async () => {
      const body = { points: 7, note: 'Helped a classmate', ref: 'replay-1' };
      const first = await award(s, s.alan.id, body);
      expect(first.status).toBe(200);
      await award(s, s.alan.id, { points: 3, ref: 'replay-2' });
      // The replay repeats the first answer, total included, though the total moved since.
      const again = await award(s, s.alan.login_email, body);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ ...first.body.data, replayed: true });
      const rows = await s.inst.tenant.alphaPoints.count({ where: { ref: 'replay-1' } });
      expect(rows).toBe(1);
      expect((await get(s.key, `/alpha/students/${s.alan.id}/points`)).body.data.total).toBe(10);
      expect((await events(s.key, 'alpha.points.awarded')).filter((event) => event.data.ref === 'replay-1')).toHaveLength(1);
    });

    it('the same ref with a different body (points, note or student) is 409 conflict', async () => {
      await award(s, s.grace.id, { points: 10, note: 'n', ref: 'clash' });
      for (const [who, body] of [
        [s.grace.id, { points: 11, note: 'n', ref: 'clash' }],
        [s.grace.id, { points: 10, note: 'other', ref: 'clash' }],
        [s.grace.id, { points: 10, ref: 'clash' }],
        [s.ada.id, { points: 10, note: 'n', ref: 'clash' }],
      ] as const) {
        const res = await award(s, who, body);
        expect(res.status, JSON.stringify(body)).toBe(409);
        expect(res.body).toMatchObject({ success: false, error: 'conflict' });
      }
      expect(await s.inst.tenant.alphaPoints.count({ where: { ref: 'clash' } })).toBe(1);
      // A ref is unique per institution: another institution may use the same one.
      expect((await award(b, b.grace.id, { points: 10, note: 'other school', ref: 'clash' })).body.data.replayed).toBe(false);
    });

    it('20 parallel identical awards: exactly one ledger row, the total moves once, one event', async () => {
      const student = await person(s.key, 'students', 'Parallel Pupil');
      const body = { points: 40, note: 'Once only', ref: 'parallel-1' };
      const results = await Promise.all(Array.from({ length: 20 }, () => award(s, student.id, body)));
      for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const fresh = results.filter((res) => res.body.data.replayed === false);
      expect(fresh).toHaveLength(1);
      const first = fresh[0]!.body.data;
      for (const res of results) expect(res.body.data).toEqual({ ...first, replayed: res.body.data.replayed });
      expect(first.total).toBe(40);
      expect(await s.inst.tenant.alphaPoints.count({ where: { student_id: student.id } })).toBe(1);
      expect((await get(s.key, `/alpha/students/${student.id}/points`)).body.data.total).toBe(40);
      expect((await events(s.key, 'alpha.points.awarded')).filter((event) => event.data.ref === 'parallel-1')).toHaveLength(1);
    });

    it('20 parallel awards with different refs all land, and every total is accounted for', async () => {
      const student = await person(s.key, 'students', 'Busy Pupil');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => award(s, student.id, { points: i + 1, ref: `many-${i}` })));
      for (const res of results) expect(res.status).toBe(200);
      const totals = results.map((res) => res.body.data.total as number).sort((x, y) => x - y);
      expect(new Set(totals).size).toBe(20);
      expect(totals.at(-1)).toBe(210);
      expect((await get(s.key, `/alpha/students/${student.id}/points`)).body.data.total).toBe(210);
    });

    it('points must be an integer from -100 to 100 and not 0; note at most 500; ref 1 to 100 characters', async () => {
      for (const body of [
        { points: 0, ref: 'v' },
        { points: 101, ref: 'v' },
        { points: -101, ref: 'v' },
        { points: 1.5, ref: 'v' },
        { points: '5', ref: 'v' },
        { ref: 'v' },
        { points: 5 },
        { points: 5, ref: '' },
        { points: 5, ref: 'r'.repeat(101) },
        { points: 5, ref: 'v', note: 'n'.repeat(501) },
        { points: 5, ref: 'v', source: 'activity' },
      ]) {
        const res = await award(s, s.ada.id, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error, JSON.stringify(body)).toBe('validation_error');
      }
      expect((await award(s, s.ada.id, { points: 100, ref: 'r'.repeat(100), note: 'n'.repeat(500) })).status).toBe(200);
      expect((await award(s, s.ada.id, { points: -100, ref: 'max-negative' })).status).toBe(200);
      expect(await s.inst.tenant.alphaPoints.count({ where: { ref: 'v' } })).toBe(0);
    });

    it('a negative award that would take the total below 0 is 409 conflict, writes nothing and leaves the ref free', async () => {
      const student = await person(s.key, 'students', 'Careful Pupil');
      await award(s, student.id, { points: 10, ref: 'neg-base' });
      const tooMuch = await award(s, student.id, { points: -11, ref: 'neg-1' });
      expect(tooMuch.status).toBe(409);
      expect(tooMuch.body.error).toBe('conflict');
      expect(await s.inst.tenant.alphaPoints.count({ where: { ref: 'neg-1' } })).toBe(0);
      const exact = await award(s, student.id, { points: -10, ref: 'neg-2' });
      expect(exact.body.data).toMatchObject({ points: -10, total: 0, replayed: false });
      // The refused ref can be used once the total allows it.
      await award(s, student.id, { points: 50, ref: 'neg-top-up' });
      expect((await award(s, student.id, { points: -11, ref: 'neg-1' })).body.data).toMatchObject({ total: 39, replayed: false });
    });

    it('GET points: limit (default 20, 1 to 200), newest first', async () => {
      const student = await person(s.key, 'students', 'Ledger Pupil');
      for (let i = 0; i < 22; i += 1) await award(s, student.id, { points: 1, ref: `ledger-${i}` });
      const def = await get(s.key, `/alpha/students/${student.id}/points`);
      expect(def.body.data.total).toBe(22);
      expect(def.body.data.ledger).toHaveLength(20);
      for (const row of def.body.data.ledger) expect(Object.keys(row).sort()).toEqual(LEDGER_FIELDS);
      expect(def.body.data.ledger[0].ref).toBe('ledger-21');
      const three = await get(s.key, `/alpha/students/${student.id}/points`, { limit: 3 });
      expect(three.body.data.ledger.map((row: { ref: string }) => row.ref)).toEqual(['ledger-21', 'ledger-20', 'ledger-19']);
      for (const limit of [0, 201, 'x']) expect((await get(s.key, `/alpha/students/${student.id}/points`, { limit })).status).toBe(422);
      expect((await get(s.key, `/alpha/students/${student.id}/points`, { page: 1 })).status).toBe(422);
    });

    it('a student of another institution, a faculty member or an unknown id is 404 not_found', async () => {
      for (const who of [b.ada.id, b.ada.login_email, s.teacher.id, 'stu_nope']) {
        const res = await award(s, who, { points: 5, ref: `unknown-${who}` });
        expect(res.status, who).toBe(404);
        expect(res.body.error).toBe('not_found');
        for (const path of ['', '/mastery', '/points']) {
          const read = await get(s.key, `/alpha/students/${who}${path}`);
          expect(read.status, `${who}${path}`).toBe(404);
          expect(read.body.error).toBe('not_found');
        }
      }
      expect(await b.inst.tenant.alphaPoints.count({ where: { student_id: b.ada.id } })).toBe(0);
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('learner activity', () => {
    let s: School;
    let b: School;
    let fractions: Curriculum;
    let other: Curriculum;
    let theirs: Curriculum;
    let adaEnrollment: Enrollment;
    let adaSession: string;
    beforeAll(async () => {
      s = await school();
      b = await school();
      fractions = await curriculum('Fractions', ['Equivalent fractions', 'Adding fractions', 'Mixed numbers'], { institution: s.inst.id });
      other = await curriculum('Other', ['Elsewhere'], { institution: s.inst.id });
      theirs = await curriculum('Theirs', ['Hidden'], { institution: b.inst.id });
      [adaEnrollment] = (await enroll(s, fractions.id, [s.ada], { daily_target_minutes: 10 })) as [Enrollment];
      adaSession = await sessionOf(s.key, s.ada);
    });

    const concept = (i: number) => fractions.concepts[i]!.id;

    it('a correct answer: mastery 0.3, +10 points, streak 1, badge first_activity', async () => {
      const before = Date.now();
      const res = await activity(adaSession, { curriculum_id: fractions.id, concept_id: concept(0), correct: true, minutes: 3 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['awards', 'badges', 'mastery', 'new_badges', 'points_awarded', 'streak_days', 'total']);
      expect(res.body.data.awards).toEqual([{ points: 10, note: 'Correct answer: Equivalent fractions' }]);
      expect(Object.keys(res.body.data.mastery).sort()).toEqual(MASTERY_FIELDS);
      expect(res.body.data.mastery).toMatchObject({
        curriculum_id: fractions.id,
        concept_id: concept(0),
        concept_name: 'Equivalent fractions',
        mastery: 0.3,
        attempts: 1,
        correct: 1,
      });
      expect(Date.parse(res.body.data.mastery.last_activity_at)).toBeGreaterThanOrEqual(before - 5);
      expect(res.body.data).toMatchObject({ points_awarded: ALPHA_RULES.CORRECT_POINTS, total: 10, streak_days: 1, new_badges: ['first_activity'] });
      expect(res.body.data.badges).toEqual([{ code: 'first_activity', awarded_at: expect.stringMatching(ISO_MS) }]);

      const points = (await get(s.key, `/alpha/students/${s.ada.id}/points`)).body.data;
      expect(points.total).toBe(10);
      expect(points.streak_days).toBe(1);
      expect(points.ledger).toEqual([
        {
          id: expect.stringMatching(/^pts_/),
          points: 10,
          note: 'Correct answer: Equivalent fractions',
          ref: expect.stringMatching(/^act_/),
          source: 'activity',
          created_at: expect.stringMatching(ISO_MS),
        },
      ]);
    });

    it('a wrong answer moves mastery toward 0 and earns nothing', async () => {
      const res = await activity(adaSession, { curriculum_id: fractions.id, concept_id: concept(0), correct: false, minutes: 1 });
      expect(res.status).toBe(200);
      expect(res.body.data.mastery).toMatchObject({ mastery: round4(nextMastery(0.3, false)), attempts: 2, correct: 1 });
      expect(res.body.data.mastery.mastery).toBe(0.21);
      expect(res.body.data).toMatchObject({ points_awarded: 0, awards: [], total: 10, new_badges: [] });
    });

    it('mastery follows m + 0.3 × (target − m); reaching 0.8 earns mastery_0_8; the daily target pays its bonus once', async () => {
      // Ada has 4 of her 10 daily minutes on this enrollment. Five correct answers on concept 1, 2 minutes each.
      let expected = 0;
      const results = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await activity(adaSession, { curriculum_id: fractions.id, concept_id: concept(1), correct: true, minutes: 2 });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expected = nextMastery(expected, true);
        expect(res.body.data.mastery.mastery).toBe(round4(expected));
        results.push(res.body.data);
      }
      // 4 + 2 + 2 + 2 = 10 minutes at the third: the bonus is paid with it, and never again.
      expect(results.map((r) => r.points_awarded)).toEqual([10, 10, 10 + ALPHA_RULES.DAILY_TARGET_BONUS, 10, 10]);
      expect(results.map((r) => r.total)).toEqual([20, 30, 60, 70, 80]);
      expect(results[2].awards.map((award: { points: number; note: string }) => award.points)).toEqual([10, ALPHA_RULES.DAILY_TARGET_BONUS]);
      expect(results[2].awards[1].note).toMatch(/^Daily target of 10 minutes reached: /);
      expect(round4(expected)).toBe(0.8319);
      expect(results[4].new_badges).toEqual(['mastery_0_8']);
      expect(results[3].new_badges).toEqual([]);
      expect(results[4].badges.map((badge: { code: string }) => badge.code)).toEqual(['first_activity', 'mastery_0_8']);

      const ledger = (await get(s.key, `/alpha/students/${s.ada.id}/points`, { limit: 200 })).body.data.ledger as Array<{
        ref: string;
        points: number;
        note: string;
      }>;
      const bonus = ledger.filter((row) => row.ref.startsWith('daily_target:'));
      expect(bonus).toEqual([
        expect.objectContaining({
          points: 20,
          ref: `daily_target:${adaEnrollment.id}:${utcDay(new Date())}`,
          note: 'Daily target of 10 minutes reached: Fractions',
        }),
      ]);
      expect(ledger.reduce((sum, row) => sum + row.points, 0)).toBe(80);
    });

    it('points are written once each: the ledger sums to the total, each row carries the running total and has one event', async () => {
      const rows = await s.inst.tenant.alphaPoints.findAll({ where: { student_id: s.ada.id }, order: [['created_at', 'ASC']] });
      let running = 0;
      for (const row of rows) {
        running += row.points;
        expect(row.balance_after).toBe(running);
      }
      expect(running).toBe((await get(s.key, `/alpha/students/${s.ada.id}/points`)).body.data.total);
      const awarded = await events(s.key, 'alpha.points.awarded');
      expect(awarded.map((event) => event.data)).toEqual(rows.map((row) => ({ student_id: s.ada.id, points: row.points, ref: row.ref })));
    });

    it('parallel activities are each counted once: mastery attempts, points and a single daily bonus', async () => {
      const pupil = await person(s.key, 'students', 'Parallel Practiser');
      const [e] = await enroll(s, fractions.id, [pupil], { daily_target_minutes: 5 });
      const session = await sessionOf(s.key, pupil);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => activity(session, { curriculum_id: fractions.id, concept_id: concept(2), correct: true, minutes: 1 })),
      );
      for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(results.map((res) => res.body.data.mastery.attempts).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(results.filter((res) => res.body.data.points_awarded === 30)).toHaveLength(1);
      const points = (await get(s.key, `/alpha/students/${pupil.id}/points`, { limit: 200 })).body.data;
      expect(points.total).toBe(10 * ALPHA_RULES.CORRECT_POINTS + ALPHA_RULES.DAILY_TARGET_BONUS);
      expect(points.ledger.filter((row: { ref: string }) => row.ref === `daily_target:${e!.id}:${utcDay(new Date())}`)).toHaveLength(1);
      expect(points.badges.map((badge: { code: string }) => badge.code)).toEqual(['first_activity', 'mastery_0_8']);
      const mastery = (await get(s.key, `/alpha/students/${pupil.id}/mastery`)).body.data.items[2];
      expect(mastery).toMatchObject({ attempts: 10, correct: 10, mastery: round4(1 - 0.7 ** 10) });
    });

    it('streak: consecutive UTC days with activity ending today; streak_3 and streak_7 badges', async () => {
      const [e] = await enroll(s, other.id, [s.grace]);
      const graceSession = await sessionOf(s.key, s.grace);
      const elsewhere = other.concepts[0]!.id;
      // Yesterday and the day before, then a gap, then older days.
      for (const daysAgo of [1, 2, 4, 5, 6, 7]) await pastActivity(s, e!, elsewhere, daysAgo);
      // Before today's activity the streak is still alive from yesterday.
      expect((await get(s.key, `/alpha/students/${s.grace.id}/points`)).body.data.streak_days).toBe(2);
      const today = await activity(graceSession, { curriculum_id: other.id, concept_id: elsewhere, correct: true, minutes: 5 });
      expect(today.status).toBe(200);
      expect(today.body.data.streak_days).toBe(3);
      expect(today.body.data.new_badges).toEqual(['first_activity', 'streak_3']);
      // A second activity the same day: the streak stays, no badge twice.
      const again = await activity(graceSession, { curriculum_id: other.id, concept_id: elsewhere, correct: true, minutes: 1 });
      expect(again.body.data.streak_days).toBe(3);
      expect(again.body.data.new_badges).toEqual([]);
      // Filling the gap joins the older days: 8 days in a row.
      await pastActivity(s, e!, elsewhere, 3);
      const joined = await activity(graceSession, { curriculum_id: other.id, concept_id: elsewhere, correct: false, minutes: 0 });
      expect(joined.body.data.streak_days).toBe(8);
      expect(joined.body.data.new_badges).toEqual(['streak_7']);
      expect(joined.body.data.badges.map((badge: { code: string }) => badge.code).sort()).toEqual(['first_activity', 'streak_3', 'streak_7']);
    });

    it('a streak that ended before yesterday is 0', async () => {
      const [e] = await enroll(s, other.id, [s.alan]);
      for (const daysAgo of [2, 3, 4]) await pastActivity(s, e!, other.concepts[0]!.id, daysAgo);
      expect((await get(s.key, `/alpha/students/${s.alan.id}/points`)).body.data.streak_days).toBe(0);
      expect((await get(s.key, `/alpha/students/${s.alan.id}`)).body.data.streak_days).toBe(0);
    });

    it('refuses: unknown or invisible curriculum 404, foreign concept 422, no active enrollment 409, faculty 403, bad bodies 422', async () => {
      const post = (body: Record<string, unknown>) => activity(adaSession, { correct: true, minutes: 1, ...body });
      for (const curriculumId of ['cur_nope', theirs.id]) {
        const res = await post({ curriculum_id: curriculumId, concept_id: concept(0) });
        expect(res.status, curriculumId).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
      const foreign = await post({ curriculum_id: fractions.id, concept_id: other.concepts[0]!.id });
      expect(foreign.status).toBe(422);
      expect(foreign.body.error).toBe('validation_error');
      expect(foreign.body.details[0].path).toBe('concept_id');

      // Not enrolled in `other`.
      const notEnrolled = await post({ curriculum_id: other.id, concept_id: other.concepts[0]!.id });
      expect(notEnrolled.status).toBe(409);
      expect(notEnrolled.body.error).toBe('conflict');

      // Paused, then completed: 409; active again works.
      const totalBefore = (await get(s.key, `/alpha/students/${s.ada.id}/points`)).body.data.total;
      await patch(s.key, `/alpha/enrollments/${adaEnrollment.id}`, { status: 'paused' });
      expect((await post({ curriculum_id: fractions.id, concept_id: concept(2) })).status).toBe(409);
      await patch(s.key, `/alpha/enrollments/${adaEnrollment.id}`, { status: 'active' });
      expect((await post({ curriculum_id: fractions.id, concept_id: concept(2) })).status).toBe(200);
      await patch(s.key, `/alpha/enrollments/${adaEnrollment.id}`, { status: 'completed' });
      const completed = await post({ curriculum_id: fractions.id, concept_id: concept(2) });
      expect(completed.status).toBe(409);
      expect((await get(s.key, `/alpha/students/${s.ada.id}/points`)).body.data.total).toBe(totalBefore + 10);

      for (const body of [
        { curriculum_id: fractions.id, concept_id: concept(0), correct: 'yes', minutes: 1 },
        { curriculum_id: fractions.id, concept_id: concept(0), minutes: 1 },
        { curriculum_id: fractions.id, concept_id: concept(0), correct: true, minutes: 601 },
        { curriculum_id: fractions.id, concept_id: concept(0), correct: true, minutes: -1 },
        { curriculum_id: fractions.id, concept_id: concept(0), correct: true, minutes: 1, points: 100 },
        { concept_id: concept(0), correct: true },
      ]) {
        const res = await activity(adaSession, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }

      // A faculty member's session is 403; an API key is not a session (401).
      const teacherSession = await sessionOf(s.key, s.teacher);
      const teacher = await activity(teacherSession, { curriculum_id: fractions.id, concept_id: concept(0), correct: true });
      expect(teacher.status).toBe(403);
      expect(teacher.body.error).toBe('forbidden');
      const withKey = await app.http
        .post('/v1/app/alpha/activity')
        .set('Authorization', s.key.auth)
        .send({ curriculum_id: fractions.id, concept_id: concept(0), correct: true });
      expect(withKey.status).toBe(401);
      expect((await app.http.post('/v1/app/alpha/activity').send({})).status).toBe(401);
    });

    it("a shared curriculum works the same, and another institution's student never sees this one's rows", async () => {
      const shared = await curriculum('Shared skills', ['Skill one']);
      const [e] = await enroll(b, shared.id, [b.ada]);
      const session = await sessionOf(b.key, b.ada);
      const res = await activity(session, { curriculum_id: shared.id, concept_id: shared.concepts[0]!.id, correct: true, minutes: 30 });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ points_awarded: 30, total: 30 });
      expect(await s.inst.tenant.alphaActivities.count({ where: { enrollment_id: e!.id } })).toBe(0);
      // Not enrolled in the shared curriculum in school s: 409 for s's student.
      expect((await activity(adaSession, { curriculum_id: shared.id, concept_id: shared.concepts[0]!.id, correct: true })).status).toBe(409);
    });

    it('GET mastery lists every concept of the enrolled curricula, practised or not; curriculum_id narrows it', async () => {
      const res = await get(s.key, `/alpha/students/${s.ada.login_email}/mastery`);
      expect(res.status).toBe(200);
      const items = res.body.data.items as Array<Record<string, unknown>>;
      expect(items.map((item) => item.concept_id)).toEqual(fractions.concepts.map((c) => c.id));
      for (const item of items) expect(Object.keys(item).sort()).toEqual(MASTERY_FIELDS);
      expect(items[0]).toMatchObject({ concept_name: 'Equivalent fractions', mastery: 0.21, attempts: 2, correct: 1 });
      expect(items[1]).toMatchObject({ mastery: 0.8319, attempts: 5, correct: 5 });
      expect(items[2]).toMatchObject({ mastery: 0.3, attempts: 1, correct: 1 });
      const untouched = await get(s.key, `/alpha/students/${s.grace.id}/mastery`, { curriculum_id: other.id });
      expect(untouched.body.data.items).toHaveLength(1);
      expect((await get(s.key, `/alpha/students/${s.grace.id}/mastery`, { curriculum_id: fractions.id })).body.data.items).toEqual([]);
      const fresh = await person(s.key, 'students', 'Fresh Pupil');
      await enroll(s, fractions.id, [fresh]);
      const none = (await get(s.key, `/alpha/students/${fresh.id}/mastery`)).body.data.items;
      expect(none).toHaveLength(3);
      expect(none[0]).toEqual({
        curriculum_id: fractions.id,
        concept_id: concept(0),
        concept_name: 'Equivalent fractions',
        mastery: 0,
        attempts: 0,
        correct: 0,
        last_activity_at: null,
      });
    });

    it('GET student drill-down: student, enrollments, points_total, streak_days, mastery_summary', async () => {
      const res = await get(s.key, `/alpha/students/${s.ada.id}`);
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['enrollments', 'mastery_summary', 'points_total', 'streak_days', 'student']);
      expect(data.student).toEqual({ id: s.ada.id, login_email: s.ada.login_email, full_name: 'Ada Lovelace', status: 'active' });
      expect((data.enrollments as Enrollment[]).map((e) => [e.id, e.status])).toEqual([[adaEnrollment.id, 'completed']]);
      expect(data.points_total).toBe((await get(s.key, `/alpha/students/${s.ada.id}/points`)).body.data.total);
      expect(data.streak_days).toBe(1);
      const counts = { concepts_total: 3, concepts_practiced: 3, concepts_mastered: 1, average_mastery: round4((0.21 + 0.8319 + 0.3) / 3) };
      expect(data.mastery_summary.concepts_total).toBe(3);
      expect(data.mastery_summary).toMatchObject({ concepts_total: 3, concepts_practiced: 3, concepts_mastered: 1 });
      expect(data.mastery_summary.average_mastery).toBeCloseTo(counts.average_mastery, 3);
      expect(data.mastery_summary.curricula).toEqual([{ curriculum_id: fractions.id, ...counts, average_mastery: data.mastery_summary.average_mastery }]);

      const nobody = await person(s.key, 'students', 'Not Enrolled');
      expect((await get(s.key, `/alpha/students/${nobody.login_email}`)).body.data).toEqual({
        student: { id: nobody.id, login_email: nobody.login_email, full_name: 'Not Enrolled', status: 'active' },
        enrollments: [],
        points_total: 0,
        streak_days: 0,
        mastery_summary: { concepts_total: 0, concepts_practiced: 0, concepts_mastered: 0, average_mastery: null, curricula: [] },
      });
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('leaderboard', () => {
    it('students with a positive total, highest first; ties share a rank (1, 2, 2, 4) and are listed by name', async () => {
      const s = await school();
      const b = await school();
      const dora = await person(s.key, 'students', 'Dora Explorer');
      const zero = await person(s.key, 'students', 'Zero Points');
      await award(s, s.ada.id, { points: 50, ref: 'lb-1' });
      await award(s, s.grace.id, { points: 30, ref: 'lb-2' });
      await award(s, s.alan.id, { points: 30, ref: 'lb-3' });
      await award(s, dora.id, { points: 10, ref: 'lb-4' });
      await award(s, zero.id, { points: 5, ref: 'lb-5' });
      await award(s, zero.id, { points: -5, ref: 'lb-6' });
      await award(b, b.ada.id, { points: 100, ref: 'lb-1' });

      const res = await get(s.key, '/alpha/leaderboard');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        items: [
          { rank: 1, student_id: s.ada.id, full_name: 'Ada Lovelace', points: 50 },
          { rank: 2, student_id: s.alan.id, full_name: 'Alan Turing', points: 30 },
          { rank: 2, student_id: s.grace.id, full_name: 'Grace Hopper', points: 30 },
          { rank: 4, student_id: dora.id, full_name: 'Dora Explorer', points: 10 },
        ],
      });
      const two = await get(s.key, '/alpha/leaderboard', { limit: 2 });
      expect(two.body.data.items.map((item: { student_id: string }) => item.student_id)).toEqual([s.ada.id, s.alan.id]);
      for (const limit of [0, 101, 'x']) {
        const bad = await get(s.key, '/alpha/leaderboard', { limit });
        expect(bad.status, String(limit)).toBe(422);
        expect(bad.body.error).toBe('validation_error');
      }
      expect((await get(s.key, '/alpha/leaderboard', { limit: 100 })).status).toBe(200);
      expect((await get(s.key, '/alpha/leaderboard', { page: 1 })).status).toBe(422);
    });

    it('defaults to 10 entries', async () => {
      const s = await school();
      for (let i = 0; i < 12; i += 1) {
        const p = await person(s.key, 'students', `Pupil ${String(i).padStart(2, '0')}`);
        await award(s, p.id, { points: 12 - i, ref: `ten-${i}` });
      }
      const items = (await get(s.key, '/alpha/leaderboard')).body.data.items as Array<{ rank: number; points: number }>;
      expect(items).toHaveLength(10);
      expect(items.map((item) => item.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(items.map((item) => item.points)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('scopes', () => {
    it('alpha:read reads; writing needs alpha:write (403 insufficient_scope); other scopes read nothing', async () => {
      const s = await school();
      const c = await curriculum('Scoped', ['s'], { institution: s.inst.id });
      const [e] = await enroll(s, c.id, [s.ada]);
      const reader = await makeKey(app, s.inst, { scopes: ['alpha:read'] });
      const writer = await makeKey(app, s.inst, { scopes: ['alpha:write'] });
      const stranger = await makeKey(app, s.inst, { scopes: ['students:write'] });

      for (const path of [
        '/alpha/curricula',
        '/alpha/enrollments',
        `/alpha/students/${s.ada.id}`,
        `/alpha/students/${s.ada.id}/mastery`,
        `/alpha/students/${s.ada.id}/points`,
        '/alpha/leaderboard',
      ]) {
        expect((await get(reader, path)).status, path).toBe(200);
        expect((await get(writer, path)).status, path).toBe(200);
        const refused = await get(stranger, path);
        expect(refused.status, path).toBe(403);
        expect(refused.body).toMatchObject({ error: 'insufficient_scope', required: ['alpha:read'], missing: ['alpha:read'] });
      }
      const writes = [
        () => post(reader, '/alpha/enrollments', { curriculum_id: c.id, student_ids: [s.alan.id] }),
        () => patch(reader, `/alpha/enrollments/${e!.id}`, { status: 'paused' }),
        () => post(reader, `/alpha/students/${s.ada.id}/points`, { points: 5, ref: 'scoped' }),
      ];
      for (const write of writes) {
        const res = await write();
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['alpha:write'], missing: ['alpha:write'] });
      }
      expect((await post(writer, `/alpha/students/${s.ada.id}/points`, { points: 5, ref: 'scoped' })).status).toBe(200);
      expect((await patch(writer, `/alpha/enrollments/${e!.id}`, { status: 'paused' })).status).toBe(200);
      expect((await post(writer, '/alpha/enrollments', { curriculum_id: c.id, student_ids: [s.alan.id] })).status).toBe(200);
    });
  });
});
