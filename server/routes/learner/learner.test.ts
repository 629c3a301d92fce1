// @tier integration
// @databases sqlite, postgres
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeExamKey } from '../../commands/exams/secrets.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import { portalDir } from '../../paths.js';
import {
  learnerSession,
  makePerson,
  makeSchool,
  readEvents,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE_MS = 60_000;
const EXAM_FIELDS = [
  'app',
  'attempt',
  'code_spec',
  'description',
  'due_date',
  'exam_type',
  'files',
  'id',
  'max_score',
  'proctoring',
  'status',
  'submission',
  'time_limit_minutes',
  'title',
];
const ATTEMPT_FIELDS = ['exam_id', 'expires_at', 'hidden_released_at', 'id', 'started_at', 'student_id', 'submitted_at'];
const SUBMISSION_FIELDS = ['attempt_id', 'exam_id', 'id', 'status', 'student_id', 'submitted_at'];
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

type Person = TestPerson;

interface WireAttempt {
  id: string;
  exam_id: string;
  student_id: string;
  started_at: string;
  expires_at: string | null;
  submitted_at: string | null;
  hidden_released_at: string | null;
}

describe('Learner side: /v1/app/*', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  // -------------------------------------------------------------------------------------------
  // A school: a teacher, students, a group, exams (inserted directly: exam creation is another
  // area), and learner sessions obtained the way the portal's /launch page obtains them.
  // -------------------------------------------------------------------------------------------

  interface School extends TestSchool {
    teacher: Person;
    /** In the group. */
    student: Person;
    /** Not in any group. */
    outsider: Person;
    groupId: string;
  }

  const post = (key: TestKey, path: string, body?: unknown) => {
    const req = app.http.post(`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };

  const person = (key: TestKey, role: 'students' | 'faculty', fullName: string) => makePerson(app, key, role, fullName);

  async function school(): Promise<School> {
    const { inst, key } = await makeSchool(app);
    const teacher = await person(key, 'faculty', 'Grace Hopper');
    const student = await person(key, 'students', 'Ada Lovelace');
    const outsider = await person(key, 'students', 'Alan Turing');
    const group = await post(key, '/groups', { name: 'Physics 101', faculty_id: teacher.id, student_ids: [student.id] });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    return { inst, key, teacher, student, outsider, groupId: group.body.data.id };
  }

  interface ExamOptions {
    status?: ExamRow['status'];
    title?: string;
    app?: ExamRow['app'];
    time_limit_minutes?: number | null;
    due_date?: Date | null;
    assignTo?: string[];
  }

  /** An exam and its group assignments, written directly. */
  async function insertExam(s: School, options: ExamOptions = {}): Promise<string> {
    const id = newId('exm');
    const status = options.status ?? 'published';
    await s.inst.tenant.inTransaction(async (tx) => {
      await tx.exams.create({
        id,
        faculty_id: s.teacher.id,
        title: options.title ?? 'Kinematics quiz',
        description: '',
        exam_type: 'quiz',
        app: options.app ?? 'learning',
        status,
        max_score: 100,
        due_date: options.due_date ?? null,
        time_limit_minutes: options.time_limit_minutes === undefined ? 30 : options.time_limit_minutes,
        proctoring: { camera: false, screen: true },
        ai_policy: { allowed: false },
        code_spec: null,
        published_at: status === 'draft' ? null : new Date(),
        closed_at: status === 'closed' ? new Date() : null,
      });
      for (const groupId of options.assignTo ?? [s.groupId]) {
        await tx.examAssignments.create({ exam_id: id, group_id: groupId, assigned_at: new Date() });
      }
    });
    return id;
  }

  /** Mint and exchange: the session token of a person, as the learner page gets it. */
  const sessionOf = (key: TestKey, who: Person, extra: Record<string, unknown> = {}) =>
    learnerSession(app, key, who, { mint: extra, exchange: { device: { id: `device-${who.id}`, name: 'Test browser' } } });

  const as = (session: string) => `Bearer ${session}`;
  const appGet = (session: string, path: string) => app.http.get(`/v1/app${path}`).set('Authorization', as(session));
  const appPost = (session: string, path: string, body?: unknown) => {
    const req = app.http.post(`/v1/app${path}`).set('Authorization', as(session));
    return body === undefined ? req : req.send(body as object);
  };
  const upload = (session: string, attemptId: string, content: Buffer, name: string, kind?: string) => {
    const req = app.http.post(`/v1/app/attempts/${attemptId}/files`).set('Authorization', as(session));
    return (kind ? req.query({ kind }) : req).attach('file', content, name);
  };

  async function start(session: string, examId: string): Promise<WireAttempt> {
    const res = await appPost(session, `/exams/${examId}/attempts`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as WireAttempt;
  }

  const events = (key: TestKey, type = 'submission.*') => readEvents(app, key, type);

  // -------------------------------------------------------------------------------------------

  describe('the whole flow of one student', () => {
    it('launch → me → exams → attempt → events → hidden key → files → submit, with submission.created', async () => {
      const s = await school();
      const due = new Date(Date.now() + 7 * 24 * 60 * MINUTE_MS);
      const examId = await insertExam(s, { title: 'Kinematics quiz', time_limit_minutes: 45, due_date: due });
      const undated = await insertExam(s, { title: 'Coding project', app: 'code', time_limit_minutes: null });
      const sooner = await insertExam(s, { title: 'Warm-up', due_date: new Date(Date.now() + 24 * 60 * MINUTE_MS) });
      await insertExam(s, { title: 'Not assigned', assignTo: [] });
      await insertExam(s, { title: 'Draft', status: 'draft' });
      await insertExam(s, { title: 'Closed', status: 'closed' });
      const session = await sessionOf(s.key, s.student, { redirect: `exam:${examId}` });

      const me = await appGet(session, '/me');
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        success: true,
        data: { id: s.student.id, login_email: s.student.login_email, full_name: 'Ada Lovelace', role: 'student' },
      });

      // Published, assigned exams only; by due date, undated last.
      const list = await appGet(session, '/exams');
      expect(list.status).toBe(200);
      expect(Object.keys(list.body.data)).toEqual(['items']);
      const items = list.body.data.items as Array<Record<string, unknown>>;
      expect(items.map((item) => item.id)).toEqual([sooner, examId, undated]);
      for (const item of items) expect(Object.keys(item).sort()).toEqual(EXAM_FIELDS);
      expect(items[1]).toEqual({
        id: examId,
        title: 'Kinematics quiz',
        description: '',
        exam_type: 'quiz',
        app: 'learning',
        due_date: due.toISOString(),
        time_limit_minutes: 45,
        max_score: 100,
        proctoring: { camera: false, screen: true },
        status: 'published',
        code_spec: null,
        files: [],
        submission: null,
        attempt: null,
      });
      expect(items[2]).toMatchObject({ app: 'code', due_date: null, time_limit_minutes: null });

      // Start: expires_at from the time limit. Starting again resumes the same attempt.
      const before = Date.now();
      const attempt = await start(session, examId);
      expect(Object.keys(attempt).sort()).toEqual(ATTEMPT_FIELDS);
      expect(attempt.id).toMatch(/^att_[A-Za-z0-9]+$/);
      expect(attempt).toMatchObject({ exam_id: examId, student_id: s.student.id, submitted_at: null, hidden_released_at: null });
      expect(attempt.started_at).toMatch(ISO_MS);
      expect(Date.parse(attempt.started_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(attempt.expires_at!) - Date.parse(attempt.started_at)).toBe(45 * MINUTE_MS);
      expect(await start(session, examId)).toEqual(attempt);
      expect(await app.ctx.db.models.Attempt.count({ where: { exam_id: examId } })).toBe(1);

      // Proctoring events.
      const at = new Date().toISOString();
      const recorded = await appPost(session, `/attempts/${attempt.id}/events`, {
        events: [
          { type: 'focus_lost', at },
          { type: 'recorder_error', at, detail: { code: 'NotAllowedError' } },
        ],
      });
      expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
      expect(recorded.body.data).toEqual({ accepted: 2 });
      const stored = await app.ctx.db.models.ProctoringEvent.findAll({ where: { attempt_id: attempt.id }, order: [['type', 'ASC']] });
      expect(stored.map((row) => row.type)).toEqual(['focus_lost', 'recorder_error']);
      expect(stored[0]!.at.toISOString()).toBe(at);
      expect(stored[1]!.detail).toEqual({ code: 'NotAllowedError' });
      expect(stored[0]!.institution_id).toBe(s.inst.id);

      // Hidden key: none stored yet, then released; the first release time is kept.
      const none = await appPost(session, `/attempts/${attempt.id}/hidden-key`);
      expect(none.status).toBe(404);
      expect(none.body).toMatchObject({ success: false, error: 'no_secret' });
      const hiddenKey = randomBytes(32);
      await s.inst.tenant.inTransaction((tx) => storeExamKey(tx, examId, hiddenKey));
      const released = await appPost(session, `/attempts/${attempt.id}/hidden-key`);
      expect(released.status).toBe(200);
      expect(released.body.data).toEqual({ hidden_key_b64: hiddenKey.toString('base64') });
      const firstRelease = (await app.ctx.db.models.Attempt.findByPk(attempt.id))!.hidden_released_at;
      expect(firstRelease).toBeInstanceOf(Date);
      expect((await appPost(session, `/attempts/${attempt.id}/hidden-key`)).status).toBe(200);
      expect((await app.ctx.db.models.Attempt.findByPk(attempt.id))!.hidden_released_at?.getTime()).toBe(firstRelease!.getTime());
      expect((await start(session, examId)).hidden_released_at).toBe(firstRelease!.toISOString());
      expect(app.logText()).not.toContain(hiddenKey.toString('base64'));
      const custody = await app.http.get(`/v1/exams/${examId}/code-secret/status`).set('Authorization', s.key.auth);
      expect(custody.status).toBe(200);
      expect(custody.body.data.released_count).toBe(1);

      // Files: a submission file and a recording.
      const content = Buffer.from('v = u + a * t\n');
      const file = await upload(session, attempt.id, content, 'solution.txt');
      expect(file.status, JSON.stringify(file.body)).toBe(200);
      expect(file.body.data).toEqual({ ref: expect.stringMatching(/^file_/), name: 'solution.txt', size: content.length, sha256: sha256(content) });
      const recording = await upload(session, attempt.id, Buffer.from('webm…'), 'screen.webm', 'recording');
      expect(recording.status).toBe(200);
      const rows = await app.ctx.db.models.StoredFile.findAll({ where: { owner_type: 'attempt', owner_id: attempt.id }, order: [['kind', 'ASC']] });
      expect(rows.map((row) => row.kind)).toEqual(['recording', 'submission']);
      expect(fs.readFileSync(path.join(app.dataDir, rows[1]!.storage_path))).toEqual(content);
      // A name in UTF-8, as browsers and curl send it, is kept as sent (not read as Latin-1).
      const accented = await upload(session, attempt.id, Buffer.from('print(1)'), 'Sørensen – løsning Łukasz.py');
      expect(accented.status, JSON.stringify(accented.body)).toBe(200);
      expect(accented.body.data.name).toBe('Sørensen – løsning Łukasz.py');
      expect((await app.ctx.db.models.StoredFile.findByPk(accented.body.data.ref))!.name).toBe('Sørensen – løsning Łukasz.py');

      // A recording cannot be attached as a submission file.
      const withRecording = await appPost(session, `/attempts/${attempt.id}/submit`, { files: [recording.body.data.ref] });
      expect(withRecording.status).toBe(422);
      expect(withRecording.body.error).toBe('validation_error');
      expect(withRecording.body.details[0].path).toBe('files.0');

      // Submit.
      const submitted = await appPost(session, `/attempts/${attempt.id}/submit`, {
        answers: { q1: 'v = u + at', q2: [1, 2, 3] },
        files: [file.body.data.ref],
        ai_usage: { interactions: 3, cost_cents: 12 },
      });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const submission = submitted.body.data;
      expect(Object.keys(submission).sort()).toEqual(SUBMISSION_FIELDS);
      expect(submission).toMatchObject({ exam_id: examId, student_id: s.student.id, attempt_id: attempt.id, status: 'submitted' });
      expect(submission.id).toMatch(/^sub_[A-Za-z0-9]+$/);
      expect(submission.submitted_at).toMatch(ISO_MS);

      const row = await app.ctx.db.models.Submission.findByPk(submission.id);
      expect(row?.answers).toEqual({ q1: 'v = u + at', q2: [1, 2, 3] });
      expect(row?.file_ids).toEqual([file.body.data.ref]);
      // The body's ai_usage is ignored: the attempt recorded none through /app/ai/usage (ai-usage.test.ts).
      expect(row?.ai_usage).toEqual({ interactions: 0, cost_cents: 0 });
      expect(row?.score).toBeNull();
      const attemptRow = await app.ctx.db.models.Attempt.findByPk(attempt.id);
      expect(attemptRow?.submitted_at?.toISOString()).toBe(submission.submitted_at);

      // submission.created, with ids only.
      const created = (await events(s.key)).filter((event) => event.type === 'submission.created');
      expect(created).toHaveLength(1);
      expect(created[0]!.data).toEqual({ submission_id: submission.id, exam_id: examId, student_id: s.student.id });

      // Twice: 409; the attempt is closed to further work.
      const twice = await appPost(session, `/attempts/${attempt.id}/submit`, { answers: 'again' });
      expect(twice.status).toBe(409);
      expect(twice.body).toMatchObject({ success: false, error: 'conflict' });
      for (const [label, res] of [
        ['events', await appPost(session, `/attempts/${attempt.id}/events`, { events: [{ type: 'focus_lost', at }] })],
        ['hidden-key', await appPost(session, `/attempts/${attempt.id}/hidden-key`)],
        ['files', await upload(session, attempt.id, content, 'late.txt')],
        ['new attempt', await appPost(session, `/exams/${examId}/attempts`)],
      ] as const) {
        expect(res.status, label).toBe(409);
        expect(res.body.error, label).toBe('conflict');
      }
      expect(await app.ctx.db.models.Submission.count({ where: { attempt_id: attempt.id } })).toBe(1);

      // The list shows the submission's state.
      const after = await appGet(session, '/exams');
      const listed = (after.body.data.items as Array<{ id: string; submission: unknown }>).find((item) => item.id === examId);
      expect(listed?.submission).toEqual({ id: submission.id, status: 'submitted', score: null });
    });

    it('after a resubmission request the student submits again on the same attempt; then 409 again', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      const first = await appPost(session, `/attempts/${attempt.id}/submit`, { answers: { text: 'one' } });
      expect(first.status).toBe(200);
      expect((await appPost(session, `/attempts/${attempt.id}/submit`, {})).status).toBe(409);

      // The grading API's score -1 sends it back: the same attempt takes files and a submit again.
      const sentBack = await post(s.key, `/submissions/${first.body.data.id}/grade`, { score: -1 });
      expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
      const file = await upload(session, attempt.id, Buffer.from('print(2)'), 'answer.py');
      expect(file.status, JSON.stringify(file.body)).toBe(200);
      const again = await appPost(session, `/attempts/${attempt.id}/submit`, { answers: { text: 'two' }, files: [file.body.data.ref] });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data.attempt_id).toBe(attempt.id);
      expect(again.body.data.id).not.toBe(first.body.data.id);

      // Once resubmitted: neither the same attempt nor a new one takes another submission.
      expect((await appPost(session, `/attempts/${attempt.id}/submit`, {})).status).toBe(409);
      expect((await appPost(session, `/exams/${examId}/attempts`)).status).toBe(409);
      const listed = (await appGet(session, '/exams')).body.data.items[0];
      expect(listed.submission).toEqual({ id: again.body.data.id, status: 'submitted', score: null });
      expect((await events(s.key)).filter((event) => event.type === 'submission.created')).toHaveLength(2);
    });

    it('after a resubmission request the student may start a new attempt instead; then the old one is closed', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const first = await start(session, examId);
      const firstSubmission = await appPost(session, `/attempts/${first.id}/submit`, { answers: { text: 'one' } });
      expect(firstSubmission.status).toBe(200);

      // A graded submission does not reopen the exam.
      await app.ctx.db.models.Submission.update({ status: 'graded', score: 40, graded_at: new Date() }, { where: { id: firstSubmission.body.data.id } });
      expect((await appPost(session, `/exams/${examId}/attempts`)).status).toBe(409);
      expect((await appPost(session, `/attempts/${first.id}/submit`, {})).status).toBe(409);
      const graded = (await appGet(session, '/exams')).body.data.items[0];
      expect(graded.submission).toEqual({ id: firstSubmission.body.data.id, status: 'graded', score: 40 });

      await app.ctx.db.models.Submission.update({ status: 'resubmission_requested', score: null }, { where: { id: firstSubmission.body.data.id } });
      const second = await start(session, examId);
      expect(second.id).not.toBe(first.id);
      expect(second.submitted_at).toBeNull();
      const secondSubmission = await appPost(session, `/attempts/${second.id}/submit`, { answers: { text: 'two' } });
      expect(secondSubmission.status).toBe(200);
      expect(secondSubmission.body.data.attempt_id).toBe(second.id);

      // One resubmission request, one new submission: the first attempt cannot add another.
      expect((await appPost(session, `/attempts/${first.id}/submit`, {})).status).toBe(409);
      expect((await appPost(session, `/attempts/${second.id}/submit`, {})).status).toBe(409);
      expect((await appPost(session, `/exams/${examId}/attempts`)).status).toBe(409);
      expect((await events(s.key)).filter((event) => event.type === 'submission.created')).toHaveLength(2);
    });

    it('with the integration API on the other side: exam made and published over HTTP, feed read, resubmission requested', async () => {
      const s = await school();
      const created = await post(s.key, '/exams', { faculty_id: s.teacher.id, title: 'Optics', time_limit_minutes: 20 });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const examId = created.body.data.id as string;
      expect((await post(s.key, `/exams/${examId}/assignments`, { group_ids: [s.groupId] })).status).toBe(200);
      const session = await sessionOf(s.key, s.student);
      // A draft is not the student's yet.
      expect((await appGet(session, '/exams')).body.data.items).toEqual([]);
      expect((await appPost(session, `/exams/${examId}/attempts`)).status).toBe(409);
      expect((await post(s.key, `/exams/${examId}/publish`)).status).toBe(200);
      expect((await appGet(session, '/exams')).body.data.items.map((item: { id: string }) => item.id)).toEqual([examId]);

      const attempt = await start(session, examId);
      expect(Date.parse(attempt.expires_at!) - Date.parse(attempt.started_at)).toBe(20 * MINUTE_MS);
      const at = new Date().toISOString();
      await appPost(session, `/attempts/${attempt.id}/events`, {
        events: [
          { type: 'focus_lost', at },
          { type: 'focus_lost', at },
        ],
      });
      const submitted = await appPost(session, `/attempts/${attempt.id}/submit`, { answers: { text: 'n = c / v' } });
      expect(submitted.status).toBe(200);
      const submissionId = submitted.body.data.id as string;

      const feed = await app.http.get(`/v1/submissions/${submissionId}/events`).set('Authorization', s.key.auth);
      expect(feed.status, JSON.stringify(feed.body)).toBe(200);
      expect(feed.body.data.counts.focus_lost).toBe(2);
      expect(feed.body.data.attempt.id).toBe(attempt.id);

      const resubmit = await post(s.key, `/submissions/${submissionId}/grade`, { score: -1, feedback: 'Show your working.' });
      expect(resubmit.status, JSON.stringify(resubmit.body)).toBe(200);
      const listed = (await appGet(session, '/exams')).body.data.items[0];
      expect(listed.submission).toMatchObject({ id: submissionId, status: 'resubmission_requested' });
      const second = await start(session, examId);
      expect(second.id).not.toBe(attempt.id);
      expect((await appPost(session, `/attempts/${second.id}/submit`, { answers: { text: 'n = c / v, v = c / n' } })).status).toBe(200);
    });

    it('an exam without a time limit gives an attempt that never expires', async () => {
      const s = await school();
      const examId = await insertExam(s, { time_limit_minutes: null });
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      expect(attempt.expires_at).toBeNull();
      expect((await appPost(session, `/attempts/${attempt.id}/submit`, {})).status).toBe(200);
    });
  });

  describe('starting an attempt', () => {
    it('an unassigned, draft or closed exam is 409 conflict; an unknown or foreign exam is 404 not_found', async () => {
      const s = await school();
      const other = await school();
      const session = await sessionOf(s.key, s.student);
      const unassigned = await insertExam(s, { assignTo: [] });
      const draft = await insertExam(s, { status: 'draft' });
      const closed = await insertExam(s, { status: 'closed' });
      for (const examId of [unassigned, draft, closed]) {
        const res = await appPost(session, `/exams/${examId}/attempts`);
        expect(res.status, examId).toBe(409);
        expect(res.body).toMatchObject({ success: false, error: 'conflict' });
      }
      const foreign = await insertExam(other);
      for (const examId of [foreign, 'exm_doesNotExist0000000000']) {
        const res = await appPost(session, `/exams/${examId}/attempts`);
        expect(res.status, examId).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
      expect(await app.ctx.db.models.Attempt.count({ where: { student_id: s.student.id } })).toBe(0);
    });

    it('a student outside the assigned groups gets 409 conflict and an empty list', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.outsider);
      expect((await appGet(session, '/exams')).body.data).toEqual({ items: [] });
      const res = await appPost(session, `/exams/${examId}/attempts`);
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
    });

    it('an attempt whose time ran out unsubmitted ends the exam: work on it and a new attempt are 409', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      // Past the submit's grace minute too (learner-exam.test.ts covers the minute itself).
      await app.ctx.db.models.Attempt.update({ expires_at: new Date(Date.now() - 61_000) }, { where: { id: attempt.id } });

      for (const [label, res] of [
        ['submit', await appPost(session, `/attempts/${attempt.id}/submit`, { answers: 'late' })],
        ['files', await upload(session, attempt.id, Buffer.from('x'), 'late.txt')],
        ['hidden-key', await appPost(session, `/attempts/${attempt.id}/hidden-key`)],
        ['start', await appPost(session, `/exams/${examId}/attempts`)],
      ] as const) {
        expect(res.status, label).toBe(409);
        expect(res.body.error, label).toBe('conflict');
      }
      // Buffered proctoring events may still arrive.
      const late = await appPost(session, `/attempts/${attempt.id}/events`, { events: [{ type: 'focus_lost', at: new Date().toISOString() }] });
      expect(late.status).toBe(200);
      expect(await app.ctx.db.models.Submission.count({ where: { attempt_id: attempt.id } })).toBe(0);
    });

    it('parallel starts make one attempt; parallel submits make one submission', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const starts = await Promise.all(Array.from({ length: 5 }, () => appPost(session, `/exams/${examId}/attempts`)));
      expect(starts.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(starts.map((res) => res.body.data.id)).size).toBe(1);
      const attemptId = starts[0]!.body.data.id as string;
      const submits = await Promise.all(Array.from({ length: 5 }, () => appPost(session, `/attempts/${attemptId}/submit`, { answers: 'same' })));
      expect(submits.filter((res) => res.status === 200)).toHaveLength(1);
      expect(submits.filter((res) => res.status === 409)).toHaveLength(4);
      expect(await app.ctx.db.models.Submission.count({ where: { attempt_id: attemptId } })).toBe(1);
    });
  });

  describe('attempt operations', () => {
    it("another student's attempt is 404 not_found on every operation", async () => {
      const s = await school();
      const examId = await insertExam(s);
      const mine = await sessionOf(s.key, s.student);
      const attempt = await start(mine, examId);
      const theirs = await sessionOf(s.key, s.outsider);
      for (const [label, res] of [
        ['events', await appPost(theirs, `/attempts/${attempt.id}/events`, { events: [{ type: 'focus_lost', at: new Date().toISOString() }] })],
        ['hidden-key', await appPost(theirs, `/attempts/${attempt.id}/hidden-key`)],
        ['files', await upload(theirs, attempt.id, Buffer.from('x'), 'x.txt')],
        ['submit', await appPost(theirs, `/attempts/${attempt.id}/submit`, {})],
        ['unknown', await appPost(mine, '/attempts/att_doesNotExist00000000/submit', {})],
      ] as const) {
        expect(res.status, label).toBe(404);
        expect(res.body.error, label).toBe('not_found');
      }
      expect((await app.ctx.db.models.Attempt.findByPk(attempt.id))?.submitted_at).toBeNull();
    });

    it('submit refuses refs that are not submission files of this attempt (422)', async () => {
      const s = await school();
      const examA = await insertExam(s);
      const examB = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const a = await start(session, examA);
      const b = await start(session, examB);
      const fileOfB = await upload(session, b.id, Buffer.from('b'), 'b.txt');
      expect(fileOfB.status).toBe(200);
      const fileOfA = await upload(session, a.id, Buffer.from('a'), 'a.txt');
      for (const files of [[fileOfB.body.data.ref], ['file_doesNotExist0000000000'], [fileOfA.body.data.ref, fileOfB.body.data.ref]]) {
        const res = await appPost(session, `/attempts/${a.id}/submit`, { files });
        expect(res.status, JSON.stringify(files)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      // The same ref twice is one attachment.
      const ok = await appPost(session, `/attempts/${a.id}/submit`, { files: [fileOfA.body.data.ref, fileOfA.body.data.ref] });
      expect(ok.status).toBe(200);
      expect((await app.ctx.db.models.Submission.findByPk(ok.body.data.id))?.file_ids).toEqual([fileOfA.body.data.ref]);
    });

    it('validates events, uploads and submit bodies (422)', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      const at = new Date().toISOString();
      const badEvents: unknown[] = [
        {},
        { events: [] },
        { events: Array.from({ length: 501 }, () => ({ type: 'focus_lost', at })) },
        { events: [{ type: '', at }] },
        { events: [{ type: 'x'.repeat(51), at }] },
        { events: [{ type: 'Focus Lost', at }] },
        { events: [{ type: 'focus_lost' }] },
        { events: [{ type: 'focus_lost', at: 'yesterday' }] },
        { events: [{ type: 'focus_lost', at, detail: { blob: 'x'.repeat(5000) } }] },
        { events: [{ type: 'focus_lost', at, extra: 1 }] },
      ];
      for (const body of badEvents) {
        const res = await appPost(session, `/attempts/${attempt.id}/events`, body);
        expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      const fiveHundred = await appPost(session, `/attempts/${attempt.id}/events`, { events: Array.from({ length: 500 }, () => ({ type: 'focus_lost', at })) });
      expect(fiveHundred.body.data).toEqual({ accepted: 500 });
      // `detail` is any JSON value: a string, a number, an array, null.
      const anyDetail = [
        { type: 'focus_lost', at, detail: 'alt-tab' },
        { type: 'focus_lost', at, detail: 3 },
        { type: 'focus_lost', at, detail: ['a'] },
        { type: 'focus_lost', at, detail: null },
      ];
      expect((await appPost(session, `/attempts/${attempt.id}/events`, { events: anyDetail })).body.data).toEqual({ accepted: 4 });

      const badKind = await upload(session, attempt.id, Buffer.from('x'), 'x.txt', 'starter');
      expect(badKind.status).toBe(422);
      const noFile = await app.http.post(`/v1/app/attempts/${attempt.id}/files`).set('Authorization', as(session)).field('note', 'x');
      expect(noFile.status).toBe(422);

      const badSubmits: unknown[] = [
        { answers: 'x'.repeat(1024 * 1024 + 1) },
        { ai_usage: { interactions: -1, cost_cents: 0 } },
        { ai_usage: { interactions: 1.5, cost_cents: 0 } },
        { ai_usage: { interactions: 1 } },
        { files: 'file_x' },
        { grade: 100 },
      ];
      for (const body of badSubmits) {
        const res = await appPost(session, `/attempts/${attempt.id}/submit`, body);
        expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      // Nothing above submitted the attempt.
      expect((await appPost(session, `/attempts/${attempt.id}/submit`, { answers: 'x'.repeat(1000) })).status).toBe(200);
    });

    it('a file name is kept as a plain name', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      const res = await upload(session, attempt.id, Buffer.from('x'), '../../etc/passwd');
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe('passwd');
    });

    it('an exam closed during the attempt no longer accepts the submission (409)', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const session = await sessionOf(s.key, s.student);
      const attempt = await start(session, examId);
      await app.ctx.db.models.Exam.update({ status: 'closed', closed_at: new Date() }, { where: { id: examId } });
      const res = await appPost(session, `/attempts/${attempt.id}/submit`, { answers: 'x' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
      expect((await appGet(session, '/exams')).body.data.items).toEqual([]);
    });
  });

  describe('who may call', () => {
    it('a faculty session reads /app/me but every exam operation is 403 forbidden', async () => {
      const s = await school();
      const examId = await insertExam(s);
      const studentSession = await sessionOf(s.key, s.student);
      const attempt = await start(studentSession, examId);
      const session = await sessionOf(s.key, s.teacher);
      const me = await appGet(session, '/me');
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({ id: s.teacher.id, role: 'faculty' });
      for (const [label, res] of [
        ['list', await appGet(session, '/exams')],
        ['start', await appPost(session, `/exams/${examId}/attempts`)],
        ['events', await appPost(session, `/attempts/${attempt.id}/events`, { events: [{ type: 'focus_lost', at: new Date().toISOString() }] })],
        ['hidden-key', await appPost(session, `/attempts/${attempt.id}/hidden-key`)],
        ['files', await upload(session, attempt.id, Buffer.from('x'), 'x.txt')],
        ['submit', await appPost(session, `/attempts/${attempt.id}/submit`, {})],
      ] as const) {
        expect(res.status, label).toBe(403);
        expect(res.body.error, label).toBe('forbidden');
      }
    });

    it("a suspended student's session is 401 at once; reactivated, it works again", async () => {
      const s = await school();
      const session = await sessionOf(s.key, s.student);
      expect((await appGet(session, '/me')).status).toBe(200);
      expect((await post(s.key, `/students/${s.student.id}/suspend`)).status).toBe(200);
      for (const res of [await appGet(session, '/me'), await appGet(session, '/exams')]) {
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('unauthorized');
      }
      expect((await post(s.key, `/students/${s.student.id}/reactivate`)).status).toBe(200);
      expect((await appGet(session, '/me')).status).toBe(200);
    });

    it('an expired session is 401', async () => {
      const s = await school();
      const session = await sessionOf(s.key, s.student);
      await app.ctx.db.models.LearnerSession.update({ expires_at: new Date(Date.now() - 1000) }, { where: { user_id: s.student.id } });
      const res = await appGet(session, '/me');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('unauthorized');
    });

    it('a session token is refused by integration routes (401 invalid_api_key), an API key by /app/* (401)', async () => {
      const s = await school();
      const session = await sessionOf(s.key, s.student);
      for (const res of [
        await app.http.get('/v1/me').set('Authorization', as(session)),
        await app.http.get('/v1/students').set('Authorization', as(session)),
        await app.http.post('/v1/sso/tokens').set('Authorization', as(session)).send({ email: s.student.login_email, app: 'learning' }),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('invalid_api_key');
      }
      const withKey = await app.http.get('/v1/app/me').set('Authorization', s.key.auth);
      expect(withKey.status).toBe(401);
      expect(withKey.body.error).toBe('unauthorized');
      const without = await app.http.get('/v1/app/me');
      expect(without.status).toBe(401);
      expect(without.body.error).toBe('unauthorized');
    });

    it("one institution's session cannot reach another's exams or attempts", async () => {
      const a = await school();
      const b = await school();
      const examB = await insertExam(b);
      const sessionB = await sessionOf(b.key, b.student);
      const attemptB = await start(sessionB, examB);
      const sessionA = await sessionOf(a.key, a.student);
      expect((await appPost(sessionA, `/exams/${examB}/attempts`)).status).toBe(404);
      expect((await appPost(sessionA, `/attempts/${attemptB.id}/submit`, {})).status).toBe(404);
      expect((await appGet(sessionA, '/exams')).body.data.items).toEqual([]);
    });
  });

  describe('the learner page', () => {
    const built = fs.existsSync(path.join(portalDir(), 'index.html'));

    it.skipIf(!built)('GET /launch?token=… serves the portal app, never cached, without a referrer', async () => {
      const res = await app.http.get('/launch?token=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.text).toContain('<div id="root">');
      // GET /launch does not spend anything: the page's script does the exchange.
      expect((await app.http.get('/launch')).status).toBe(200);
    });
  });
});
