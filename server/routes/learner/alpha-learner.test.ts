// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALPHA_RULES, nextMastery } from '../../commands/alpha/rules.js';
import {
  learnerSession,
  makePerson,
  makeSchool,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';
import { runCliCaptured } from '../../../tests/helpers/cli.js';

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;
const OVERVIEW_FIELDS = ['badges', 'curricula', 'points_total', 'streak_days'];
const CURRICULUM_FIELDS = [
  'average_mastery',
  'concepts',
  'concepts_mastered',
  'concepts_practiced',
  'concepts_total',
  'description',
  'enrollment',
  'id',
  'name',
];

interface Curriculum {
  id: string;
  name: string;
  concepts: Array<{ id: string; name: string }>;
}

interface ConceptMastery {
  curriculum_id: string;
  concept_id: string;
  concept_name: string;
  mastery: number;
  attempts: number;
  correct: number;
  last_activity_at: string | null;
}

interface Overview {
  curricula: Array<{
    id: string;
    name: string;
    description: string;
    enrollment: { id: string; status: 'active' | 'paused' | 'completed'; daily_target_minutes: number };
    concepts_total: number;
    concepts_practiced: number;
    concepts_mastered: number;
    average_mastery: number | null;
    concepts: ConceptMastery[];
  }>;
  points_total: number;
  streak_days: number;
  badges: Array<{ code: string; awarded_at: string }>;
}

describe('Learner side: GET /v1/app/alpha', () => {
  let app: TestAppliance;
  let a: TestSchool & { ada: TestPerson; alan: TestPerson; teacher: TestPerson };
  let b: TestSchool & { bea: TestPerson };
  let fractions: Curriculum;
  let geometry: Curriculum;
  let theirs: Curriculum;

  const cli = async (...argv: string[]) => {
    const result = await runCliCaptured(app, ...argv);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout) as Curriculum;
  };

  const overview = (session: string) => app.http.get('/v1/app/alpha').set('Authorization', `Bearer ${session}`);
  const activity = (session: string, body: Record<string, unknown>) =>
    app.http.post('/v1/app/alpha/activity').set('Authorization', `Bearer ${session}`).send(body);

  async function enroll(key: TestKey, curriculumId: string, students: TestPerson[]): Promise<Array<{ id: string }>> {
    const res = await app.http
      .post('/v1/alpha/enrollments')
      .set('Authorization', key.auth)
      .send({ curriculum_id: curriculumId, student_ids: students.map((p) => p.id), daily_target_minutes: 10 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.items as Array<{ id: string }>;
  }

  beforeAll(async () => {
    app = await startTestAppliance();
    const schoolA = await makeSchool(app);
    a = {
      ...schoolA,
      ada: await makePerson(app, schoolA.key, 'students', 'Ada Lovelace'),
      alan: await makePerson(app, schoolA.key, 'students', 'Alan Turing'),
      teacher: await makePerson(app, schoolA.key, 'faculty', 'Katherine Johnson'),
    };
    const schoolB = await makeSchool(app);
    b = { ...schoolB, bea: await makePerson(app, schoolB.key, 'students', 'Bea Other') };
    fractions = await cli('curriculum', 'create', '--name', 'Fractions', '--concepts', 'Halves,Thirds,Mixed numbers', '--publish');
    geometry = await cli('curriculum', 'create', '--name', 'Geometry', '--concepts', 'Angles,Triangles', '--institution', a.inst.id, '--publish');
    theirs = await cli('curriculum', 'create', '--name', 'Their algebra', '--concepts', 'Terms', '--institution', b.inst.id, '--publish');
    await enroll(a.key, fractions.id, [a.ada, a.alan]);
    await enroll(a.key, geometry.id, [a.ada]);
    await enroll(b.key, theirs.id, [b.bea]);
    await enroll(b.key, fractions.id, [b.bea]);
  });
  afterAll(() => app.close());

  it('before any practice: the enrolled curricula, every concept at 0, no points, streak or badges', async () => {
    const res = await overview(await learnerSession(app, a.key, a.ada));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as Overview;
    expect(Object.keys(data).sort()).toEqual(OVERVIEW_FIELDS);
    expect(data.curricula.map((item) => item.name)).toEqual(['Fractions', 'Geometry']);
    expect(Object.keys(data.curricula[0]!).sort()).toEqual(CURRICULUM_FIELDS);
    expect(data.curricula[0]!.enrollment).toMatchObject({ status: 'active', daily_target_minutes: 10 });
    expect(data.curricula[0]!.concepts.map((concept) => concept.concept_name)).toEqual(['Halves', 'Thirds', 'Mixed numbers']);
    for (const concept of data.curricula.flatMap((item) => item.concepts)) {
      expect(concept).toMatchObject({ mastery: 0, attempts: 0, correct: 0, last_activity_at: null });
    }
    expect(data.curricula[0]).toMatchObject({ concepts_total: 3, concepts_practiced: 0, concepts_mastered: 0, average_mastery: 0 });
    expect(data).toMatchObject({ points_total: 0, streak_days: 0, badges: [] });
  });

  it('after practice: mastery per concept, points, streak and badges are what the activity earned, and what the school reads', async () => {
    const session = await learnerSession(app, a.key, a.ada);
    const halves = fractions.concepts[0]!.id;
    for (const correct of [true, true, false]) {
      const res = await activity(session, { curriculum_id: fractions.id, concept_id: halves, correct, minutes: 4 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const expected = round4(nextMastery(nextMastery(nextMastery(0, true), true), false));
    // 2 correct answers, and the 10-minute daily target reached on the third activity (12 minutes).
    const points = 2 * ALPHA_RULES.CORRECT_POINTS + ALPHA_RULES.DAILY_TARGET_BONUS;

    const data = (await overview(session)).body.data as Overview;
    const concept = data.curricula[0]!.concepts[0]!;
    expect(concept).toMatchObject({ concept_id: halves, curriculum_id: fractions.id, mastery: expected, attempts: 3, correct: 2 });
    expect(concept.last_activity_at).not.toBeNull();
    expect(data.curricula[0]).toMatchObject({ concepts_practiced: 1, average_mastery: round4(expected / 3) });
    expect(data.curricula[1]).toMatchObject({ concepts_practiced: 0 });
    expect(data.points_total).toBe(points);
    expect(data.streak_days).toBe(1);
    expect(data.badges.map((badge) => badge.code)).toEqual(['first_activity']);

    // The integration side's reads of the same student agree.
    const school = await app.http.get(`/v1/alpha/students/${a.ada.id}/points`).set('Authorization', a.key.auth);
    expect(school.body.data).toMatchObject({ total: data.points_total, streak_days: data.streak_days, badges: data.badges });

    // Another student of the same school sees only their own numbers.
    const alan = (await overview(await learnerSession(app, a.key, a.alan))).body.data as Overview;
    expect(alan.curricula.map((item) => item.name)).toEqual(['Fractions']);
    expect(alan.curricula[0]!.concepts[0]).toMatchObject({ mastery: 0, attempts: 0 });
    expect(alan.points_total).toBe(0);
  });

  it('a paused enrollment stays listed with its mastery, as paused, and takes no activity', async () => {
    const [enrollment] = (await app.http
      .get('/v1/alpha/enrollments')
      .query({ student_id: a.ada.id, curriculum_id: geometry.id })
      .set('Authorization', a.key.auth)
      .then((res) => res.body.data.items)) as Array<{ id: string }>;
    const paused = await app.http.patch(`/v1/alpha/enrollments/${enrollment!.id}`).set('Authorization', a.key.auth).send({ status: 'paused' });
    expect(paused.status).toBe(200);
    const session = await learnerSession(app, a.key, a.ada);
    const data = (await overview(session)).body.data as Overview;
    expect(data.curricula.map((item) => [item.name, item.enrollment.status])).toEqual([
      ['Fractions', 'active'],
      ['Geometry', 'paused'],
    ]);
    const refused = await activity(session, { curriculum_id: geometry.id, concept_id: geometry.concepts[0]!.id, correct: true, minutes: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conflict');
  });

  it('a completed enrollment stays listed as completed and takes no activity either', async () => {
    const session = await learnerSession(app, a.key, a.alan);
    const halves = fractions.concepts[0]!.id;
    expect((await activity(session, { curriculum_id: fractions.id, concept_id: halves, correct: true, minutes: 2 })).status).toBe(200);
    const [enrollment] = (await app.http
      .get('/v1/alpha/enrollments')
      .query({ student_id: a.alan.id, curriculum_id: fractions.id })
      .set('Authorization', a.key.auth)
      .then((res) => res.body.data.items)) as Array<{ id: string }>;
    const completed = await app.http.patch(`/v1/alpha/enrollments/${enrollment!.id}`).set('Authorization', a.key.auth).send({ status: 'completed' });
    expect(completed.status).toBe(200);
    const data = (await overview(session)).body.data as Overview;
    expect(data.curricula.map((item) => item.enrollment.status)).toEqual(['completed']);
    expect(data.curricula[0]!.concepts[0]).toMatchObject({ attempts: 1, mastery: round4(nextMastery(0, true)) });
    expect(data.points_total).toBe(ALPHA_RULES.CORRECT_POINTS);
    const refused = await activity(session, { curriculum_id: fractions.id, concept_id: halves, correct: true, minutes: 1 });
    expect(refused.status).toBe(409);
  });

  it("another institution's curricula and activity never show, though both use the shared curriculum", async () => {
    const session = await learnerSession(app, b.key, b.bea);
    const res = await activity(session, { curriculum_id: fractions.id, concept_id: fractions.concepts[1]!.id, correct: true, minutes: 1 });
    expect(res.status).toBe(200);
    const data = (await overview(session)).body.data as Overview;
    expect(data.curricula.map((item) => item.name)).toEqual(['Their algebra', 'Fractions']);
    expect(data.curricula.map((item) => item.id)).not.toContain(geometry.id);
    // Ada's practice on Halves is not Bea's.
    expect(data.curricula[1]!.concepts[0]).toMatchObject({ concept_name: 'Halves', attempts: 0 });
    expect(data.curricula[1]!.concepts[1]).toMatchObject({ concept_name: 'Thirds', attempts: 1 });
    expect(data.points_total).toBe(ALPHA_RULES.CORRECT_POINTS);

    // And school A's student does not see school B's own curriculum.
    const ada = (await overview(await learnerSession(app, a.key, a.ada))).body.data as Overview;
    expect(ada.curricula.map((item) => item.id)).not.toContain(theirs.id);
  });

  it("a faculty member's session is 403 forbidden; no session is 401", async () => {
    const res = await overview(await learnerSession(app, a.key, a.teacher));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
    expect((await app.http.get('/v1/app/alpha')).status).toBe(401);
    // An API key is not a learner session.
    expect((await app.http.get('/v1/app/alpha').set('Authorization', a.key.auth)).status).toBe(401);
  });

  it('is documented in the OpenAPI document as a learner operation', async () => {
    const doc = (await app.http.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, { 'x-auth'?: string; tags?: string[] }>> };
    expect(doc.paths['/app/alpha']?.get).toMatchObject({ 'x-auth': 'session', tags: ['SSO'] });
  });
});
