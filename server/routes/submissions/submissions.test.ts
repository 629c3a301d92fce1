// @tier integration
// @databases sqlite, postgres
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedFileUrl } from '../../files/storage.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import type { FileKind, StoredFileRow } from '../../models/stored-file.js';
import type { SubmissionRow, SubmissionStatus } from '../../models/submission.js';
import type { Scope } from '../../policies/scopes.js';
import {
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

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE_MS = 60_000;
const SUBMISSION_FIELDS = [
  'attempt_id',
  'created_at',
  'exam_id',
  'feedback',
  'graded_at',
  'graded_by',
  'id',
  'score',
  'status',
  'student_id',
  'submitted_at',
  'updated_at',
  'voided_at',
];
const DETAIL_FIELDS = [...SUBMISSION_FIELDS, 'ai_usage', 'answers', 'attachments', 'proctoring'];
const FILE_LINK_FIELDS = ['expires_at', 'name', 'ref', 'sha256', 'size', 'url'];

type Person = TestPerson;

interface WireFileLink {
  ref: string;
  name: string;
  size: number;
  sha256: string;
  url: string;
  expires_at: string;
}

interface WireSubmission {
  id: string;
  exam_id: string;
  student_id: string;
  attempt_id: string;
  status: SubmissionStatus;
  score: number | null;
  feedback: string | null;
  graded_by: string | null;
  graded_at: string | null;
  submitted_at: string;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
  [extra: string]: unknown;
}

type Res = { status: number; body: Record<string, unknown>; headers: Record<string, string> };

/** Collects a response body as bytes, whatever its content type; the JSON error envelope is parsed. */
function binary(res: IncomingMessage, callback: (error: Error | null, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => {
    const bytes = Buffer.concat(chunks);
    callback(null, /^application\/json/.test(res.headers['content-type'] ?? '') ? JSON.parse(bytes.toString('utf8')) : bytes);
  });
  res.on('error', (error: Error) => callback(error, undefined));
}

describe('Submissions', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  // -------------------------------------------------------------------------------------------
  // Helpers. People come over HTTP; exams, attempts, proctoring events, stored files and
  // submissions are rows written directly (the exams and learner areas make them in production).
  // -------------------------------------------------------------------------------------------

  interface School extends TestSchool {
    reader: TestKey;
    eventsKey: TestKey;
    teacher: Person;
  }

  const get = (key: TestKey, url: string, query: Record<string, string | number> = {}) => app.http.get(`/v1${url}`).query(query).set('Authorization', key.auth);
  const post = (key: TestKey, url: string, body?: unknown) => {
    const req = app.http.post(`/v1${url}`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };

  const expectError = (res: Res, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: code });
    expect(typeof res.body.message).toBe('string');
  };

  const person = (key: TestKey, kind: 'students' | 'faculty', fullName: string, extra: Record<string, unknown> = {}) =>
    makePerson(app, key, kind, fullName, extra);

  async function school(): Promise<School> {
    const base = await makeSchool(app, { eventsKey: true });
    return {
      ...base,
      reader: await makeKey(app, base.inst, { scopes: ['submissions:read'] }),
      teacher: await person(base.key, 'faculty', 'Grace Hopper'),
    };
  }

  async function makeExam(s: School, maxScore: number | null = 100): Promise<ExamRow> {
    return s.inst.tenant.inTransaction((tx) =>
      tx.exams.create({
        id: newId('exm'),
        faculty_id: s.teacher.id,
        title: 'Algorithms midterm',
        description: '',
        exam_type: 'exam',
        app: 'code',
        status: 'published',
        max_score: maxScore,
        due_date: null,
        time_limit_minutes: 90,
        proctoring: { camera: true, screen: true },
        ai_policy: { allowed: true },
        code_spec: null,
        published_at: new Date(),
        closed_at: null,
      }),
    );
  }

  /** A stored file with real bytes under the data folder, as storeUpload leaves one. */
  async function makeFile(
    s: School,
    attemptId: string,
    kind: FileKind,
    name: string,
    bytes: Buffer,
    options: { contentType?: string; createdAt?: Date } = {},
  ): Promise<StoredFileRow> {
    const id = newId('file');
    const relative = path.join('uploads', s.inst.id, id);
    fs.mkdirSync(path.dirname(path.join(app.dataDir, relative)), { recursive: true });
    fs.writeFileSync(path.join(app.dataDir, relative), bytes);
    return s.inst.tenant.inTransaction((tx) =>
      tx.files.create({
        id,
        owner_type: 'attempt',
        owner_id: attemptId,
        kind,
        name,
        content_type: options.contentType ?? 'application/zip',
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        storage_path: relative,
        created_at: options.createdAt ?? new Date(),
      }),
    );
  }

  interface Seeded {
    exam: ExamRow;
    attemptId: string;
    submission: SubmissionRow;
  }

  interface SeedOptions {
    exam?: ExamRow;
    student: Person;
    submittedAt?: Date;
    status?: SubmissionStatus;
    score?: number | null;
    fileIds?: (attemptId: string) => Promise<string[]>;
    aiUsage?: { interactions: number; cost_cents: number } | null;
    answers?: unknown;
    events?: Array<{ type: string; at: Date; detail?: Record<string, unknown> | null }>;
    hiddenReleasedAt?: Date | null;
  }

  /** An attempt, its proctoring events and files, and its submission. */
  async function seed(s: School, options: SeedOptions): Promise<Seeded> {
    const exam = options.exam ?? (await makeExam(s));
    const submittedAt = options.submittedAt ?? new Date();
    const startedAt = new Date(submittedAt.getTime() - 30 * MINUTE_MS);
    const attemptId = newId('att');
    await s.inst.tenant.inTransaction(async (tx) => {
      await tx.attempts.create({
        id: attemptId,
        exam_id: exam.id,
        student_id: options.student.id,
        started_at: startedAt,
        expires_at: new Date(startedAt.getTime() + 90 * MINUTE_MS),
        submitted_at: submittedAt,
        hidden_released_at: options.hiddenReleasedAt ?? null,
      });
      for (const event of options.events ?? []) {
        await tx.proctoringEvents.create({
          id: newId('pev'),
          attempt_id: attemptId,
          type: event.type,
          at: event.at,
          detail: event.detail ?? null,
          created_at: new Date(),
        });
      }
    });
    const fileIds = options.fileIds ? await options.fileIds(attemptId) : [];
    const submission = await s.inst.tenant.inTransaction((tx) =>
      tx.submissions.create({
        id: newId('sub'),
        exam_id: exam.id,
        student_id: options.student.id,
        attempt_id: attemptId,
        status: options.status ?? 'submitted',
        answers: options.answers ?? null,
        file_ids: fileIds,
        ai_usage: options.aiUsage ?? null,
        score: options.score ?? null,
        feedback: null,
        graded_by: null,
        graded_at: null,
        void_reason: null,
        voided_at: options.status === 'voided' ? new Date() : null,
        submitted_at: submittedAt,
      }),
    );
    return { exam, attemptId, submission };
  }

  const events = (s: School, type = '*') => readEvents(app, s.eventsKey, type);

  async function list(key: TestKey, query: Record<string, string | number> = {}) {
    const res = await get(key, '/submissions', query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: WireSubmission[]; page: number; limit: number; total: number; totalPages: number };
  }

  async function detail(key: TestKey, id: string): Promise<WireSubmission> {
    const res = await get(key, `/submissions/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  /** Opens a signed link as a browser would: no key, only what the URL holds. */
  const download = (url: string) => {
    const parsed = new URL(url);
    // superagent types the parser with its own Response; at run time it is the IncomingMessage.
    return app.http
      .get(`${parsed.pathname}${parsed.search}`)
      .buffer(true)
      .parse(binary as unknown as Parameters<ReturnType<typeof app.http.get>['parse']>[0]);
  };

  const grade = (key: TestKey, id: string, body: unknown) => post(key, `/submissions/${id}/grade`, body);
  const voidIt = (key: TestKey, id: string, body?: unknown) => post(key, `/submissions/${id}/void`, body);

  // -------------------------------------------------------------------------------------------

  describe('GET /v1/submissions', () => {
    it('lists exactly the Submission object, oldest submitted first, paged', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const exam = await makeExam(s);
      const base = Date.parse('2026-09-14T10:00:00.000Z');
      const third = await seed(s, { exam, student: ada, submittedAt: new Date(base + 2 * MINUTE_MS) });
      const first = await seed(s, { exam, student: ada, submittedAt: new Date(base) });
      const second = await seed(s, { exam, student: ada, submittedAt: new Date(base + MINUTE_MS) });

      const all = await list(s.reader);
      expect(all).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect(all.items.map((item) => item.id)).toEqual([first, second, third].map((x) => x.submission.id));
      const item = all.items[0]!;
      expect(Object.keys(item).sort()).toEqual(SUBMISSION_FIELDS);
      expect(item).toMatchObject({
        id: first.submission.id,
        exam_id: exam.id,
        student_id: ada.id,
        attempt_id: first.attemptId,
        status: 'submitted',
        score: null,
        feedback: null,
        graded_by: null,
        graded_at: null,
        voided_at: null,
        submitted_at: '2026-09-14T10:00:00.000Z',
      });
      expect(item.created_at).toMatch(ISO_MS);
      expect(item.updated_at).toMatch(ISO_MS);

      const page2 = await list(s.reader, { limit: 2, page: 2 });
      expect(page2).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(page2.items.map((x) => x.id)).toEqual([third.submission.id]);
    });

    it('filters by exam_id, student_id (id or login email), status and since, combined with AND', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const alan = await person(s.key, 'students', 'Alan Turing');
      const examA = await makeExam(s);
      const examB = await makeExam(s);
      const t0 = Date.parse('2026-09-14T10:00:00.000Z');
      const a1 = await seed(s, { exam: examA, student: ada, submittedAt: new Date(t0) });
      const a2 = await seed(s, { exam: examA, student: alan, submittedAt: new Date(t0 + MINUTE_MS), status: 'graded', score: 80 });
      const b1 = await seed(s, { exam: examB, student: ada, submittedAt: new Date(t0 + 2 * MINUTE_MS), status: 'voided' });
      const b2 = await seed(s, { exam: examB, student: alan, submittedAt: new Date(t0 + 3 * MINUTE_MS), status: 'resubmission_requested' });
      const ids = (page: { items: WireSubmission[] }) => page.items.map((item) => item.id);

      expect(ids(await list(s.reader, { exam_id: examA.id }))).toEqual([a1.submission.id, a2.submission.id]);
      expect(ids(await list(s.reader, { exam_id: 'exm_unknown' }))).toEqual([]);

      expect(ids(await list(s.reader, { student_id: ada.id }))).toEqual([a1.submission.id, b1.submission.id]);
      expect(ids(await list(s.reader, { student_id: alan.login_email.toUpperCase() }))).toEqual([a2.submission.id, b2.submission.id]);
      const unknown = await list(s.reader, { student_id: 'nobody@example.org' });
      expect(unknown).toMatchObject({ items: [], total: 0, totalPages: 0 });
      // A teacher is not a student: nothing.
      expect(ids(await list(s.reader, { student_id: s.teacher.id }))).toEqual([]);

      expect(ids(await list(s.reader, { status: 'submitted' }))).toEqual([a1.submission.id]);
      expect(ids(await list(s.reader, { status: 'graded' }))).toEqual([a2.submission.id]);
      expect(ids(await list(s.reader, { status: 'voided' }))).toEqual([b1.submission.id]);
      expect(ids(await list(s.reader, { status: 'resubmission_requested' }))).toEqual([b2.submission.id]);

      // `since` is inclusive: a submission at exactly that instant is included.
      expect(ids(await list(s.reader, { since: new Date(t0 + 2 * MINUTE_MS).toISOString() }))).toEqual([b1.submission.id, b2.submission.id]);
      expect(ids(await list(s.reader, { since: new Date(t0 + 2 * MINUTE_MS + 1).toISOString() }))).toEqual([b2.submission.id]);
      expect(ids(await list(s.reader, { since: '2026-09-14T12:00:00+02:00' }))).toEqual(ids(await list(s.reader)));

      expect(ids(await list(s.reader, { exam_id: examB.id, student_id: ada.id, status: 'voided', since: new Date(t0).toISOString() }))).toEqual([
        b1.submission.id,
      ]);
      expect(ids(await list(s.reader, { exam_id: examA.id, status: 'voided' }))).toEqual([]);
    });

    it('refuses bad filters with 422 validation_error', async () => {
      const s = await school();
      const bad: Array<Record<string, string | number>> = [{ status: 'pending' }, { since: 'yesterday' }, { page: 0 }, { limit: 201 }, { stauts: 'graded' }];
      for (const query of bad) {
        const res = await get(s.reader, '/submissions', query);
        expectError(res, 422, 'validation_error');
      }
    });
  });

  describe('GET /v1/submissions/{id}', () => {
    it('adds signed attachments, ai_usage, proctoring summary and answers; no recordings for a read-only key', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const zip = Buffer.from('PK\u0003\u0004 solution bytes \u0000\u00ff', 'latin1');
      const notes = Buffer.from('# Notes\nsee main.py\n');
      let files: StoredFileRow[] = [];
      const t0 = Date.parse('2026-09-14T10:00:00.000Z');
      const seeded = await seed(s, {
        student: ada,
        aiUsage: { interactions: 7, cost_cents: 42 },
        answers: { q1: 'B', q2: ['a', 'c'] },
        events: [
          { type: 'focus_lost', at: new Date(t0 + 5 * MINUTE_MS) },
          { type: 'tab_hidden', at: new Date(t0 + 2 * MINUTE_MS) },
          { type: 'focus_lost', at: new Date(t0 + 9 * MINUTE_MS) },
        ],
        fileIds: async (attemptId) => {
          files = [
            await makeFile(s, attemptId, 'submission', 'solution.zip', zip),
            await makeFile(s, attemptId, 'submission', 'NOTES.md', notes, { contentType: 'text/markdown' }),
          ];
          const recording = await makeFile(s, attemptId, 'recording', 'screen.webm', Buffer.from('webm'), { contentType: 'video/webm' });
          // Listed in reverse order, plus a recording id and an unknown id that must not show up.
          return [files[1]!.id, recording.id, 'file_unknown', files[0]!.id];
        },
      });

      const before = Date.now();
      const data = await detail(s.reader, seeded.submission.id);
      const after = Date.now();
      expect(Object.keys(data).sort()).toEqual(DETAIL_FIELDS.sort());
      expect(data).not.toHaveProperty('recordings');
      expect(data.ai_usage).toEqual({ interactions: 7, cost_cents: 42 });
      expect(data.answers).toEqual({ q1: 'B', q2: ['a', 'c'] });
      expect(data.proctoring).toEqual({
        counts: { focus_lost: 2, recorder_error: 0, tab_hidden: 1 },
        total: 3,
        first_at: new Date(t0 + 2 * MINUTE_MS).toISOString(),
        last_at: new Date(t0 + 9 * MINUTE_MS).toISOString(),
      });

      const attachments = data.attachments as WireFileLink[];
      expect(attachments.map((file) => file.ref)).toEqual([files[1]!.id, files[0]!.id]);
      for (const link of attachments) {
        expect(Object.keys(link).sort()).toEqual(FILE_LINK_FIELDS);
        expect(link.url.startsWith(`${app.origin}/v1/files/${link.ref}?`)).toBe(true);
        expect(link.expires_at).toMatch(ISO_MS);
        // 15 minutes from the moment the server answered (in whole seconds), somewhere between the two readings.
        expect(Date.parse(link.expires_at) - before).toBeGreaterThan(14 * MINUTE_MS);
        expect(Date.parse(link.expires_at) - after).toBeLessThanOrEqual(15 * MINUTE_MS);
      }
      expect(attachments[0]).toMatchObject({ name: 'NOTES.md', size: notes.length, sha256: createHash('sha256').update(notes).digest('hex') });
      expect(attachments[1]).toMatchObject({ name: 'solution.zip', size: zip.length, sha256: createHash('sha256').update(zip).digest('hex') });
      // Where files lie on disk is never shown.
      expect(JSON.stringify(data)).not.toContain('uploads');
    });

    it('a bare submission: empty attachments, ai_usage null, answers null, zero counts', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const seeded = await seed(s, { student: ada });
      const data = await detail(s.reader, seeded.submission.id);
      expect(data).toMatchObject({
        attachments: [],
        ai_usage: null,
        answers: null,
        proctoring: { counts: { focus_lost: 0, recorder_error: 0 }, total: 0, first_at: null, last_at: null },
      });
    });

    it('recordings appear only for keys holding submissions:write, with signed links', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const screen = Buffer.from('screen recording bytes');
      const camera = Buffer.from('camera recording bytes');
      let recordings: StoredFileRow[] = [];
      const seeded = await seed(s, {
        student: ada,
        fileIds: async (attemptId) => {
          recordings = [
            await makeFile(s, attemptId, 'recording', 'screen.webm', screen, { contentType: 'video/webm', createdAt: new Date(Date.now() - 2000) }),
            await makeFile(s, attemptId, 'recording', 'camera.webm', camera, { contentType: 'video/webm', createdAt: new Date(Date.now() - 1000) }),
          ];
          return [(await makeFile(s, attemptId, 'submission', 'a.zip', Buffer.from('a'))).id];
        },
      });
      // A recording of another attempt stays out.
      const other = await seed(s, { student: ada });
      await makeFile(s, other.attemptId, 'recording', 'other.webm', Buffer.from('other'));

      const writeOnly = await makeKey(app, s.inst, { scopes: ['submissions:write'] });
      const unrelated = await makeKey(app, s.inst, { scopes: ['submissions:read', 'exams:write', 'students:write'] });
      for (const key of [s.key, writeOnly]) {
        const data = await detail(key, seeded.submission.id);
        const links = data.recordings as WireFileLink[];
        expect(links.map((link) => link.ref)).toEqual(recordings.map((file) => file.id));
        expect(links[0]).toMatchObject({ name: 'screen.webm', size: screen.length });
        for (const link of links) expect(Object.keys(link).sort()).toEqual(FILE_LINK_FIELDS);
        const res = await download(links[1]!.url);
        expect(res.status).toBe(200);
        expect(Buffer.compare(res.body as Buffer, camera)).toBe(0);
        expect(res.headers['content-type']).toBe('video/webm');
      }
      for (const key of [s.reader, unrelated]) {
        const data = await detail(key, seeded.submission.id);
        expect(data).not.toHaveProperty('recordings');
        expect(JSON.stringify(data)).not.toContain('.webm');
      }
    });

    it('unknown id: 404 not_found', async () => {
      const s = await school();
      expectError(await get(s.reader, '/submissions/sub_doesNotExist'), 404, 'not_found');
    });
  });

  describe('GET /v1/files/{ref} (signed links)', () => {
    async function attached(s: School, name: string, bytes: Buffer, contentType = 'application/zip') {
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      let file: StoredFileRow | undefined;
      const seeded = await seed(s, {
        student: ada,
        fileIds: async (attemptId) => {
          file = await makeFile(s, attemptId, 'submission', name, bytes, { contentType });
          return [file.id];
        },
      });
      const link = ((await detail(s.reader, seeded.submission.id)).attachments as WireFileLink[])[0]!;
      return { file: file!, link, seeded };
    }

    it('streams the exact bytes with no key, as an attachment that is never cached or sniffed', async () => {
      const s = await school();
      const bytes = Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 256))]);
      const { link } = await attached(s, 'solution.zip', bytes);
      const res = await download(link.url);
      expect(res.status).toBe(200);
      expect(Buffer.compare(res.body as Buffer, bytes)).toBe(0);
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(res.headers['content-disposition']).toBe(`attachment; filename="solution.zip"; filename*=UTF-8''solution.zip`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      expect(res.headers['x-request-id']).toBeTruthy();
    });

    it('a file whose bytes are gone from the data folder is 410 file_missing in words, not a 500', async () => {
      const s = await school();
      const { file, link } = await attached(s, 'starter.zip', Buffer.from('PK\u0003\u0004 gone', 'latin1'));
      fs.rmSync(path.join(app.dataDir, file.storage_path));
      const res = await download(link.url);
      expect(res.status).toBe(410);
      const body = (Buffer.isBuffer(res.body) ? JSON.parse(res.body.toString('utf8')) : res.body) as { error: string; message: string };
      expect(body.error).toBe('file_missing');
      expect(body.message).toMatch(/starter\.zip.*no longer in this appliance's data folder/);
    });

    it('quotes hostile or non-ASCII names safely and neutralises a bad content type', async () => {
      const s = await school();
      const name = 'ré"sumé\\..;\r\nX-Evil: 1.pdf';
      const { link } = await attached(s, name, Buffer.from('%PDF'), 'text/html\r\nX-Evil: 1');
      const res = await download(link.url);
      expect(res.status).toBe(200);
      expect(res.headers['x-evil']).toBeUndefined();
      expect(res.headers['content-type']).toBe('application/octet-stream');
      const disposition = res.headers['content-disposition']!;
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x21\x23-\x5b\x5d-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
      const exact = /filename\*=UTF-8''(.+)$/.exec(disposition)![1]!;
      expect(decodeURIComponent(exact)).toBe(name);
    });

    it('a tampered, missing, expired or borrowed signature is 404 not_found, alike', async () => {
      const s = await school();
      const { file, link } = await attached(s, 'a.zip', Buffer.from('first'));
      const { file: second } = await attached(s, 'b.zip', Buffer.from('second'));
      const url = new URL(link.url);
      const signature = url.searchParams.get('signature')!;
      const expires = url.searchParams.get('expires')!;
      const flip = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;

      const variants = [
        `/v1/files/${file.id}?expires=${expires}&signature=${flip}`,
        `/v1/files/${file.id}?expires=${Number(expires) + 1}&signature=${signature}`,
        `/v1/files/${file.id}?expires=${expires}`,
        `/v1/files/${file.id}?signature=${signature}`,
        `/v1/files/${file.id}`,
        `/v1/files/${file.id}?expires=${expires}&signature=${signature.slice(0, 10)}`,
        `/v1/files/${file.id}?expires=abc&signature=${signature}`,
        // This file's signature on another ref: signatures are per file id.
        `/v1/files/${second.id}?expires=${expires}&signature=${signature}`,
        `/v1/files/file_doesNotExist?expires=${expires}&signature=${signature}`,
      ];
      for (const variant of variants) {
        const res = await app.http.get(variant);
        expectError(res as unknown as Res, 404, 'not_found');
      }

      // Signed 16 minutes ago: expired a minute ago.
      const stale = signedFileUrl(app.ctx.db, await app.ctx.publicUrl(), file, Date.now() - 16 * MINUTE_MS);
      expect(Date.parse(stale.expires_at)).toBeLessThan(Date.now());
      expectError((await download(stale.url)) as unknown as Res, 404, 'not_found');

      // The genuine link still works.
      expect((await download(link.url)).status).toBe(200);
    });

    it('a key is neither needed nor enough: a key with every scope and a bad signature is still 404', async () => {
      const s = await school();
      const { file } = await attached(s, 'a.zip', Buffer.from('x'));
      const res = await app.http.get(`/v1/files/${file.id}`).set('Authorization', s.key.auth);
      expectError(res as unknown as Res, 404, 'not_found');
    });

    it('stops working when the institution is suspended, like its keys', async () => {
      const s = await school();
      const { link } = await attached(s, 'a.zip', Buffer.from('x'));
      expect((await download(link.url)).status).toBe(200);
      const institution = await s.inst.tenant.institution();
      await institution.update({ status: 'suspended' });
      expectError((await download(link.url)) as unknown as Res, 404, 'not_found');
      await institution.update({ status: 'approved' });
      expect((await download(link.url)).status).toBe(200);
    });
  });

  describe('GET /v1/submissions/{id}/events', () => {
    it('returns the attempt, counts per type and every event ordered by at', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const t0 = Date.parse('2026-09-14T10:00:00.000Z');
      const released = new Date(t0 - 10 * MINUTE_MS);
      const seeded = await seed(s, {
        student: ada,
        submittedAt: new Date(t0 + 20 * MINUTE_MS),
        hiddenReleasedAt: released,
        events: [
          { type: 'recorder_error', at: new Date(t0 + 3 * MINUTE_MS), detail: { code: 'camera_denied' } },
          { type: 'focus_lost', at: new Date(t0 + MINUTE_MS), detail: { duration_ms: 5200 } },
          { type: 'paste', at: new Date(t0 + 2 * MINUTE_MS) },
          { type: 'focus_lost', at: new Date(t0 + 4 * MINUTE_MS) },
          { type: 'constructor', at: new Date(t0 + 5 * MINUTE_MS) },
        ],
      });
      const res = await get(s.reader, `/submissions/${seeded.submission.id}/events`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['attempt', 'counts', 'items']);
      expect(data.attempt).toEqual({
        id: seeded.attemptId,
        exam_id: seeded.exam.id,
        student_id: ada.id,
        started_at: new Date(t0 - 10 * MINUTE_MS).toISOString(),
        expires_at: new Date(t0 + 80 * MINUTE_MS).toISOString(),
        submitted_at: new Date(t0 + 20 * MINUTE_MS).toISOString(),
        hidden_released_at: released.toISOString(),
      });
      expect(data.counts).toEqual({ focus_lost: 2, recorder_error: 1, paste: 1, constructor: 1 });
      expect(data.items.map((item: { type: string }) => item.type)).toEqual(['focus_lost', 'paste', 'recorder_error', 'focus_lost', 'constructor']);
      expect(data.items[0]).toEqual({
        id: expect.stringMatching(/^pev_/),
        type: 'focus_lost',
        at: new Date(t0 + MINUTE_MS).toISOString(),
        detail: { duration_ms: 5200 },
      });
      expect(data.items[1].detail).toBeNull();
      expect(data.items[2].detail).toEqual({ code: 'camera_denied' });
    });

    it('an attempt without events: focus_lost and recorder_error are 0, items empty, hidden_released_at null', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const seeded = await seed(s, { student: ada });
      const res = await get(s.reader, `/submissions/${seeded.submission.id}/events`);
      expect(res.status).toBe(200);
      expect(res.body.data.counts).toEqual({ focus_lost: 0, recorder_error: 0 });
      expect(res.body.data.items).toEqual([]);
      expect(res.body.data.attempt.hidden_released_at).toBeNull();
    });
  });

  describe('POST /v1/submissions/{id}/grade', () => {
    it('records score, feedback and grader, and emits exam.graded with the outcome and no personal data', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace', { personal_email: 'ada.family@example.org' });
      const seeded = await seed(s, { student: ada });
      const before = Date.now();
      const res = await grade(s.key, seeded.submission.id, { score: 87.5, feedback: 'Good work.', graded_by: 'Grace Hopper' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data as WireSubmission;
      expect(Object.keys(data).sort()).toEqual(SUBMISSION_FIELDS);
      expect(data).toMatchObject({
        id: seeded.submission.id,
        status: 'graded',
        score: 87.5,
        feedback: 'Good work.',
        graded_by: 'Grace Hopper',
        voided_at: null,
      });
      expect(Date.parse(data.graded_at!)).toBeGreaterThanOrEqual(before - 5);
      expect(await detail(s.reader, seeded.submission.id)).toMatchObject({ status: 'graded', score: 87.5, feedback: 'Good work.' });

      const graded = await events(s, 'exam.graded');
      expect(graded).toHaveLength(1);
      expect(graded[0]!.data).toEqual({
        submission_id: seeded.submission.id,
        exam_id: seeded.exam.id,
        student_id: ada.id,
        score: 87.5,
        max_score: 100,
        status: 'graded',
      });
      const text = JSON.stringify(await events(s));
      for (const secret of ['ada.family@example.org', ada.login_email, 'Ada Lovelace', 'Good work.', 'Grace Hopper']) expect(text).not.toContain(secret);
    });

    it('accepts 0 and exactly max_score; refuses other negatives and scores over the maximum with 422', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const exam = await makeExam(s, 50);
      const { submission } = await seed(s, { exam, student: ada });

      for (const score of [-2, -0.5, -1.0000001, 50.01, 51, 1e9]) {
        const res = await grade(s.key, submission.id, { score });
        expectError(res, 422, 'validation_error');
        expect(res.body.details).toEqual([{ path: 'score', message: expect.stringContaining('0 to 50') }]);
      }
      expect((await detail(s.reader, submission.id)).status).toBe('submitted');

      expect((await grade(s.key, submission.id, { score: 0 })).body.data).toMatchObject({ status: 'graded', score: 0 });
      expect((await grade(s.key, submission.id, { score: 50 })).body.data).toMatchObject({ status: 'graded', score: 50 });
    });

    it('an exam without max_score takes any score ≥ 0 and reports max_score null', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const exam = await makeExam(s, null);
      const { submission } = await seed(s, { exam, student: ada });
      expect((await grade(s.key, submission.id, { score: 1234.5 })).body.data).toMatchObject({ status: 'graded', score: 1234.5 });
      expectError(await grade(s.key, submission.id, { score: -3 }), 422, 'validation_error');
      expect((await events(s, 'exam.graded'))[0]!.data).toMatchObject({ score: 1234.5, max_score: null });
    });

    it('refuses malformed bodies with 422', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission } = await seed(s, { student: ada });
      for (const body of [
        {},
        { score: '90' },
        { score: null },
        { score: 90, feedback: 'x'.repeat(10_001) },
        { score: 90, graded_by: 'x'.repeat(201) },
        { score: 90, status: 'graded' },
      ]) {
        expectError(await grade(s.key, submission.id, body), 422, 'validation_error');
      }
      expect((await grade(s.key, submission.id, { score: 90, feedback: 'x'.repeat(10_000), graded_by: 'y'.repeat(200) })).status).toBe(200);
      expect(await events(s, 'exam.graded')).toHaveLength(1);
    });

    it('-1 requests a resubmission: score null, emits submission.resubmission_requested, not exam.graded', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission, exam } = await seed(s, { student: ada });
      await grade(s.key, submission.id, { score: 70, feedback: 'first' });
      const res = await grade(s.key, submission.id, { score: -1, feedback: 'Please include your tests.' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        status: 'resubmission_requested',
        score: null,
        graded_at: null,
        feedback: 'Please include your tests.',
        graded_by: null,
      });
      const requested = await events(s, 'submission.resubmission_requested');
      expect(requested.map((event) => event.data)).toEqual([{ submission_id: submission.id, exam_id: exam.id, student_id: ada.id }]);
      expect(await events(s, 'exam.graded')).toHaveLength(1);
      // Graded again later: allowed.
      expect((await grade(s.key, submission.id, { score: 90 })).body.data).toMatchObject({ status: 'graded', score: 90, feedback: null });
    });

    it('regrading is allowed and emits exam.graded again with the new outcome', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission } = await seed(s, { student: ada });
      expect((await grade(s.key, submission.id, { score: 60, feedback: 'ok', graded_by: 'TA' })).status).toBe(200);
      const second = await grade(s.key, submission.id, { score: 75 });
      expect(second.body.data).toMatchObject({ status: 'graded', score: 75, feedback: null, graded_by: null });
      const graded = await events(s, 'exam.graded');
      expect(graded.map((event) => event.data.score)).toEqual([60, 75]);
      expect(graded.every((event) => event.data.submission_id === submission.id && event.data.status === 'graded')).toBe(true);
    });

    it('a voided submission cannot be graded: 409 conflict, nothing emitted', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission } = await seed(s, { student: ada });
      expect((await voidIt(s.key, submission.id)).status).toBe(200);
      expectError(await grade(s.key, submission.id, { score: 80 }), 409, 'conflict');
      expectError(await grade(s.key, submission.id, { score: -1 }), 409, 'conflict');
      expect(await events(s, 'exam.graded')).toEqual([]);
      expect(await events(s, 'submission.resubmission_requested')).toEqual([]);
      expect((await detail(s.reader, submission.id)).status).toBe('voided');
    });

    it('unknown id: 404 not_found', async () => {
      const s = await school();
      expectError(await grade(s.key, 'sub_doesNotExist', { score: 1 }), 404, 'not_found');
    });
  });

  describe('POST /v1/submissions/{id}/void', () => {
    it('voids, keeps the reason to itself, emits submission.voided; twice is 409 void_failed', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission, exam } = await seed(s, { student: ada });
      await grade(s.key, submission.id, { score: 66 });
      const before = Date.now();
      const res = await voidIt(s.key, submission.id, { reason: 'Academic integrity review' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data as WireSubmission;
      expect(Object.keys(data).sort()).toEqual(SUBMISSION_FIELDS);
      expect(data).toMatchObject({ status: 'voided', score: 66 });
      expect(Date.parse(data.voided_at!)).toBeGreaterThanOrEqual(before - 5);
      expect(JSON.stringify(await detail(s.key, submission.id))).not.toContain('Academic integrity');

      const voided = await events(s, 'submission.voided');
      expect(voided.map((event) => event.data)).toEqual([{ submission_id: submission.id, exam_id: exam.id, student_id: ada.id }]);

      expectError(await voidIt(s.key, submission.id, { reason: 'again' }), 409, 'void_failed');
      expect(await events(s, 'submission.voided')).toHaveLength(1);
      const stored = await s.inst.tenant.submissions.findById(submission.id);
      expect(stored!.void_reason).toBe('Academic integrity review');
    });

    it('works without a body; refuses unknown fields and long reasons', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission } = await seed(s, { student: ada });
      expectError(await voidIt(s.key, submission.id, { reason: 'x'.repeat(501) }), 422, 'validation_error');
      expectError(await voidIt(s.key, submission.id, { why: 'x' }), 422, 'validation_error');
      const res = await voidIt(s.key, submission.id);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('voided');
      expectError(await voidIt(s.key, 'sub_doesNotExist'), 404, 'not_found');
    });
  });

  describe('scopes', () => {
    it('reads need submissions:read (write implies it); grade and void need submissions:write', async () => {
      const s = await school();
      const ada = await person(s.key, 'students', 'Ada Lovelace');
      const { submission } = await seed(s, { student: ada });
      const key = (scopes: Scope[]) => makeKey(app, s.inst, { scopes });
      const none = await key(['exams:write', 'students:write']);
      const writer = await key(['submissions:write']);
      const reads = (k: TestKey) => [get(k, '/submissions'), get(k, `/submissions/${submission.id}`), get(k, `/submissions/${submission.id}/events`)];

      for (const res of await Promise.all(reads(none))) {
        expectError(res, 403, 'insufficient_scope');
        expect(res.body).toMatchObject({ required: ['submissions:read'], missing: ['submissions:read'] });
      }
      for (const res of await Promise.all(reads(writer))) expect(res.status).toBe(200);
      for (const k of [none, s.reader]) {
        for (const res of [await grade(k, submission.id, { score: 1 }), await voidIt(k, submission.id)]) {
          expectError(res, 403, 'insufficient_scope');
          expect(res.body).toMatchObject({ required: ['submissions:write'], missing: ['submissions:write'] });
        }
      }
      expect((await detail(s.reader, submission.id)).status).toBe('submitted');
      expect((await grade(writer, submission.id, { score: 1 })).status).toBe(200);
      expect((await voidIt(writer, submission.id)).status).toBe(200);
    });

    it('no key: 401 unauthorized on the submission paths', async () => {
      for (const res of [await app.http.get('/v1/submissions'), await app.http.post('/v1/submissions/sub_x/grade').send({ score: 1 })]) {
        expectError(res as unknown as Res, 401, 'unauthorized');
      }
    });
  });

  describe('tenancy', () => {
    it("another institution's submissions are 404 on every path and absent from lists; its links open only its own file", async () => {
      const a = await school();
      const b = await school();
      const bStudent = await person(b.key, 'students', 'Bea Bee');
      let bFile: StoredFileRow | undefined;
      const bSeeded = await seed(b, {
        student: bStudent,
        events: [{ type: 'focus_lost', at: new Date() }],
        fileIds: async (attemptId) => {
          bFile = await makeFile(b, attemptId, 'submission', 'b.zip', Buffer.from('b-bytes'));
          return [bFile.id];
        },
      });
      const aStudent = await person(a.key, 'students', 'Ada Lovelace');
      let aFile: StoredFileRow | undefined;
      await seed(a, {
        student: aStudent,
        fileIds: async (attemptId) => {
          aFile = await makeFile(a, attemptId, 'submission', 'a.zip', Buffer.from('a-bytes'));
          return [aFile.id];
        },
      });
      const id = bSeeded.submission.id;

      expectError(await get(a.key, `/submissions/${id}`), 404, 'not_found');
      expectError(await get(a.key, `/submissions/${id}/events`), 404, 'not_found');
      expectError(await grade(a.key, id, { score: 10 }), 404, 'not_found');
      expectError(await grade(a.key, id, { score: -1 }), 404, 'not_found');
      expectError(await voidIt(a.key, id), 404, 'not_found');
      expect((await list(a.key, { exam_id: bSeeded.exam.id })).total).toBe(0);
      expect((await list(a.key, { student_id: bStudent.id })).total).toBe(0);
      expect((await list(a.key, { student_id: bStudent.login_email })).total).toBe(0);
      expect((await list(a.key)).items.map((item) => item.id)).not.toContain(id);

      // B's submission is untouched and B's own link works, with or without A's key.
      const bDetail = await detail(b.key, id);
      expect(bDetail).toMatchObject({ status: 'submitted', score: null, voided_at: null });
      expect(await events(b, 'exam.graded')).toEqual([]);
      const bLink = (bDetail.attachments as WireFileLink[])[0]!;
      const opened = await download(bLink.url).set('Authorization', a.key.auth);
      expect(opened.status).toBe(200);
      expect((opened.body as Buffer).toString()).toBe('b-bytes');

      // B's valid signature opens B's file only: on A's file ref it is a bad link.
      const signed = new URL(bLink.url);
      const borrowed = await app.http.get(`/v1/files/${aFile!.id}${signed.search}`);
      expectError(borrowed as unknown as Res, 404, 'not_found');
    });
  });
});
