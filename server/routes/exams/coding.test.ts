// @tier integration
// @databases sqlite, postgres
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseHiddenKeyToAttempt, validateCodeSpec } from '../../commands/exams/coding.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Scope } from '../../policies/scopes.js';
import { makeKey, makeSchool, startTestAppliance, type TestAppliance, type TestKey, type TestSchool } from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const keyOf = (bytes: number) => randomBytes(bytes).toString('base64');
const ivB64 = () => randomBytes(12).toString('base64');

interface WireFile {
  ref: string;
  name: string;
  size: number;
  sha256: string;
}

describe('Exams (coding)', () => {
  let app: TestAppliance;
  interface School extends TestSchool {
    facultyId: string;
  }
  let A: School;
  let B: School;

  const post = (key: TestKey, p: string, body?: object) => app.http.post(`/v1${p}`).set('Authorization', key.auth).send(body);
  const put = (key: TestKey, p: string, body: unknown) =>
    app.http
      .put(`/v1${p}`)
      .set('Authorization', key.auth)
      .send(body as object);
  const get = (key: TestKey, p: string) => app.http.get(`/v1${p}`).set('Authorization', key.auth);
  const upload = (key: TestKey, examId: string, content: Buffer, name: string, field = 'file') =>
    app.http.post(`/v1/exams/${examId}/files`).set('Authorization', key.auth).attach(field, content, name);

  async function school(name: string): Promise<School> {
    const { inst, key } = await makeSchool(app, { name });
    const res = await post(key, '/faculty', { full_name: 'Grace Hopper' });
    expect(res.status).toBe(200);
    return { inst, key, facultyId: res.body.data.id };
  }

  /** POST /v1/exams belongs to another area; the row is made directly, as that command would. */
  async function makeExam(s: School, overrides: { app?: 'learning' | 'code' } = {}): Promise<string> {
    const id = newId('exm');
    await s.inst.tenant.inTransaction((tx) =>
      tx.exams.create({
        id,
        faculty_id: s.facultyId,
        title: 'Algorithms – coding midterm',
        description: '',
        exam_type: 'exam',
        app: overrides.app ?? 'code',
        status: 'draft',
        max_score: 100,
        due_date: null,
        time_limit_minutes: 90,
        proctoring: {},
        ai_policy: {},
        code_spec: null,
        published_at: null,
        closed_at: null,
      }),
    );
    return id;
  }

  async function uploadOk(s: School, examId: string, name: string, content: Buffer = randomBytes(2048)): Promise<WireFile> {
    const res = await upload(s.key, examId, content, name);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  const filesIn = (dir: string): string[] => {
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  };
  const tmpFiles = () => filesIn(path.join(app.dataDir, 'tmp'));
  const storedFiles = () => filesIn(path.join(app.dataDir, 'uploads'));

  beforeAll(async () => {
    app = await startTestAppliance();
    A = await school('Coding School A');
    B = await school('Coding School B');
  });
  afterAll(() => app.close());

  describe('POST /exams/{id}/files', () => {
    it.each([
      ['starter.zip', 'starter'],
      ['sample-tests.zip', 'sample_tests'],
      ['hidden-tests.zip.enc', 'hidden_tests'],
    ])('stores %s as kind %s under DATA_DIR with its size and sha256', async (name, kind) => {
      const examId = await makeExam(A);
      const content = randomBytes(10_000 + Math.floor(Math.random() * 1000));
      const res = await upload(A.key, examId, content, name);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['name', 'ref', 'sha256', 'size']);
      expect(res.body.data).toMatchObject({ name, size: content.length, sha256: sha256(content) });
      expect(res.body.data.ref).toMatch(/^file_[A-Za-z0-9]{24}$/);

      const row = await A.inst.tenant.files.findById(res.body.data.ref);
      expect(row).toMatchObject({ owner_type: 'exam', owner_id: examId, kind, name, sha256: sha256(content) });
      const onDisk = path.join(app.dataDir, row!.storage_path);
      expect(onDisk.startsWith(path.join(app.dataDir, 'uploads') + path.sep)).toBe(true);
      expect(fs.readFileSync(onDisk).equals(content)).toBe(true);
      expect(tmpFiles()).toEqual([]);
    });

    it('uploading the same name again gives a new ref; the old one stays', async () => {
      const examId = await makeExam(A);
      const first = await uploadOk(A, examId, 'starter.zip', Buffer.from('first'));
      const second = await uploadOk(A, examId, 'starter.zip', Buffer.from('second'));
      expect(second.ref).not.toBe(first.ref);
      expect(await A.inst.tenant.files.count({ where: { owner_id: examId } })).toBe(2);
      await expect(validateCodeSpec(A.inst.tenant, examId, { starter: first.ref })).resolves.toBeUndefined();
      await expect(validateCodeSpec(A.inst.tenant, examId, { starter: second.ref })).resolves.toBeUndefined();
    });

    it('accepts an exam in any app and state (the files only count once code_spec names them)', async () => {
      const examId = await makeExam(A, { app: 'learning' });
      await uploadOk(A, examId, 'sample-tests.zip');
    });

    it.each(['notes.txt', 'Starter.zip', 'starter.ZIP', 'starter.zip.exe', 'hidden-tests.zip', 'sample_tests.zip', '.zip'])(
      'refuses the name %s: 422 validation_error, nothing kept',
      async (name) => {
        const examId = await makeExam(A);
        const before = storedFiles().length;
        const res = await upload(A.key, examId, randomBytes(512), name);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ success: false, error: 'validation_error' });
        expect(res.body.details).toEqual([expect.objectContaining({ path: 'file' })]);
        expect(res.body.message).toMatch(/starter\.zip/);
        expect(tmpFiles()).toEqual([]);
        expect(storedFiles().length).toBe(before);
        expect(await A.inst.tenant.files.count({ where: { owner_id: examId } })).toBe(0);
      },
    );

    it('without a file field: 422 validation_error (JSON body, empty multipart, text field only)', async () => {
      const examId = await makeExam(A);
      const json = await post(A.key, `/exams/${examId}/files`, { file: 'starter.zip' });
      expect(json.status).toBe(422);
      expect(json.body.error).toBe('validation_error');

      const textOnly = await app.http.post(`/v1/exams/${examId}/files`).set('Authorization', A.key.auth).field('file', 'starter.zip');
      expect(textOnly.status).toBe(422);
      expect(textOnly.body.error).toBe('validation_error');

      const empty = await app.http
        .post(`/v1/exams/${examId}/files`)
        .set('Authorization', A.key.auth)
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz--\r\n');
      expect(empty.status).toBe(422);
      expect(empty.body.error).toBe('validation_error');
      expect(tmpFiles()).toEqual([]);
    });

    it('a file under another field name: 422 validation_error', async () => {
      const examId = await makeExam(A);
      const res = await upload(A.key, examId, randomBytes(256), 'starter.zip', 'upload');
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details[0].path).toBe('file');
      expect(tmpFiles()).toEqual([]);
    });

    it('two files, or a file plus a text field: 422 validation_error, neither kept', async () => {
      const examId = await makeExam(A);
      const two = await app.http
        .post(`/v1/exams/${examId}/files`)
        .set('Authorization', A.key.auth)
        .attach('file', randomBytes(256), 'starter.zip')
        .attach('file', randomBytes(256), 'sample-tests.zip');
      expect(two.status).toBe(422);
      expect(two.body.error).toBe('validation_error');

      const withField = await app.http
        .post(`/v1/exams/${examId}/files`)
        .set('Authorization', A.key.auth)
        .field('note', 'hello')
        .attach('file', randomBytes(256), 'starter.zip');
      expect(withField.status).toBe(422);
      expect(withField.body.error).toBe('validation_error');
      expect(tmpFiles()).toEqual([]);
      expect(await A.inst.tenant.files.count({ where: { owner_id: examId } })).toBe(0);
    });

    it('an unknown exam, or another institution’s exam: 404 not_found, nothing kept', async () => {
      const before = storedFiles().length;
      const unknown = await upload(A.key, 'exm_doesNotExist', randomBytes(256), 'starter.zip');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toBe('not_found');

      const examB = await makeExam(B);
      const cross = await upload(A.key, examB, randomBytes(256), 'starter.zip');
      expect(cross.status).toBe(404);
      expect(cross.body.error).toBe('not_found');
      expect(await B.inst.tenant.files.count({ where: { owner_id: examB } })).toBe(0);
      expect(await A.inst.tenant.files.count({ where: { owner_id: examB } })).toBe(0);
      expect(storedFiles().length).toBe(before);
      expect(tmpFiles()).toEqual([]);

      // B itself can upload to it.
      await uploadOk(B, examB, 'starter.zip');
    });
  });

  describe('scopes', () => {
    let examId: string;
    const keyWith = (scopes: Scope[]) => makeKey(app, A.inst, { scopes });
    beforeAll(async () => {
      examId = await makeExam(A);
    });

    it('exams:read cannot upload, store, or release; it can read the status', async () => {
      const reader = await keyWith(['exams:read']);
      const up = await upload(reader, examId, randomBytes(64), 'starter.zip');
      expect(up.status).toBe(403);
      expect(up.body).toMatchObject({ error: 'insufficient_scope', required: ['exams:write'], missing: ['exams:write'] });
      const stored = await put(reader, `/exams/${examId}/code-secret`, { hidden_key_b64: keyOf(32) });
      expect(stored.status).toBe(403);
      expect(stored.body.error).toBe('insufficient_scope');
      const released = await post(reader, `/exams/${examId}/code-secret/release`);
      expect(released.status).toBe(403);
      expect(released.body.error).toBe('insufficient_scope');
      const status = await get(reader, `/exams/${examId}/code-secret/status`);
      expect(status.status).toBe(200);
      expect(tmpFiles()).toEqual([]);
    });

    it('exams:write does everything; other scopes nothing', async () => {
      const writer = await keyWith(['exams:write']);
      expect((await upload(writer, examId, randomBytes(64), 'starter.zip')).status).toBe(200);
      expect((await put(writer, `/exams/${examId}/code-secret`, { hidden_key_b64: keyOf(32) })).status).toBe(200);
      expect((await get(writer, `/exams/${examId}/code-secret/status`)).status).toBe(200);
      expect((await post(writer, `/exams/${examId}/code-secret/release`)).status).toBe(200);

      const other = await keyWith(['students:write', 'submissions:write']);
      expect((await get(other, `/exams/${examId}/code-secret/status`)).body.error).toBe('insufficient_scope');
      expect((await upload(other, examId, randomBytes(64), 'starter.zip')).body.error).toBe('insufficient_scope');
      expect((await put(other, `/exams/${examId}/code-secret`, { hidden_key_b64: keyOf(32) })).body.error).toBe('insufficient_scope');
      expect((await post(other, `/exams/${examId}/code-secret/release`)).body.error).toBe('insufficient_scope');
    });
  });

  describe('validateCodeSpec', () => {
    let examId: string;
    let otherExamId: string;
    let starter: WireFile;
    let sample: WireFile;
    let hidden: WireFile;
    let otherStarter: WireFile;
    let foreignHidden: WireFile;

    beforeAll(async () => {
      examId = await makeExam(A);
      otherExamId = await makeExam(A);
      starter = await uploadOk(A, examId, 'starter.zip');
      sample = await uploadOk(A, examId, 'sample-tests.zip');
      hidden = await uploadOk(A, examId, 'hidden-tests.zip.enc');
      otherStarter = await uploadOk(A, otherExamId, 'starter.zip');
      foreignHidden = await uploadOk(B, await makeExam(B), 'hidden-tests.zip.enc');
    });

    const fullSpec = () => ({
      toolchain: 'python-3.12',
      starter: starter.ref,
      sample_tests: { ref: sample.ref },
      hidden_tests: { file: hidden.ref, iv_b64: ivB64(), sha256: hidden.sha256 },
      commands: { build: 'pip install -r requirements.txt', test: ['pytest -q', 'pytest -q tests/hidden'] },
      ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 20 },
    });

    /** Expects a 422 validation_error naming exactly these paths. */
    async function refused(promise: Promise<unknown>, paths: string[]) {
      const error = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      const appError = error as AppError;
      expect(appError.code).toBe('validation_error');
      const details = appError.extra.details as Array<{ path: string; message: string }>;
      expect(details.map((d) => d.path).sort()).toEqual([...paths].sort());
      return details;
    }

    it('accepts a complete spec of this exam’s own files (ref strings or {ref}), and no spec at all', async () => {
      await expect(validateCodeSpec(A.inst.tenant, examId, fullSpec())).resolves.toBeUndefined();
      await expect(
        validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), starter: { ref: starter.ref }, sample_tests: sample.ref }),
      ).resolves.toBeUndefined();
      await expect(validateCodeSpec(A.inst.tenant, examId, { toolchain: 'node-20' })).resolves.toBeUndefined();
      await expect(validateCodeSpec(A.inst.tenant, examId, {})).resolves.toBeUndefined();
      await expect(validateCodeSpec(A.inst.tenant, examId, null)).resolves.toBeUndefined();
      await expect(validateCodeSpec(A.inst.tenant, examId, undefined)).resolves.toBeUndefined();
      // The hash compares case-insensitively.
      const upper = fullSpec();
      upper.hidden_tests.sha256 = hidden.sha256.toUpperCase();
      await expect(validateCodeSpec(A.inst.tenant, examId, upper)).resolves.toBeUndefined();
      // Inside a transaction too (as exam create/PATCH call it).
      await A.inst.tenant.inTransaction((tx) => validateCodeSpec(tx, examId, fullSpec()));
    });

    it('refuses another exam’s ref, another institution’s ref and unknown refs, naming each path', async () => {
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), starter: otherStarter.ref }), ['code_spec.starter']);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), starter: { ref: otherStarter.ref } }), ['code_spec.starter.ref']);
      const foreign = fullSpec();
      foreign.hidden_tests = { file: foreignHidden.ref, iv_b64: ivB64(), sha256: foreignHidden.sha256 };
      await refused(validateCodeSpec(A.inst.tenant, examId, foreign), ['code_spec.hidden_tests.file']);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), sample_tests: 'file_doesNotExist' }), ['code_spec.sample_tests']);
      // All problems at once.
      await refused(validateCodeSpec(A.inst.tenant, otherExamId, fullSpec()), [
        'code_spec.starter',
        'code_spec.sample_tests.ref',
        'code_spec.hidden_tests.file',
      ]);
    });

    it('an exam being created (no id yet) has no files: any ref is refused', async () => {
      await refused(validateCodeSpec(A.inst.tenant, null, { toolchain: 'python-3.12', starter: starter.ref }), ['code_spec.starter']);
      await expect(validateCodeSpec(A.inst.tenant, null, { toolchain: 'python-3.12', commands: { test: 'pytest' } })).resolves.toBeUndefined();
    });

    it('refuses a ref of the wrong kind', async () => {
      const details = await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), starter: sample.ref }), ['code_spec.starter']);
      expect(details[0]!.message).toMatch(/starter\.zip/);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), sample_tests: { ref: hidden.ref } }), ['code_spec.sample_tests.ref']);
      const wrongHidden = fullSpec();
      wrongHidden.hidden_tests.file = starter.ref;
      wrongHidden.hidden_tests.sha256 = starter.sha256;
      await refused(validateCodeSpec(A.inst.tenant, examId, wrongHidden), ['code_spec.hidden_tests.file']);
    });

    it.each([
      ['not base64', 'not base64!!'],
      ['11 bytes', randomBytes(11).toString('base64')],
      ['13 bytes', randomBytes(13).toString('base64')],
      ['16 bytes', randomBytes(16).toString('base64')],
      ['empty', ''],
    ])('refuses an iv_b64 that is %s', async (_label, iv) => {
      const spec = fullSpec();
      spec.hidden_tests.iv_b64 = iv;
      await refused(validateCodeSpec(A.inst.tenant, examId, spec), ['code_spec.hidden_tests.iv_b64']);
    });

    it('refuses a sha256 that is malformed or not the uploaded file’s', async () => {
      const mismatch = fullSpec();
      mismatch.hidden_tests.sha256 = sha256(Buffer.from('something else'));
      const details = await refused(validateCodeSpec(A.inst.tenant, examId, mismatch), ['code_spec.hidden_tests.sha256']);
      expect(details[0]!.message).toMatch(/sha256/i);
      const malformed = fullSpec();
      malformed.hidden_tests.sha256 = 'abc';
      await refused(validateCodeSpec(A.inst.tenant, examId, malformed), ['code_spec.hidden_tests.sha256']);
    });

    it('refuses a hidden_tests without its iv or sha256, and unknown fields anywhere', async () => {
      await refused(validateCodeSpec(A.inst.tenant, examId, { toolchain: 'python-3.12', hidden_tests: { file: hidden.ref } }), [
        'code_spec.hidden_tests.iv_b64',
        'code_spec.hidden_tests.sha256',
      ]);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), runner: 'docker' }), ['code_spec.runner']);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), ai_policy: { allowed: true, budget: 5 } }), ['code_spec.ai_policy.budget']);
      await refused(validateCodeSpec(A.inst.tenant, examId, { ...fullSpec(), commands: { test: 42 } }), ['code_spec.commands.test']);
      await refused(validateCodeSpec(A.inst.tenant, examId, 'python'), ['code_spec']);
    });

    describe('toolchain', () => {
      let C: School;
      let cExam: string;
      const putConfig = (toolchains: string[]) =>
        put(C.key, '/institution/config', {
          default_ai_policy: {},
          default_proctoring: {},
          allowed_toolchains: toolchains,
          toolchain_mirror: null,
          lms: {},
        });

      beforeAll(async () => {
        C = await school('Toolchain School');
        cExam = await makeExam(C);
      });

      it('any toolchain (or none) when allowed_toolchains is empty', async () => {
        expect((await putConfig([])).status).toBe(200);
        await expect(validateCodeSpec(C.inst.tenant, cExam, { toolchain: 'cobol-85' })).resolves.toBeUndefined();
        await expect(validateCodeSpec(C.inst.tenant, cExam, {})).resolves.toBeUndefined();
      });

      it('only a listed toolchain when the list is not empty; a spec must then name one', async () => {
        expect((await putConfig(['python-3.12', 'node-20'])).status).toBe(200);
        await expect(validateCodeSpec(C.inst.tenant, cExam, { toolchain: 'node-20' })).resolves.toBeUndefined();
        const details = await refused(validateCodeSpec(C.inst.tenant, cExam, { toolchain: 'cobol-85' }), ['code_spec.toolchain']);
        expect(details[0]!.message).toMatch(/python-3\.12/);
        await refused(validateCodeSpec(C.inst.tenant, cExam, { toolchain: 'Python-3.12' }), ['code_spec.toolchain']);
        await refused(validateCodeSpec(C.inst.tenant, cExam, { commands: { test: 'pytest' } }), ['code_spec.toolchain']);
        // Another institution's list does not apply.
        await expect(validateCodeSpec(A.inst.tenant, examId, { toolchain: 'cobol-85' })).resolves.toBeUndefined();
      });
    });
  });

  describe('code secret', () => {
    const status = async (s: School, examId: string) => {
      const res = await get(s.key, `/exams/${examId}/code-secret/status`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { stored: boolean; stored_at: string | null; released_count: number };
    };

    async function student(s: School): Promise<string> {
      const res = await post(s.key, '/students', { full_name: 'Ada Lovelace' });
      expect(res.status).toBe(200);
      return res.body.data.id;
    }

    async function makeAttempt(s: School, examId: string, studentId: string) {
      return s.inst.tenant.inTransaction((tx) =>
        tx.attempts.create({
          id: newId('att'),
          exam_id: examId,
          student_id: studentId,
          started_at: new Date(),
          expires_at: null,
          submitted_at: null,
          hidden_released_at: null,
        }),
      );
    }

    it('without a key: status says so and release is 404 no_secret', async () => {
      const examId = await makeExam(A);
      expect(await status(A, examId)).toEqual({ stored: false, stored_at: null, released_count: 0 });
      const res = await post(A.key, `/exams/${examId}/code-secret/release`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: 'no_secret' });
    });

    it('PUT stores, status reports, release reads it back; a second PUT replaces it', async () => {
      const examId = await makeExam(A);
      const key = keyOf(32);
      const stored = await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: key });
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
      expect(stored.body.data).toEqual({ stored: true, stored_at: expect.stringMatching(ISO_MS) });
      expect(JSON.stringify(stored.body)).not.toContain(key);

      expect(await status(A, examId)).toEqual({ stored: true, stored_at: stored.body.data.stored_at, released_count: 0 });
      const released = await post(A.key, `/exams/${examId}/code-secret/release`);
      expect(released.status).toBe(200);
      expect(released.body.data).toEqual({ hidden_key_b64: key });

      await new Promise((resolve) => setTimeout(resolve, 5));
      const next = keyOf(32);
      const again = await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: next });
      expect(again.status).toBe(200);
      expect(Date.parse(again.body.data.stored_at)).toBeGreaterThan(Date.parse(stored.body.data.stored_at));
      expect((await post(A.key, `/exams/${examId}/code-secret/release`)).body.data.hidden_key_b64).toBe(next);
      expect((await status(A, examId)).stored_at).toBe(again.body.data.stored_at);
    });

    it('accepts unpadded base64 and returns it canonical', async () => {
      const examId = await makeExam(A);
      const key = keyOf(32);
      expect((await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: key.replace(/=+$/, '') })).status).toBe(200);
      expect((await post(A.key, `/exams/${examId}/code-secret/release`)).body.data.hidden_key_b64).toBe(key);
    });

    it.each([
      ['31 bytes', () => keyOf(31)],
      ['33 bytes', () => keyOf(33)],
      ['0 bytes', () => ''],
      ['64 bytes', () => keyOf(64)],
      ['base64url', () => Buffer.from(Array.from({ length: 32 }, (_, i) => 250 + (i % 5))).toString('base64url')],
      ['hex of 32 bytes', () => randomBytes(32).toString('hex')],
      ['with whitespace', () => ` ${keyOf(32)}`],
    ])('refuses a key of %s: 422 validation_error that does not echo it', async (_label, make) => {
      const examId = await makeExam(A);
      const value = make();
      const res = await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: value });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['hidden_key_b64']);
      if (value.trim()) {
        expect(res.text).not.toContain(value.trim());
        expect(app.logText()).not.toContain(value.trim());
      }
      expect((await status(A, examId)).stored).toBe(false);
    });

    it('refuses a missing key, a non-string and unknown fields', async () => {
      const examId = await makeExam(A);
      for (const body of [{}, { hidden_key_b64: 42 }, { hidden_key_b64: null }, { hidden_key_b64: keyOf(32), note: 'x' }]) {
        const res = await put(A.key, `/exams/${examId}/code-secret`, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      expect((await status(A, examId)).stored).toBe(false);
    });

    it('unknown exam: 404 not_found on all three', async () => {
      expect((await put(A.key, '/exams/exm_doesNotExist/code-secret', { hidden_key_b64: keyOf(32) })).body.error).toBe('not_found');
      expect((await get(A.key, '/exams/exm_doesNotExist/code-secret/status')).body.error).toBe('not_found');
      expect((await post(A.key, '/exams/exm_doesNotExist/code-secret/release')).body.error).toBe('not_found');
    });

    it('another institution’s exam is 404 not_found and its key is untouched', async () => {
      const examB = await makeExam(B);
      const keyB = keyOf(32);
      expect((await put(B.key, `/exams/${examB}/code-secret`, { hidden_key_b64: keyB })).status).toBe(200);

      const overwrite = await put(A.key, `/exams/${examB}/code-secret`, { hidden_key_b64: keyOf(32) });
      expect(overwrite.status).toBe(404);
      expect(overwrite.body.error).toBe('not_found');
      const read = await post(A.key, `/exams/${examB}/code-secret/release`);
      expect(read.status).toBe(404);
      expect(read.body.error).toBe('not_found');
      expect(read.text).not.toContain(keyB);
      expect((await get(A.key, `/exams/${examB}/code-secret/status`)).status).toBe(404);

      expect((await post(B.key, `/exams/${examB}/code-secret/release`)).body.data.hidden_key_b64).toBe(keyB);
    });

    it('releaseHiddenKeyToAttempt returns the key, stamps hidden_released_at once, and counts in released_count', async () => {
      const examId = await makeExam(A);
      const otherExam = await makeExam(A);
      const key = keyOf(32);
      expect((await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: key })).status).toBe(200);
      const stu1 = await student(A);
      const stu2 = await student(A);
      const first = await makeAttempt(A, examId, stu1);
      const second = await makeAttempt(A, examId, stu2);
      await makeAttempt(A, examId, stu2); // never released
      await makeAttempt(A, otherExam, stu1); // another exam

      const result = await A.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, first));
      expect(result).toEqual({ hidden_key_b64: key });
      expect(first.hidden_released_at).toBeInstanceOf(Date);
      const stamped = (await A.inst.tenant.attempts.findById(first.id))!.hidden_released_at;
      expect(stamped?.getTime()).toBe(first.hidden_released_at!.getTime());
      expect((await status(A, examId)).released_count).toBe(1);

      // Again: same key, first time kept, still counted once.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const fresh = (await A.inst.tenant.attempts.findById(first.id))!;
      expect(await A.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, fresh))).toEqual({ hidden_key_b64: key });
      expect((await A.inst.tenant.attempts.findById(first.id))!.hidden_released_at?.getTime()).toBe(stamped!.getTime());
      // A stale copy (read before the first release) does not move the time either.
      const stale = await A.inst.tenant.attempts.findById(second.id);
      await A.inst.tenant.attempts.update({ hidden_released_at: new Date('2026-01-01T00:00:00.000Z') }, { id: second.id });
      await A.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, stale!));
      expect(stale!.hidden_released_at?.toISOString()).toBe('2026-01-01T00:00:00.000Z');

      expect((await status(A, examId)).released_count).toBe(2);
      expect((await status(A, otherExam)).released_count).toBe(0);
    });

    it('releaseHiddenKeyToAttempt without a stored key: no_secret, nothing stamped', async () => {
      const examId = await makeExam(A);
      const attempt = await makeAttempt(A, examId, await student(A));
      const error = await A.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, attempt)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('no_secret');
      expect((await A.inst.tenant.attempts.findById(attempt.id))!.hidden_released_at).toBeNull();
    });

    it('releaseHiddenKeyToAttempt in another institution’s scope: not_found, nothing stamped', async () => {
      const examId = await makeExam(A);
      expect((await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: keyOf(32) })).status).toBe(200);
      const attempt = await makeAttempt(A, examId, await student(A));
      const error = await B.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, attempt)).catch((e: unknown) => e);
      expect((error as AppError).code).toBe('not_found');
      expect((await A.inst.tenant.attempts.findById(attempt.id))!.hidden_released_at).toBeNull();
    });

    it('the key never reaches a log line, an event, the OpenAPI document, or the database in clear', async () => {
      const examId = await makeExam(A);
      const raw = randomBytes(32);
      const key = raw.toString('base64');
      const variants = [key, key.replace(/=+$/, ''), raw.toString('base64url'), raw.toString('hex')];
      expect((await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: key })).status).toBe(200);
      expect((await post(A.key, `/exams/${examId}/code-secret/release`)).body.data.hidden_key_b64).toBe(key);
      // A refused write next to it (one byte short) must not leak either.
      const near = raw.subarray(0, 31).toString('base64');
      expect((await put(A.key, `/exams/${examId}/code-secret`, { hidden_key_b64: near })).status).toBe(422);
      const attempt = await makeAttempt(A, examId, await student(A));
      await A.inst.tenant.inTransaction((tx) => releaseHiddenKeyToAttempt(tx, attempt));

      const logs = app.logText();
      expect(logs.length).toBeGreaterThan(0);
      const openapi = (await app.http.get('/v1/openapi.json')).text;
      const db = app.ctx.db.sequelize;
      const secrets = JSON.stringify(await db.query('SELECT * FROM exam_secrets', { type: QueryTypes.SELECT }));
      const events = JSON.stringify(await db.query('SELECT * FROM events', { type: QueryTypes.SELECT }));
      const attempts = JSON.stringify(await db.query('SELECT * FROM attempts', { type: QueryTypes.SELECT }));
      for (const value of variants) {
        expect(logs).not.toContain(value);
        expect(openapi).not.toContain(value);
        expect(secrets).not.toContain(value);
        expect(events).not.toContain(value);
        expect(attempts).not.toContain(value);
      }
      expect(logs).not.toContain(near);

      // Stored sealed: the row exists and holds a versioned ciphertext.
      const row = (
        await db.query<{ exam_id: string; key_sealed: string }>('SELECT * FROM exam_secrets WHERE exam_id = ?', {
          replacements: [examId],
          type: QueryTypes.SELECT,
        })
      )[0];
      expect(row?.key_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('the OpenAPI document shows only a placeholder for the key', async () => {
      const doc = (await app.http.get('/v1/openapi.json')).body;
      const paths = doc.paths as Record<string, Record<string, unknown>>;
      expect(paths['/exams/{id}/files']?.post).toBeDefined();
      expect(paths['/exams/{id}/code-secret']?.put).toBeDefined();
      expect(paths['/exams/{id}/code-secret/status']?.get).toBeDefined();
      expect(paths['/exams/{id}/code-secret/release']?.post).toBeDefined();
      const examples: string[] = [];
      const walk = (node: unknown, key = ''): void => {
        if (Array.isArray(node)) node.forEach((item) => walk(item, key));
        else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k);
        else if (key === 'example' && typeof node === 'string') examples.push(node);
      };
      walk(doc.components?.schemas?.CodeSecretPut);
      walk(doc.components?.schemas?.CodeSecretRelease);
      expect(examples).toEqual(['<base64 of 32 bytes>', '<base64 of 32 bytes>']);
    });
  });
});
