// @tier integration
// @databases sqlite, postgres
// Exams: CRUD, the draft → published → closed states, assignments with their notification mail,
// attempts, analytics, scores and the CSV export; the people and groups sides that list exams.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeScores, csvCell } from '../../commands/exams/results.js';
import { newId } from '../../ids.js';
import { openRecipient } from '../../mail/outbox.js';
import type { MailOutboxRow } from '../../models/mail.js';
import type { SubmissionStatus } from '../../models/submission.js';
import type { Scope } from '../../policies/scopes.js';
import {
  makeKey,
  outboxText,
  makeSchool,
  readEvents,
  requestsAs,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EXAM_FIELDS = [
  'ai_policy',
  'app',
  'closed_at',
  'code_spec',
  'created_at',
  'description',
  'due_date',
  'exam_type',
  'faculty_id',
  'id',
  'max_score',
  'proctoring',
  'published_at',
  'status',
  'time_limit_minutes',
  'title',
  'updated_at',
];
const CSV_HEADER = 'student_id,login_email,full_name,submission_id,status,score,max_score,submitted_at,graded_at';
const DEFAULT_CONFIG = {
  default_ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
  default_proctoring: { camera: false, screen: false },
};
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Person {
  id: string;
  login_email: string;
  full_name: string;
}

interface WireExam {
  id: string;
  faculty_id: string;
  title: string;
  status: string;
  updated_at: string;
  [field: string]: unknown;
}

describe('Exams', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  type School = TestSchool & { eventsKey: TestKey };
  const school = () => makeSchool(app, { eventsKey: true });

  const { get, post, patch, put, del } = requestsAs(() => app);

  const expectError = (res: { status: number; body: Record<string, unknown> }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  async function faculty(key: TestKey, fullName = 'Grace Hopper'): Promise<Person> {
    const res = await post(key, '/faculty', { full_name: fullName });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function student(key: TestKey, fullName = 'Ada Lovelace', extra: Record<string, unknown> = {}): Promise<Person> {
    const res = await post(key, '/students', { full_name: fullName, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  async function group(key: TestKey, ownerId: string, studentIds: string[] = [], name = 'Physics 101'): Promise<{ id: string }> {
    const res = await post(key, '/groups', { name, faculty_id: ownerId, student_ids: studentIds });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  async function createExam(key: TestKey, body: Record<string, unknown>): Promise<WireExam> {
    const res = await post(key, '/exams', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  const examEvents = (s: School) => readEvents(app, s.eventsKey, 'exam.*');

  /** Mail rows of one institution, oldest first. */
  function outbox(inst: TestInstitution, kind?: string): Promise<MailOutboxRow[]> {
    return app.ctx.db.models.MailOutbox.findAll({
      where: { institution_id: inst.id, ...(kind ? { kind } : {}) },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    });
  }

  const recipients = async (inst: TestInstitution, kind: string) => (await outbox(inst, kind)).map((row) => openRecipient(app.ctx.db, row)).sort();

  async function guardian(s: School, studentId: string, email: string, verified: boolean): Promise<void> {
    const res = await post(s.key, '/guardians', { student_id: studentId, guardian_email: email, guardian_type: 'mother', guardian_name: 'Maria' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (verified) await app.ctx.db.models.GuardianLink.update({ verified: true, verified_at: new Date() }, { where: { id: res.body.data.id } });
  }

  /** An attempt and its submission, as the learner side would write them. */
  async function submission(
    inst: TestInstitution,
    examId: string,
    studentId: string,
    options: { status?: SubmissionStatus; score?: number | null; submittedAt?: Date; gradedAt?: Date | null } = {},
  ): Promise<{ attemptId: string; submissionId: string }> {
    const status = options.status ?? 'graded';
    const submittedAt = options.submittedAt ?? new Date();
    return inst.tenant.inTransaction(async (tx) => {
      const attempt = await tx.attempts.create({
        id: newId('att'),
        exam_id: examId,
        student_id: studentId,
        started_at: new Date(submittedAt.getTime() - 60_000),
        expires_at: null,
        submitted_at: submittedAt,
        hidden_released_at: null,
      });
      const row = await tx.submissions.create({
        id: newId('sub'),
        exam_id: examId,
        student_id: studentId,
        attempt_id: attempt.id,
        status,
        answers: null,
        file_ids: [],
        ai_usage: null,
        score: options.score ?? null,
        feedback: null,
        graded_by: null,
        graded_at: options.gradedAt ?? (status === 'graded' ? new Date(submittedAt.getTime() + 60_000) : null),
        void_reason: status === 'voided' ? 'test' : null,
        voided_at: status === 'voided' ? new Date() : null,
        submitted_at: submittedAt,
      });
      return { attemptId: attempt.id, submissionId: row.id };
    });
  }

  /** A stored exam file row with a real file under DATA_DIR, as the upload route would leave it. */
  async function examFile(
    inst: TestInstitution,
    examId: string,
    kind: 'starter' | 'sample_tests' | 'hidden_tests' = 'starter',
  ): Promise<{ ref: string; file: string }> {
    const id = newId('file');
    const relative = path.join('uploads', inst.id, id);
    const file = path.join(app.dataDir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'zip');
    await inst.tenant.inTransaction((tx) =>
      tx.files.create({
        id,
        owner_type: 'exam',
        owner_id: examId,
        kind,
        name: kind === 'starter' ? 'starter.zip' : kind === 'sample_tests' ? 'sample-tests.zip' : 'hidden-tests.zip.enc',
        content_type: 'application/zip',
        size: 3,
        sha256: 'a'.repeat(64),
        storage_path: relative,
        created_at: new Date(),
      }),
    );
    return { ref: id, file };
  }

  // -------------------------------------------------------------------------------------------

  describe('POST /v1/exams', () => {
    it('creates a draft with exactly the Exam fields and the defaults', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const res = await post(s.key, '/exams', { faculty_id: teacher.id, title: '  Mechanics midterm  ' });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const exam = res.body.data;
      expect(Object.keys(exam).sort()).toEqual(EXAM_FIELDS);
      expect(exam.id).toMatch(/^exm_[A-Za-z0-9]{24}$/);
      expect(exam).toMatchObject({
        faculty_id: teacher.id,
        title: 'Mechanics midterm',
        description: '',
        exam_type: 'exam',
        app: 'learning',
        status: 'draft',
        max_score: null,
        due_date: null,
        time_limit_minutes: null,
        proctoring: DEFAULT_CONFIG.default_proctoring,
        ai_policy: DEFAULT_CONFIG.default_ai_policy,
        code_spec: null,
        published_at: null,
        closed_at: null,
      });
      expect(exam.created_at).toMatch(ISO_MS);
      expect(exam.updated_at).toMatch(ISO_MS);

      const events = await examEvents(s);
      expect(events.map((e) => e.type)).toEqual(['exam.created']);
      expect(events[0]!.data).toEqual({ exam_id: exam.id, faculty_id: teacher.id });
    });

    it('takes every field, the owner by login email, and stores due_date in UTC', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, {
        faculty_id: teacher.login_email.toUpperCase(),
        title: 'Project',
        description: 'Build a bridge',
        exam_type: 'project',
        app: 'code',
        max_score: 42.5,
        due_date: '2026-10-01T18:00:00+02:00',
        time_limit_minutes: 1440,
        proctoring: { camera: true },
        ai_policy: { allowed: true, model_tier: 'premium', max_interactions: 5 },
        code_spec: { toolchain: 'python-3.12', commands: { test: 'pytest -q' }, ai_policy: { allowed: false } },
      });
      expect(exam).toMatchObject({
        faculty_id: teacher.id,
        description: 'Build a bridge',
        exam_type: 'project',
        app: 'code',
        max_score: 42.5,
        due_date: '2026-10-01T16:00:00.000Z',
        time_limit_minutes: 1440,
        proctoring: { camera: true },
        ai_policy: { allowed: true, model_tier: 'premium', max_interactions: 5 },
        code_spec: { toolchain: 'python-3.12', commands: { test: 'pytest -q' }, ai_policy: { allowed: false } },
      });
    });

    it("defaults proctoring and ai_policy to the institution's config, each replaced whole when given", async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const config = {
        default_ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 20 },
        default_proctoring: { camera: true, screen: true },
        allowed_toolchains: [],
        toolchain_mirror: null,
        lms: { name: 'Moodle' },
      };
      expect((await put(s.key, '/institution/config', config)).status).toBe(200);
      const defaulted = await createExam(s.key, { faculty_id: teacher.id, title: 'Defaults' });
      expect(defaulted.proctoring).toEqual({ camera: true, screen: true });
      expect(defaulted.ai_policy).toEqual({ allowed: true, model_tier: 'standard', max_interactions: 20 });
      const given = await createExam(s.key, { faculty_id: teacher.id, title: 'Given', proctoring: { screen: false }, ai_policy: {} });
      expect(given.proctoring).toEqual({ screen: false });
      expect(given.ai_policy).toEqual({});
    });

    it('answers 422 no_owner for a missing, null or empty faculty_id, and creates nothing', async () => {
      const s = await school();
      for (const body of [{ title: 'X' }, { title: 'X', faculty_id: null }, { title: 'X', faculty_id: '' }]) {
        expectError(await post(s.key, '/exams', body), 422, 'no_owner');
      }
      expect((await get(s.key, '/exams')).body.data.total).toBe(0);
      expect(await examEvents(s)).toEqual([]);
    });

    it('answers 422 invalid_faculty for an unknown teacher, a student, or a suspended teacher', async () => {
      const s = await school();
      const ada = await student(s.key);
      const suspended = await faculty(s.key, 'Sus Pended');
      expect((await patch(s.key, `/faculty/${suspended.id}`, { status: 'suspended' })).status).toBe(200);
      for (const ref of ['fac_doesNotExist', 'nobody@example.org', ada.id, ada.login_email, suspended.id, suspended.login_email]) {
        expectError(await post(s.key, '/exams', { title: 'X', faculty_id: ref }), 422, 'invalid_faculty');
      }
      expect((await get(s.key, '/exams')).body.data.total).toBe(0);
    });

    it('answers 422 validation_error for unknown fields and bad values', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const unknown = await post(s.key, '/exams', { faculty_id: teacher.id, title: 'X', status: 'published' });
      expectError(unknown, 422, 'validation_error');
      expect(unknown.body.details).toContainEqual({ path: 'status', message: 'Unknown field.' });
      const bad: Array<Record<string, unknown>> = [
        {},
        { title: '' },
        { title: '   ' },
        { title: 'x'.repeat(301) },
        { title: 'X', exam_type: 'test' },
        { title: 'X', app: 'mobile' },
        { title: 'X', max_score: 0 },
        { title: 'X', max_score: -5 },
        { title: 'X', max_score: '100' },
        { title: 'X', due_date: 'tomorrow' },
        { title: 'X', due_date: '2026-10-01' },
        { title: 'X', time_limit_minutes: 0 },
        { title: 'X', time_limit_minutes: 1441 },
        { title: 'X', time_limit_minutes: 1.5 },
        { title: 'X', proctoring: { microphone: true } },
        { title: 'X', proctoring: { camera: 'yes' } },
        { title: 'X', ai_policy: { allowed: true, budget: 5 } },
        { title: 'X', code_spec: { language: 'python' } },
        { title: 'X', code_spec: { hidden_tests: { file: 'file_x', iv_b64: '***', sha256: 'abc' } } },
        { title: 'X', publish: 'yes' },
        { title: 'X', group_ids: 'grp_1' },
      ];
      for (const body of bad) expectError(await post(s.key, '/exams', { faculty_id: teacher.id, ...body }), 422, 'validation_error');
      expect((await get(s.key, '/exams')).body.data.total).toBe(0);
    });

    it('answers 422 validation_error listing unknown group ids, assigning and emitting nothing', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const g = await group(s.key, teacher.id);
      const res = await post(s.key, '/exams', { faculty_id: teacher.id, title: 'X', group_ids: [g.id, 'grp_nope', 'grp_gone'] });
      expectError(res, 422, 'validation_error');
      expect(res.body.message).toContain('grp_nope');
      expect(res.body.details).toEqual([
        { path: 'group_ids.1', message: expect.stringContaining('grp_nope') },
        { path: 'group_ids.2', message: expect.stringContaining('grp_gone') },
      ]);
      expect((await get(s.key, '/exams')).body.data.total).toBe(0);
      expect(await examEvents(s)).toEqual([]);
    });

    it('refuses file refs in code_spec on create (nothing is uploaded yet) and toolchains outside allowed_toolchains', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const other = await createExam(s.key, { faculty_id: teacher.id, title: 'Other' });
      const { ref } = await examFile(s.inst, other.id);
      for (const code_spec of [
        { starter: ref },
        { sample_tests: { ref } },
        { hidden_tests: { file: ref, iv_b64: 'q83vEjRWeJASNFZ4', sha256: 'a'.repeat(64) } },
      ]) {
        const res = await post(s.key, '/exams', { faculty_id: teacher.id, title: 'Coding', app: 'code', code_spec });
        expectError(res, 422, 'validation_error');
        expect(res.body.details[0].path).toMatch(/^code_spec\./);
      }
      await put(s.key, '/institution/config', { ...DEFAULT_CONFIG, allowed_toolchains: ['python-3.12'], toolchain_mirror: null, lms: {} });
      const toolchain = await post(s.key, '/exams', { faculty_id: teacher.id, title: 'Coding', app: 'code', code_spec: { toolchain: 'node-20' } });
      expectError(toolchain, 422, 'validation_error');
      expect(toolchain.body.details).toEqual([{ path: 'code_spec.toolchain', message: expect.any(String) }]);
      const allowed = await createExam(s.key, { faculty_id: teacher.id, title: 'Coding', app: 'code', code_spec: { toolchain: 'python-3.12' } });
      expect(allowed.code_spec).toEqual({ toolchain: 'python-3.12' });
      expect((await get(s.key, '/exams')).body.data.total).toBe(2);
    });

    it('with publish and group_ids: published, assigned, events in order, students with personal emails and verified guardians mailed', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const alan = await student(s.key, 'Alan Turing');
      const kurt = await student(s.key, 'Kurt Goedel', { personal_email: 'kurt.home@example.org' });
      const emmy = await student(s.key, 'Emmy Noether', { personal_email: 'emmy.home@example.org' });
      expect((await post(s.key, `/students/${emmy.id}/suspend`)).status).toBe(200);
      await guardian(s, ada.id, 'maria.lovelace@example.org', true);
      await guardian(s, alan.id, 'sara.turing@example.org', true);
      await guardian(s, kurt.id, 'unverified.goedel@example.org', false);
      await guardian(s, emmy.id, 'noether.parent@example.org', true);
      const g1 = await group(s.key, teacher.id, [ada.id, alan.id, emmy.id], 'Group one');
      const g2 = await group(s.key, teacher.id, [ada.id, kurt.id], 'Group two');

      const res = await post(s.key, '/exams', {
        faculty_id: teacher.id,
        title: 'Mechanics midterm',
        exam_type: 'quiz',
        due_date: '2026-10-01T16:00:00.000Z',
        publish: true,
        group_ids: [g1.id, g2.id, g1.id],
      });
      expect(res.status).toBe(200);
      const exam = res.body.data;
      expect(exam.status).toBe('published');
      expect(exam.published_at).toMatch(ISO_MS);

      const events = await examEvents(s);
      expect(events.map((e) => e.type)).toEqual(['exam.created', 'exam.assigned', 'exam.published']);
      expect(events[1]!.data).toEqual({ exam_id: exam.id, group_ids: [g1.id, g2.id] });
      expect(events[2]!.data).toEqual({ exam_id: exam.id });

      // Ada once though in both groups; Alan has no personal email; Emmy is suspended.
      expect(await recipients(s.inst, 'exam_assigned')).toEqual(['ada.family@example.org', 'kurt.home@example.org']);
      // Verified guardians of active students only.
      expect(await recipients(s.inst, 'exam_assigned_guardian')).toEqual(['maria.lovelace@example.org', 'sara.turing@example.org']);
      const [mail] = await outbox(s.inst, 'exam_assigned');
      expect(outboxText(app, mail!)).toContain('Mechanics midterm');
      expect(outboxText(app, mail!)).toContain('2026-10-01 16:00 UTC');
      expect(outboxText(app, mail!)).toMatch(/LMS/);
      expect(outboxText(app, mail!)).not.toMatch(/https?:\/\//);

      // No personal email in any response, event or log line.
      const detail = await get(s.key, `/exams/${exam.id}`);
      const seen = JSON.stringify([res.body, detail.body, events, (await get(s.key, '/exams')).body]) + app.logText();
      for (const email of ['ada.family@example.org', 'kurt.home@example.org', 'emmy.home@example.org']) expect(seen).not.toContain(email);
    });

    it('without publish, group_ids assign a draft and mail nobody', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const g = await group(s.key, teacher.id, [ada.id]);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Draft', group_ids: [g.id] });
      expect(exam.status).toBe('draft');
      expect((await examEvents(s)).map((e) => e.type)).toEqual(['exam.created', 'exam.assigned']);
      expect(await outbox(s.inst, 'exam_assigned')).toEqual([]);
    });
  });

  describe('GET /v1/exams', () => {
    it('lists oldest first, paged, with every filter', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const alan = await faculty(s.key, 'Alan Kay');
      const a = await createExam(s.key, { faculty_id: grace.id, title: 'Mechanics MIDTERM', exam_type: 'exam', app: 'learning' });
      const b = await createExam(s.key, { faculty_id: grace.id, title: 'Python homework', exam_type: 'homework', app: 'code', publish: true });
      const c = await createExam(s.key, { faculty_id: alan.id, title: '100% quiz_1', exam_type: 'quiz' });
      expect((await post(s.key, `/exams/${c.id}/close`)).status).toBe(200);

      const ids = async (query: Record<string, string | number>) => {
        const res = await get(s.key, '/exams', query);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.data.items.map((exam: WireExam) => exam.id);
      };
      const all = await get(s.key, '/exams');
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect(all.body.data.items.map((exam: WireExam) => exam.id)).toEqual([a.id, b.id, c.id]);
      for (const item of all.body.data.items) expect(Object.keys(item).sort()).toEqual(EXAM_FIELDS);
      const second = await get(s.key, '/exams', { page: 2, limit: 2 });
      expect(second.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(second.body.data.items.map((exam: WireExam) => exam.id)).toEqual([c.id]);

      expect(await ids({ app: 'code' })).toEqual([b.id]);
      expect(await ids({ app: 'learning' })).toEqual([a.id, c.id]);
      expect(await ids({ status: 'draft' })).toEqual([a.id]);
      expect(await ids({ status: 'published' })).toEqual([b.id]);
      expect(await ids({ status: 'closed' })).toEqual([c.id]);
      expect(await ids({ exam_type: 'homework' })).toEqual([b.id]);
      expect(await ids({ faculty_id: grace.id })).toEqual([a.id, b.id]);
      expect(await ids({ faculty_id: alan.login_email.toUpperCase() })).toEqual([c.id]);
      expect(await ids({ faculty_id: 'fac_unknown' })).toEqual([]);
      expect(await ids({ q: 'midterm' })).toEqual([a.id]);
      expect(await ids({ q: 'HOMEWORK' })).toEqual([b.id]);
      expect(await ids({ q: '%' })).toEqual([c.id]);
      expect(await ids({ q: '_' })).toEqual([c.id]);
      expect(await ids({ q: 'nothing' })).toEqual([]);
      expect(await ids({ faculty_id: grace.id, app: 'code', status: 'published', exam_type: 'homework', q: 'python' })).toEqual([b.id]);
    });

    it('updated_since returns exams updated strictly after it', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const a = await createExam(s.key, { faculty_id: teacher.id, title: 'A' });
      const b = await createExam(s.key, { faculty_id: teacher.id, title: 'B' });
      await sleep(5);
      const patched = await patch(s.key, `/exams/${a.id}`, { title: 'A2' });
      expect(patched.status).toBe(200);
      const ids = async (since: string) => (await get(s.key, '/exams', { updated_since: since })).body.data.items.map((exam: WireExam) => exam.id);
      expect(await ids(b.updated_at)).toEqual([a.id]);
      expect(await ids(patched.body.data.updated_at)).toEqual([]);
      expect(await ids('2000-01-01T00:00:00Z')).toEqual([a.id, b.id]);
    });

    it('answers 422 validation_error for unknown parameters, bad values and paging', async () => {
      const s = await school();
      const bad: Array<Record<string, string | number>> = [
        { stauts: 'draft' },
        { status: 'open' },
        { app: 'x' },
        { exam_type: 'exam ' },
        { updated_since: 'yesterday' },
        { page: 0 },
        { limit: 201 },
      ];
      for (const query of bad) {
        expectError(await get(s.key, '/exams', query), 422, 'validation_error');
      }
    });
  });

  describe('GET /v1/exams/{id}', () => {
    it('adds groups and stats: distinct assigned students, attempts, non-voided submissions, graded', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const [ada, alan, kurt] = [await student(s.key, 'Ada'), await student(s.key, 'Alan'), await student(s.key, 'Kurt')];
      const g1 = await group(s.key, teacher.id, [ada.id, alan.id], 'One');
      const g2 = await group(s.key, teacher.id, [alan.id, kurt.id], 'Two');
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Stats', group_ids: [g1.id], publish: true });
      await sleep(5);
      expect((await post(s.key, `/exams/${exam.id}/assignments`, { group_ids: [g2.id] })).status).toBe(200);
      await submission(s.inst, exam.id, ada.id, { status: 'graded', score: 80 });
      await submission(s.inst, exam.id, alan.id, { status: 'submitted' });
      await submission(s.inst, exam.id, kurt.id, { status: 'voided' });
      await s.inst.tenant.inTransaction((tx) =>
        tx.attempts.create({
          id: newId('att'),
          exam_id: exam.id,
          student_id: kurt.id,
          started_at: new Date(),
          expires_at: null,
          submitted_at: null,
          hidden_released_at: null,
        }),
      );

      const res = await get(s.key, `/exams/${exam.id}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([...EXAM_FIELDS, 'files', 'groups', 'stats'].sort());
      expect(res.body.data.groups).toEqual([
        { id: g1.id, name: 'One', student_count: 2 },
        { id: g2.id, name: 'Two', student_count: 2 },
      ]);
      expect(res.body.data.stats).toEqual({ assigned_students: 3, attempts: 4, submissions: 2, graded: 1 });
    });

    it('answers 404 not_found for an unknown id', async () => {
      const s = await school();
      expectError(await get(s.key, '/exams/exm_doesNotExist'), 404, 'not_found');
    });
  });

  describe('PATCH /v1/exams/{id}', () => {
    it('changes the fields given, replaces objects whole, moves updated_at and emits nothing', async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace Hopper');
      const alan = await faculty(s.key, 'Alan Kay');
      const exam = await createExam(s.key, {
        faculty_id: grace.id,
        title: 'Before',
        max_score: 10,
        due_date: '2026-10-01T16:00:00Z',
        proctoring: { camera: true, screen: true },
      });
      await sleep(5);
      const res = await patch(s.key, `/exams/${exam.id}`, {
        faculty_id: alan.login_email,
        title: 'After',
        description: 'New',
        exam_type: 'assignment',
        app: 'code',
        max_score: null,
        due_date: null,
        time_limit_minutes: 30,
        proctoring: { screen: false },
        ai_policy: { allowed: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({
        id: exam.id,
        faculty_id: alan.id,
        title: 'After',
        description: 'New',
        exam_type: 'assignment',
        app: 'code',
        max_score: null,
        due_date: null,
        time_limit_minutes: 30,
        proctoring: { screen: false },
        ai_policy: { allowed: true },
        status: 'draft',
        created_at: exam.created_at,
      });
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(exam.updated_at));
      expect((await get(s.key, `/exams/${exam.id}`)).body.data.title).toBe('After');
      const empty = await patch(s.key, `/exams/${exam.id}`, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data.updated_at).toBe(res.body.data.updated_at);
      await sleep(5);
      const same = await patch(s.key, `/exams/${exam.id}`, { title: 'After', faculty_id: alan.id, due_date: null, proctoring: { screen: false } });
      expect(same.status).toBe(200);
      expect(same.body.data.updated_at).toBe(res.body.data.updated_at);
      expect((await examEvents(s)).map((e) => e.type)).toEqual(['exam.created']);
    });

    it('sets code_spec with refs uploaded to this exam; refs of another exam or unknown are 422; null clears it', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Coding', app: 'code' });
      const other = await createExam(s.key, { faculty_id: teacher.id, title: 'Other', app: 'code' });
      const starter = await examFile(s.inst, exam.id, 'starter');
      const samples = await examFile(s.inst, exam.id, 'sample_tests');
      const hidden = await examFile(s.inst, exam.id, 'hidden_tests');
      const foreign = await examFile(s.inst, other.id, 'starter');
      const spec = {
        toolchain: 'python-3.12',
        starter: starter.ref,
        sample_tests: { ref: samples.ref },
        hidden_tests: { file: hidden.ref, iv_b64: 'q83vEjRWeJASNFZ4', sha256: 'a'.repeat(64) },
        commands: { test: 'pytest -q' },
      };
      const ok = await patch(s.key, `/exams/${exam.id}`, { code_spec: spec });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.data.code_spec).toEqual(spec);

      const bad = [
        { starter: foreign.ref },
        { sample_tests: 'file_unknown' },
        { starter: samples.ref },
        { hidden_tests: { ...spec.hidden_tests, file: foreign.ref } },
        { hidden_tests: { ...spec.hidden_tests, sha256: 'b'.repeat(64) } },
      ];
      for (const code_spec of bad) {
        const res = await patch(s.key, `/exams/${exam.id}`, { code_spec });
        expectError(res, 422, 'validation_error');
        expect(res.body.details[0].path).toMatch(/^code_spec\./);
      }
      expect((await get(s.key, `/exams/${exam.id}`)).body.data.code_spec).toEqual(spec);
      const cleared = await patch(s.key, `/exams/${exam.id}`, { code_spec: null });
      expect(cleared.body.data.code_spec).toBeNull();
    });

    it('answers no_owner, invalid_faculty, validation_error for unknown fields (status included), and 404', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X' });
      expectError(await patch(s.key, `/exams/${exam.id}`, { faculty_id: null }), 422, 'no_owner');
      expectError(await patch(s.key, `/exams/${exam.id}`, { faculty_id: 'fac_nope' }), 422, 'invalid_faculty');
      for (const field of ['status', 'publish', 'group_ids', 'id', 'published_at']) {
        const res = await patch(s.key, `/exams/${exam.id}`, { [field]: 'x' });
        expectError(res, 422, 'validation_error');
        expect(res.body.details).toContainEqual({ path: field, message: 'Unknown field.' });
      }
      expectError(await patch(s.key, `/exams/${exam.id}`, { title: '' }), 422, 'validation_error');
      expectError(await patch(s.key, `/exams/${exam.id}`, { description: null }), 422, 'validation_error');
      expectError(await patch(s.key, '/exams/exm_nope', { title: 'Y' }), 404, 'not_found');
      expect((await get(s.key, `/exams/${exam.id}`)).body.data).toMatchObject({ title: 'X', faculty_id: teacher.id, status: 'draft' });
    });
  });

  describe('DELETE /v1/exams/{id}', () => {
    it('deletes the exam, its assignments, attempts, key and files (rows and disk)', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const g = await group(s.key, teacher.id, [ada.id]);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Doomed', group_ids: [g.id], publish: true });
      const file = await examFile(s.inst, exam.id);
      const attemptId = newId('att');
      await s.inst.tenant.inTransaction(async (tx) => {
        await tx.attempts.create({
          id: attemptId,
          exam_id: exam.id,
          student_id: ada.id,
          started_at: new Date(),
          expires_at: null,
          submitted_at: null,
          hidden_released_at: null,
        });
        await tx.proctoringEvents.create({ id: newId('pev'), attempt_id: attemptId, type: 'focus_lost', at: new Date(), detail: null, created_at: new Date() });
        await tx.examSecrets.create({ exam_id: exam.id, key_sealed: 'sealed' });
      });

      const res = await del(s.key, `/exams/${exam.id}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual({ id: exam.id, deleted: true });
      expectError(await get(s.key, `/exams/${exam.id}`), 404, 'not_found');
      expectError(await del(s.key, `/exams/${exam.id}`), 404, 'not_found');
      const t = s.inst.tenant;
      expect(await t.examAssignments.count({ where: { exam_id: exam.id } })).toBe(0);
      expect(await t.attempts.count({ where: { exam_id: exam.id } })).toBe(0);
      expect(await t.proctoringEvents.count({ where: { attempt_id: attemptId } })).toBe(0);
      expect(await t.examSecrets.count({ where: { exam_id: exam.id } })).toBe(0);
      expect(await t.files.count({ where: { owner_id: exam.id } })).toBe(0);
      await sleep(20);
      expect(fs.existsSync(file.file)).toBe(false);
      expect((await get(s.key, `/groups/${g.id}`)).body.data.exams).toEqual([]);
    });

    it('answers 409 conflict once any submission exists, voided ones included, and deletes nothing', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Kept' });
      const file = await examFile(s.inst, exam.id);
      await submission(s.inst, exam.id, ada.id, { status: 'voided' });
      expectError(await del(s.key, `/exams/${exam.id}`), 409, 'conflict');
      expect((await get(s.key, `/exams/${exam.id}`)).status).toBe(200);
      expect(fs.existsSync(file.file)).toBe(true);
      expect((await post(s.key, `/exams/${exam.id}/close`)).body.data.status).toBe('closed');
    });
  });

  describe('publish and close', () => {
    it('draft → published mails all assigned students once; publishing again is a no-op', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const alan = await student(s.key, 'Alan Turing', { personal_email: 'alan.family@example.org' });
      await guardian(s, alan.id, 'sara.turing@example.org', true);
      const g1 = await group(s.key, teacher.id, [ada.id]);
      const g2 = await group(s.key, teacher.id, [ada.id, alan.id]);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Later', group_ids: [g1.id, g2.id] });
      expect(await outbox(s.inst, 'exam_assigned')).toEqual([]);

      const first = await post(s.key, `/exams/${exam.id}/publish`);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body.data).sort()).toEqual(EXAM_FIELDS);
      expect(first.body.data).toMatchObject({ status: 'published', published_at: expect.stringMatching(ISO_MS), closed_at: null });
      expect(await recipients(s.inst, 'exam_assigned')).toEqual(['ada.family@example.org', 'alan.family@example.org']);
      expect(await recipients(s.inst, 'exam_assigned_guardian')).toEqual(['sara.turing@example.org']);

      const again = await post(s.key, `/exams/${exam.id}/publish`);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      expect((await outbox(s.inst, 'exam_assigned')).length).toBe(2);
      expect((await examEvents(s)).map((e) => e.type)).toEqual(['exam.created', 'exam.assigned', 'exam.published']);
    });

    it('published → closed; closing again is a no-op; publishing a closed exam is 409 conflict', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X', publish: true });
      const closed = await post(s.key, `/exams/${exam.id}/close`);
      expect(closed.status).toBe(200);
      expect(closed.body.data).toMatchObject({ status: 'closed', closed_at: expect.stringMatching(ISO_MS), published_at: exam.published_at });
      const again = await post(s.key, `/exams/${exam.id}/close`);
      expect(again.body.data).toEqual(closed.body.data);
      expectError(await post(s.key, `/exams/${exam.id}/publish`), 409, 'conflict');
      const events = await examEvents(s);
      expect(events.map((e) => e.type)).toEqual(['exam.created', 'exam.published', 'exam.closed']);
      expect(events[2]!.data).toEqual({ exam_id: exam.id });
    });

    it('a draft can be closed directly; unknown ids are 404', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X' });
      const closed = await post(s.key, `/exams/${exam.id}/close`);
      expect(closed.body.data).toMatchObject({ status: 'closed', published_at: null });
      expectError(await post(s.key, '/exams/exm_nope/publish'), 404, 'not_found');
      expectError(await post(s.key, '/exams/exm_nope/close'), 404, 'not_found');
      expectError(await post(s.key, `/exams/${exam.id}/close`, { now: true }), 422, 'validation_error');
    });
  });

  describe('assignments', () => {
    it('assigns groups, keeps those already assigned, lists them and emits only the new ones', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const g1 = await group(s.key, teacher.id, [ada.id], 'One');
      const g2 = await group(s.key, teacher.id, [], 'Two');
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X', group_ids: [g1.id] });
      await sleep(5);

      const res = await post(s.key, `/exams/${exam.id}/assignments`, { group_ids: [g1.id, g2.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.assigned).toEqual([g2.id]);
      expect(res.body.data.items).toEqual([
        { group_id: g1.id, name: 'One', student_count: 1, assigned_at: expect.stringMatching(ISO_MS) },
        { group_id: g2.id, name: 'Two', student_count: 0, assigned_at: expect.stringMatching(ISO_MS) },
      ]);
      const listed = await get(s.key, `/exams/${exam.id}/assignments`);
      expect(listed.body.data).toEqual({ items: res.body.data.items });

      const none = await post(s.key, `/exams/${exam.id}/assignments`, { group_ids: [g2.id] });
      expect(none.status).toBe(200);
      expect(none.body.data.assigned).toEqual([]);
      const events = (await examEvents(s)).filter((e) => e.type === 'exam.assigned');
      expect(events.map((e) => e.data)).toEqual([
        { exam_id: exam.id, group_ids: [g1.id] },
        { exam_id: exam.id, group_ids: [g2.id] },
      ]);
      // Assignment changes count as exam updates for updated_since.
      expect(Date.parse((await get(s.key, `/exams/${exam.id}`)).body.data.updated_at)).toBeGreaterThan(Date.parse(exam.updated_at));
    });

    it('answers 422 validation_error listing unknown group ids, and assigns none of the list', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const g = await group(s.key, teacher.id);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X' });
      const res = await post(s.key, `/exams/${exam.id}/assignments`, { group_ids: [g.id, 'grp_nope'] });
      expectError(res, 422, 'validation_error');
      expect(res.body.details).toEqual([{ path: 'group_ids.1', message: expect.stringContaining('grp_nope') }]);
      expect((await get(s.key, `/exams/${exam.id}/assignments`)).body.data.items).toEqual([]);
      for (const body of [{}, { group_ids: [] }, { group_ids: [''] }, { group_ids: [g.id], extra: 1 }]) {
        expectError(await post(s.key, `/exams/${exam.id}/assignments`, body), 422, 'validation_error');
      }
      expectError(await post(s.key, '/exams/exm_nope/assignments', { group_ids: [g.id] }), 404, 'not_found');
      expectError(await get(s.key, '/exams/exm_nope/assignments'), 404, 'not_found');
    });

    it('on a published exam mails the students newly reached and their verified guardians; a draft or closed exam mails nobody', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const alan = await student(s.key, 'Alan Turing', { personal_email: 'alan.family@example.org' });
      const kurt = await student(s.key, 'Kurt Goedel');
      await guardian(s, ada.id, 'maria.lovelace@example.org', true);
      await guardian(s, kurt.id, 'kurt.parent@example.org', true);
      await guardian(s, alan.id, 'alan.parent@example.org', false);
      const g1 = await group(s.key, teacher.id, [ada.id], 'One');
      const g2 = await group(s.key, teacher.id, [ada.id, alan.id, kurt.id], 'Two');

      const draft = await createExam(s.key, { faculty_id: teacher.id, title: 'Draft' });
      expect((await post(s.key, `/exams/${draft.id}/assignments`, { group_ids: [g1.id, g2.id] })).status).toBe(200);
      const closed = await createExam(s.key, { faculty_id: teacher.id, title: 'Closed' });
      await post(s.key, `/exams/${closed.id}/close`);
      expect((await post(s.key, `/exams/${closed.id}/assignments`, { group_ids: [g1.id] })).status).toBe(200);
      expect(await outbox(s.inst, 'exam_assigned')).toEqual([]);
      expect(await outbox(s.inst, 'exam_assigned_guardian')).toEqual([]);

      const live = await createExam(s.key, { faculty_id: teacher.id, title: 'Live', publish: true, group_ids: [g1.id] });
      expect(await recipients(s.inst, 'exam_assigned')).toEqual(['ada.family@example.org']);
      expect(await recipients(s.inst, 'exam_assigned_guardian')).toEqual(['maria.lovelace@example.org']);
      expect((await post(s.key, `/exams/${live.id}/assignments`, { group_ids: [g2.id] })).status).toBe(200);
      // Ada was already reached through group One: not mailed again. Kurt has no personal email, but a verified guardian.
      expect(await recipients(s.inst, 'exam_assigned')).toEqual(['ada.family@example.org', 'alan.family@example.org']);
      expect(await recipients(s.inst, 'exam_assigned_guardian')).toEqual(['kurt.parent@example.org', 'maria.lovelace@example.org']);
      const guardianMail = (await outbox(s.inst, 'exam_assigned_guardian')).find((row) => outboxText(app, row).includes('Kurt Goedel'));
      expect(outboxText(app, guardianMail!)).toContain('Live');
      expect(guardianMail!.to_masked).toBe('k•••@example.org');
    });

    it('DELETE unassigns one group; a group not assigned, unknown, or an unknown exam is 404', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const g1 = await group(s.key, teacher.id, [], 'One');
      const g2 = await group(s.key, teacher.id, [], 'Two');
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X', group_ids: [g1.id, g2.id] });
      const res = await del(s.key, `/exams/${exam.id}/assignments/${g1.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ exam_id: exam.id, group_id: g1.id, deleted: true });
      expect((await get(s.key, `/exams/${exam.id}/assignments`)).body.data.items.map((item: { group_id: string }) => item.group_id)).toEqual([g2.id]);
      expectError(await del(s.key, `/exams/${exam.id}/assignments/${g1.id}`), 404, 'not_found');
      expectError(await del(s.key, `/exams/${exam.id}/assignments/grp_nope`), 404, 'not_found');
      expectError(await del(s.key, `/exams/exm_nope/assignments/${g2.id}`), 404, 'not_found');
    });

    it('the group detail lists its exams; deleting the group removes its assignments', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const g = await group(s.key, teacher.id);
      const a = await createExam(s.key, { faculty_id: teacher.id, title: 'First', group_ids: [g.id] });
      await sleep(5);
      const b = await createExam(s.key, {
        faculty_id: teacher.id,
        title: 'Second',
        app: 'code',
        due_date: '2026-11-01T09:00:00Z',
        publish: true,
        group_ids: [g.id],
      });
      const detail = await get(s.key, `/groups/${g.id}`);
      expect(detail.body.data.exams).toEqual([
        { id: a.id, title: 'First', status: 'draft', app: 'learning', due_date: null },
        { id: b.id, title: 'Second', status: 'published', app: 'code', due_date: '2026-11-01T09:00:00.000Z' },
      ]);
      expect((await del(s.key, `/groups/${g.id}`)).status).toBe(200);
      expect((await get(s.key, `/exams/${a.id}/assignments`)).body.data.items).toEqual([]);
      expect((await get(s.key, `/exams/${b.id}`)).body.data.groups).toEqual([]);
    });
  });

  describe('GET /v1/exams/{id}/attempts', () => {
    it('lists attempts oldest first, paged, with the Attempt fields', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada');
      const alan = await student(s.key, 'Alan');
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X' });
      const t0 = Date.parse('2026-09-20T10:00:00.000Z');
      const first = await submission(s.inst, exam.id, ada.id, { submittedAt: new Date(t0), status: 'submitted' });
      const second = await submission(s.inst, exam.id, alan.id, { submittedAt: new Date(t0 + 3_600_000), status: 'submitted' });
      const res = await get(s.key, `/exams/${exam.id}/attempts`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page: 1, limit: 50, total: 2, totalPages: 1 });
      expect(res.body.data.items[0]).toEqual({
        id: first.attemptId,
        exam_id: exam.id,
        student_id: ada.id,
        started_at: '2026-09-20T09:59:00.000Z',
        expires_at: null,
        submitted_at: '2026-09-20T10:00:00.000Z',
        hidden_released_at: null,
      });
      const page2 = await get(s.key, `/exams/${exam.id}/attempts`, { page: 2, limit: 1 });
      expect(page2.body.data.items.map((item: { id: string }) => item.id)).toEqual([second.attemptId]);
      expectError(await get(s.key, '/exams/exm_nope/attempts'), 404, 'not_found');
      expectError(await get(s.key, `/exams/${exam.id}/attempts`, { limit: 0 }), 422, 'validation_error');
    });
  });

  describe('GET /v1/exams/{id}/analytics', () => {
    it('computes count, mean, median, min, max, population stddev and 10 buckets over graded, non-voided submissions', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X', max_score: 100 });
      const people = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((name) => student(s.key, `${name} Student`)));
      await submission(s.inst, exam.id, people[0]!.id, { score: 50 });
      await submission(s.inst, exam.id, people[1]!.id, { score: 70 });
      await submission(s.inst, exam.id, people[2]!.id, { score: 90 });
      await submission(s.inst, exam.id, people[3]!.id, { status: 'voided', score: 10 });
      await submission(s.inst, exam.id, people[4]!.id, { status: 'submitted' });
      await submission(s.inst, exam.id, people[4]!.id, { status: 'resubmission_requested', score: null });

      const res = await get(s.key, `/exams/${exam.id}/analytics`);
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['count', 'histogram', 'max', 'mean', 'median', 'min', 'stddev']);
      expect(data).toMatchObject({ count: 3, mean: 70, median: 70, min: 50, max: 90 });
      expect(data.stddev).toBeCloseTo(16.3299, 3);
      expect(data.histogram).toHaveLength(10);
      expect(data.histogram[0]).toEqual({ from: 0, to: 10, count: 0 });
      expect(data.histogram.map((b: { count: number }) => b.count)).toEqual([0, 0, 0, 0, 0, 1, 0, 1, 0, 1]);
      expect(data.histogram[9]).toEqual({ from: 90, to: 100, count: 1 });
    });

    it('with no graded submission the numbers are null and the histogram empty', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'X' });
      await submission(s.inst, exam.id, ada.id, { status: 'voided', score: 40 });
      const res = await get(s.key, `/exams/${exam.id}/analytics`);
      expect(res.body.data).toEqual({ count: 0, mean: null, median: null, min: null, max: null, stddev: null, histogram: [] });
      expectError(await get(s.key, '/exams/exm_nope/analytics'), 404, 'not_found');
    });

    it('buckets up to the highest score without max_score; the last bucket includes its top', () => {
      const result = analyzeScores([2, 4, 8, 8], null);
      expect(result).toMatchObject({ count: 4, mean: 5.5, median: 6, min: 2, max: 8 });
      expect(result.histogram.map((b) => [b.from, b.to, b.count])).toEqual([
        [0, 0.8, 0],
        [0.8, 1.6, 0],
        [1.6, 2.4, 1],
        [2.4, 3.2, 0],
        [3.2, 4, 0],
        [4, 4.8, 1],
        [4.8, 5.6, 0],
        [5.6, 6.4, 0],
        [6.4, 7.2, 0],
        [7.2, 8, 2],
      ]);
      expect(analyzeScores([100, 30], 100).histogram.map((b) => b.count)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
      // A score above max_score (lowered after grading) counts in the last bucket.
      expect(analyzeScores([120], 100).histogram[9]!.count).toBe(1);
      expect(analyzeScores([0, 0], null).histogram).toEqual([{ from: 0, to: 0, count: 2 }]);
    });
  });

  describe('GET /v1/exams/{id}/scores and export.csv', () => {
    /** Assigned students with and without submissions, an unassigned submitter, a resubmission and a voided one. */
    async function scored() {
      const s = await school();
      const teacher = await faculty(s.key);
      const zed = await student(s.key, 'Zed Zimmer', { personal_email: 'zed.family@example.org' });
      const amy = await student(s.key, 'Amy Adams');
      const cmd = await student(s.key, '=cmd()');
      const quoted = await student(s.key, 'O"Brien, Pat');
      const outsider = await student(s.key, 'Mia Moore');
      const voided = await student(s.key, 'Vic Void');
      const g = await group(s.key, teacher.id, [zed.id, amy.id, cmd.id, quoted.id, voided.id]);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Scored', max_score: 100, group_ids: [g.id], publish: true });
      const t0 = Date.parse('2026-09-20T10:00:00.000Z');
      await submission(s.inst, exam.id, zed.id, { score: 40, submittedAt: new Date(t0) });
      const zedLatest = await submission(s.inst, exam.id, zed.id, { score: 87.5, submittedAt: new Date(t0 + 60_000), gradedAt: new Date(t0 + 120_000) });
      await submission(s.inst, exam.id, zed.id, { status: 'voided', score: 1, submittedAt: new Date(t0 + 180_000) });
      const cmdSub = await submission(s.inst, exam.id, cmd.id, { status: 'submitted', submittedAt: new Date(t0) });
      const outsiderSub = await submission(s.inst, exam.id, outsider.id, { score: 60, submittedAt: new Date(t0), gradedAt: new Date(t0 + 60_000) });
      await submission(s.inst, exam.id, voided.id, { status: 'voided', score: 99 });
      return { s, exam, zed, amy, cmd, quoted, outsider, voided, zedLatest, cmdSub, outsiderSub };
    }

    it('has one row per assigned or submitting student with the latest non-voided submission, by full name', async () => {
      const { s, exam, zed, amy, cmd, quoted, outsider, voided, zedLatest, cmdSub, outsiderSub } = await scored();
      const res = await get(s.key, `/exams/${exam.id}/scores`);
      expect(res.status).toBe(200);
      const row = (p: Person, submissionId: string | null, status: string | null, score: number | null) => ({
        student_id: p.id,
        login_email: p.login_email,
        full_name: p.full_name,
        submission_id: submissionId,
        status,
        score,
        max_score: 100,
      });
      expect(res.body.data.items).toEqual([
        row(cmd, cmdSub.submissionId, 'submitted', null),
        row(amy, null, null, null),
        row(outsider, outsiderSub.submissionId, 'graded', 60),
        row(quoted, null, null, null),
        row(voided, null, null, null),
        row(zed, zedLatest.submissionId, 'graded', 87.5),
      ]);
      expect(JSON.stringify(res.body)).not.toContain('zed.family');
      expectError(await get(s.key, '/exams/exm_nope/scores'), 404, 'not_found');
    });

    it('exports the same rows as RFC 4180 CSV with the exact header, numbers as numbers and the injection guard', async () => {
      const { s, exam, zed, amy, cmd, quoted, outsider, voided, zedLatest, cmdSub, outsiderSub } = await scored();
      const res = await get(s.key, `/exams/${exam.id}/export.csv`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="exam-${exam.id}-scores.csv"`);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.headers['x-ratelimit-limit']).toBeTruthy();
      const text = res.text;
      expect(text.endsWith('\r\n')).toBe(true);
      const lines = text.split('\r\n').slice(0, -1);
      expect(lines[0]).toBe(CSV_HEADER);
      expect(lines.slice(1)).toEqual([
        `${cmd.id},${cmd.login_email},'=cmd(),${cmdSub.submissionId},submitted,,100,2026-09-20T10:00:00.000Z,`,
        `${amy.id},${amy.login_email},Amy Adams,,,,100,,`,
        `${outsider.id},${outsider.login_email},Mia Moore,${outsiderSub.submissionId},graded,60,100,2026-09-20T10:00:00.000Z,2026-09-20T10:01:00.000Z`,
        `${quoted.id},${quoted.login_email},"O""Brien, Pat",,,,100,,`,
        `${voided.id},${voided.login_email},Vic Void,,,,100,,`,
        `${zed.id},${zed.login_email},Zed Zimmer,${zedLatest.submissionId},graded,87.5,100,2026-09-20T10:01:00.000Z,2026-09-20T10:02:00.000Z`,
      ]);
      expect(text).not.toContain('zed.family');

      const missing = await get(s.key, '/exams/exm_nope/export.csv');
      expectError(missing, 404, 'not_found');
      expect(missing.headers['content-type']).toMatch(/^application\/json/);
    });

    it('an exam nobody is assigned to exports only the header', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Empty' });
      const res = await get(s.key, `/exams/${exam.id}/export.csv`).buffer(true);
      expect(res.text).toBe(`${CSV_HEADER}\r\n`);
      expect((await get(s.key, `/exams/${exam.id}/scores`)).body.data).toEqual({ items: [] });
    });

    it('csvCell guards formulas in text cells only and quotes per RFC 4180', () => {
      expect(csvCell('=cmd()')).toBe("'=cmd()");
      expect(csvCell('+1')).toBe("'+1");
      expect(csvCell('-2')).toBe("'-2");
      expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
      expect(csvCell('\tx')).toBe("'\tx");
      expect(csvCell('\rx')).toBe('"\'\rx"');
      expect(csvCell('=1,2')).toBe('"\'=1,2"');
      expect(csvCell('a "b"')).toBe('"a ""b"""');
      expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
      expect(csvCell('plain')).toBe('plain');
      expect(csvCell(-1)).toBe('-1');
      expect(csvCell(87.5)).toBe('87.5');
      expect(csvCell(null)).toBe('');
    });
  });

  describe('GET /v1/students/{id}/exams and /v1/faculty/{id}/exams', () => {
    it("lists a student's published and closed assigned exams with their own submission state, not drafts", async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key, 'Ada');
      const alan = await student(s.key, 'Alan');
      const g1 = await group(s.key, teacher.id, [ada.id, alan.id], 'One');
      const g2 = await group(s.key, teacher.id, [ada.id], 'Two');
      await createExam(s.key, { faculty_id: teacher.id, title: 'Draft', group_ids: [g1.id] });
      const published = await createExam(s.key, { faculty_id: teacher.id, title: 'Published', publish: true, group_ids: [g1.id, g2.id] });
      const closed = await createExam(s.key, { faculty_id: teacher.id, title: 'Closed', publish: true, group_ids: [g2.id] });
      await post(s.key, `/exams/${closed.id}/close`);
      await createExam(s.key, { faculty_id: teacher.id, title: 'Unassigned', publish: true });
      const graded = await submission(s.inst, published.id, ada.id, { score: 75 });
      await submission(s.inst, closed.id, ada.id, { status: 'voided', score: 10 });
      await submission(s.inst, published.id, alan.id, { status: 'submitted' });

      const res = await get(s.key, `/students/${ada.login_email}/exams`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({ page: 1, limit: 50, total: 2, totalPages: 1 });
      const items = res.body.data.items;
      expect(items.map((item: { exam: WireExam }) => item.exam.title)).toEqual(['Published', 'Closed']);
      expect(Object.keys(items[0].exam).sort()).toEqual(EXAM_FIELDS);
      expect(items[0].submission).toEqual({ id: graded.submissionId, status: 'graded', score: 75 });
      expect(items[1].exam.status).toBe('closed');
      expect(items[1].submission).toBeNull();
      const paged = await get(s.key, `/students/${ada.id}/exams`, { page: 2, limit: 1 });
      expect(paged.body.data.items.map((item: { exam: WireExam }) => item.exam.title)).toEqual(['Closed']);

      const loner = await student(s.key, 'Loner');
      expect((await get(s.key, `/students/${loner.id}/exams`)).body.data).toEqual({ items: [], page: 1, limit: 50, total: 0, totalPages: 0 });
      expectError(await get(s.key, '/students/stu_nope/exams'), 404, 'not_found');
      expectError(await get(s.key, `/students/${teacher.id}/exams`), 404, 'not_found');
    });

    it("lists a teacher's exams in every state, paged", async () => {
      const s = await school();
      const grace = await faculty(s.key, 'Grace');
      const alan = await faculty(s.key, 'Alan');
      const a = await createExam(s.key, { faculty_id: grace.id, title: 'A' });
      const b = await createExam(s.key, { faculty_id: grace.id, title: 'B', publish: true });
      await createExam(s.key, { faculty_id: alan.id, title: 'C' });
      await post(s.key, `/exams/${b.id}/close`);
      const res = await get(s.key, `/faculty/${grace.login_email}/exams`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: 2, page: 1, limit: 50, totalPages: 1 });
      expect(res.body.data.items.map((exam: WireExam) => [exam.id, exam.status])).toEqual([
        [a.id, 'draft'],
        [b.id, 'closed'],
      ]);
      expect((await get(s.key, `/faculty/${grace.id}/exams`, { limit: 1, page: 2 })).body.data.items.map((exam: WireExam) => exam.id)).toEqual([b.id]);
      expectError(await get(s.key, '/faculty/fac_nope/exams'), 404, 'not_found');
      expectError(await get(s.key, `/faculty/${grace.id}/exams`, { limit: 500 }), 422, 'validation_error');
    });
  });

  describe('GET /v1/institution counts', () => {
    it('counts exams in every state', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      await createExam(s.key, { faculty_id: teacher.id, title: 'A' });
      const b = await createExam(s.key, { faculty_id: teacher.id, title: 'B', publish: true });
      await post(s.key, `/exams/${b.id}/close`);
      expect((await get(s.key, '/institution')).body.data.counts.exams).toBe(2);
      await del(s.key, `/exams/${b.id}`);
      expect((await get(s.key, '/institution')).body.data.counts.exams).toBe(1);
    });
  });

  describe('events', () => {
    it('carry ids and outcomes only', async () => {
      const s = await school();
      const teacher = await faculty(s.key, 'Grace Hopper');
      const ada = await student(s.key, 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const g = await group(s.key, teacher.id, [ada.id], 'Secret group');
      const exam = await createExam(s.key, {
        faculty_id: teacher.login_email,
        title: 'Secret title',
        description: 'Secret text',
        publish: true,
        group_ids: [g.id],
      });
      await post(s.key, `/exams/${exam.id}/close`);
      const events = await examEvents(s);
      expect(events.map((e) => e.type)).toEqual(['exam.created', 'exam.assigned', 'exam.published', 'exam.closed']);
      const allowed = new Set(['exam_id', 'faculty_id', 'group_ids']);
      for (const event of events) for (const key of Object.keys(event.data)) expect(allowed.has(key), `${event.type} has ${key}`).toBe(true);
      const text = JSON.stringify(events);
      for (const secret of ['Secret', 'Grace', 'Ada', '@']) expect(text).not.toContain(secret);
    });
  });

  describe('scopes', () => {
    it('exams:read reads, exams:write writes, submissions:read reads results; others get 403', async () => {
      const s = await school();
      const teacher = await faculty(s.key);
      const ada = await student(s.key);
      const g = await group(s.key, teacher.id, [ada.id]);
      const exam = await createExam(s.key, { faculty_id: teacher.id, title: 'Scoped', group_ids: [g.id] });
      const keyWith = (scopes: Scope[]) => makeKey(app, s.inst, { scopes });
      const reader = await keyWith(['exams:read']);
      const writer = await keyWith(['exams:write']);
      const results = await keyWith(['submissions:read']);

      const reads = ['/exams', `/exams/${exam.id}`, `/exams/${exam.id}/assignments`, `/students/${ada.id}/exams`, `/faculty/${teacher.id}/exams`];
      for (const path of reads) {
        expect((await get(reader, path)).status, path).toBe(200);
        expect((await get(writer, path)).status, path).toBe(200);
        const denied = await get(results, path);
        expect(denied.status, path).toBe(403);
        expect(denied.body).toMatchObject({ error: 'insufficient_scope', required: ['exams:read'], missing: ['exams:read'] });
      }
      const writes = [
        () => post(reader, '/exams', { faculty_id: teacher.id, title: 'X' }),
        () => patch(reader, `/exams/${exam.id}`, { title: 'X' }),
        () => post(reader, `/exams/${exam.id}/publish`),
        () => post(reader, `/exams/${exam.id}/close`),
        () => post(reader, `/exams/${exam.id}/assignments`, { group_ids: [g.id] }),
        () => del(reader, `/exams/${exam.id}/assignments/${g.id}`),
        () => del(reader, `/exams/${exam.id}`),
      ];
      for (const write of writes) {
        const res = await write();
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['exams:write'], missing: ['exams:write'] });
      }
      const resultPaths = [`/exams/${exam.id}/attempts`, `/exams/${exam.id}/analytics`, `/exams/${exam.id}/scores`, `/exams/${exam.id}/export.csv`];
      for (const path of resultPaths) {
        expect((await get(results, path)).status, path).toBe(200);
        const denied = await get(writer, path);
        expect(denied.status, path).toBe(403);
        expect(denied.body).toMatchObject({ error: 'insufficient_scope', required: ['submissions:read'], missing: ['submissions:read'] });
      }
      expect((await get(s.key, `/exams/${exam.id}`)).body.data).toMatchObject({ title: 'Scoped', status: 'draft' });
      expect((await patch(writer, `/exams/${exam.id}`, { title: 'Written' })).status).toBe(200);
      expect((await app.http.get('/v1/exams')).status).toBe(401);
    });
  });

  describe('tenancy', () => {
    it("another institution's exam is 404 on every exams path and stays untouched", async () => {
      const a = await school();
      const b = await school();
      const aTeacher = await faculty(a.key);
      const aGroup = await group(a.key, aTeacher.id);
      const bTeacher = await faculty(b.key);
      const bStudent = await student(b.key, 'Bob Student', { personal_email: 'bob.family@example.org' });
      const bGroup = await group(b.key, bTeacher.id, [bStudent.id]);
      const bExam = await createExam(b.key, { faculty_id: bTeacher.id, title: 'B exam', group_ids: [bGroup.id] });
      await submission(b.inst, bExam.id, bStudent.id, { score: 5 });
      const id = bExam.id;
      const calls = [
        () => get(a.key, `/exams/${id}`),
        () => patch(a.key, `/exams/${id}`, { title: 'Hijacked' }),
        () => del(a.key, `/exams/${id}`),
        () => post(a.key, `/exams/${id}/publish`),
        () => post(a.key, `/exams/${id}/close`),
        () => get(a.key, `/exams/${id}/assignments`),
        () => post(a.key, `/exams/${id}/assignments`, { group_ids: [aGroup.id] }),
        () => del(a.key, `/exams/${id}/assignments/${bGroup.id}`),
        () => get(a.key, `/exams/${id}/attempts`),
        () => get(a.key, `/exams/${id}/analytics`),
        () => get(a.key, `/exams/${id}/scores`),
        () => get(a.key, `/exams/${id}/export.csv`),
        () => get(a.key, `/students/${bStudent.id}/exams`),
        () => get(a.key, `/faculty/${bTeacher.id}/exams`),
      ];
      for (const call of calls) expectError(await call(), 404, 'not_found');
      expect((await get(a.key, '/exams')).body.data.total).toBe(0);
      expect((await get(a.key, '/exams', { faculty_id: bTeacher.id })).body.data.total).toBe(0);
      const intact = await get(b.key, `/exams/${id}`);
      expect(intact.body.data).toMatchObject({ title: 'B exam', status: 'draft', updated_at: bExam.updated_at });
      expect(intact.body.data.groups.map((item: { id: string }) => item.id)).toEqual([bGroup.id]);
      expect(await outbox(b.inst)).toHaveLength(0);
    });

    it("another institution's groups are unknown group ids and its teachers are invalid_faculty", async () => {
      const a = await school();
      const b = await school();
      const aTeacher = await faculty(a.key);
      const bTeacher = await faculty(b.key);
      const bGroup = await group(b.key, bTeacher.id);
      expectError(await post(a.key, '/exams', { faculty_id: bTeacher.id, title: 'X' }), 422, 'invalid_faculty');
      expectError(await post(a.key, '/exams', { faculty_id: bTeacher.login_email, title: 'X' }), 422, 'invalid_faculty');
      const bad = await post(a.key, '/exams', { faculty_id: aTeacher.id, title: 'X', group_ids: [bGroup.id] });
      expectError(bad, 422, 'validation_error');
      expect(bad.body.details[0].message).toContain(bGroup.id);
      const exam = await createExam(a.key, { faculty_id: aTeacher.id, title: 'A exam' });
      expectError(await post(a.key, `/exams/${exam.id}/assignments`, { group_ids: [bGroup.id] }), 422, 'validation_error');
      expectError(await patch(a.key, `/exams/${exam.id}`, { faculty_id: bTeacher.id }), 422, 'invalid_faculty');
      expectError(await del(a.key, `/exams/${exam.id}/assignments/${bGroup.id}`), 404, 'not_found');
      expect((await get(b.key, `/groups/${bGroup.id}`)).body.data.exams).toEqual([]);
    });
  });
});
