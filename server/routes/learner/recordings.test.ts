// @tier integration
// @databases sqlite, postgres
/**
 * Proctoring recordings sent by the learner page in numbered chunks, resumable and
 * idempotent, finished into one stored file that the submission lists only for keys holding
 * `submissions:write`; unfinished ones are finished by the job once the attempt is over.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'superagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHUNK_BYTES, MAX_RECORDING_BYTES, RECORDING_GRACE_MS } from '../../commands/recordings/recordings.js';
import { newId } from '../../ids.js';
import {
  learnerSession,
  makeKey,
  makePerson,
  makeSchool,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
  type TestSchool,
} from '../../../tests/helpers/appliance.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface WireRecording {
  id: string;
  attempt_id: string;
  source: string;
  mime_type: string;
  chunks: number;
  bytes: number;
  next_seq: number;
  started_at: string;
  finished_at: string | null;
}

describe('Learner side: proctoring recordings in chunks', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  interface School extends TestSchool {
    teacher: TestPerson;
    student: TestPerson;
    other: TestPerson;
    groupId: string;
    session: string;
    otherSession: string;
  }

  async function school(): Promise<School> {
    const { inst, key } = await makeSchool(app);
    const teacher = await makePerson(app, key, 'faculty', 'Grace Hopper');
    const student = await makePerson(app, key, 'students', 'Ada Lovelace');
    const other = await makePerson(app, key, 'students', 'Alan Turing');
    const group = await app.http
      .post('/v1/groups')
      .set('Authorization', key.auth)
      .send({ name: 'CS 101', faculty_id: teacher.id, student_ids: [student.id, other.id] });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const session = await learnerSession(app, key, student);
    const otherSession = await learnerSession(app, key, other);
    return { inst, key, teacher, student, other, groupId: group.body.data.id, session, otherSession };
  }

  /** A published exam with camera and screen proctoring, assigned to the school's group. */
  async function insertExam(s: School) {
    const id = newId('exm');
    await s.inst.tenant.inTransaction(async (tx) => {
      await tx.exams.create({
        id,
        faculty_id: s.teacher.id,
        title: 'Proctored quiz',
        description: '',
        exam_type: 'exam',
        app: 'learning',
        status: 'published',
        max_score: 10,
        due_date: null,
        time_limit_minutes: 30,
        proctoring: { camera: true, screen: true },
        ai_policy: { allowed: false },
        code_spec: null,
        published_at: new Date(),
        closed_at: null,
      });
      await tx.examAssignments.create({ exam_id: id, group_id: s.groupId, assigned_at: new Date() });
    });
    return id;
  }

  const appGet = (session: string, path: string) => app.http.get(`/v1/app${path}`).set('Authorization', `Bearer ${session}`);
  const appPost = (session: string, path: string, body: object = {}) => app.http.post(`/v1/app${path}`).set('Authorization', `Bearer ${session}`).send(body);
  const sendChunk = (session: string, attemptId: string, recId: string, seq: number | string, bytes: Buffer) =>
    app.http
      .post(`/v1/app/attempts/${attemptId}/recordings/${recId}/chunks`)
      .query({ seq })
      .set('Authorization', `Bearer ${session}`)
      .attach('file', bytes, { filename: 'blob', contentType: 'video/webm' });

  function expectError(res: Response, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error).toBe(code);
  }

  function expectOk(res: Response): WireRecording {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as WireRecording;
  }

  async function startAttempt(s: School, session = s.session): Promise<string> {
    const examId = await insertExam(s);
    const attempt = await appPost(session, `/exams/${examId}/attempts`);
    expect(attempt.status, JSON.stringify(attempt.body)).toBe(200);
    return attempt.body.data.id as string;
  }

  async function startRecording(s: School, attemptId: string, source: 'camera' | 'screen' = 'camera'): Promise<WireRecording> {
    return expectOk(await appPost(s.session, `/attempts/${attemptId}/recordings`, { source, mime_type: 'video/webm;codecs=vp9' }));
  }

  async function submit(s: School, attemptId: string): Promise<string> {
    const res = await appPost(s.session, `/attempts/${attemptId}/submit`, { answers: 'done' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id as string;
  }

  /** The submission's `recordings` as the key sees them (undefined when absent). */
  async function recordingsOnSubmission(key: TestKey, submissionId: string) {
    const res = await app.http.get(`/v1/submissions/${submissionId}`).set('Authorization', key.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.recordings as Array<{ ref: string; name: string; size: number; sha256: string; url: string }> | undefined;
  }

  /** Opens a signed link as a browser would: no key, only what the URL holds. */
  async function download(url: string): Promise<{ status: number; body: Buffer; type: string }> {
    const parsed = new URL(url);
    const res = await app.http
      .get(`${parsed.pathname}${parsed.search}`)
      .buffer(true)
      .parse((stream, done) => {
        const pieces: Buffer[] = [];
        stream.on('data', (piece: Buffer) => pieces.push(piece));
        stream.on('end', () => done(null, Buffer.concat(pieces)));
      });
    return { status: res.status, body: res.body as Buffer, type: String(res.headers['content-type']) };
  }

  it('starts a recording, appends chunks in order, and lists it with next_seq for a reloaded page', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const started = await startRecording(s, attemptId);
    expect(started).toMatchObject({
      attempt_id: attemptId,
      source: 'camera',
      mime_type: 'video/webm;codecs=vp9',
      chunks: 0,
      bytes: 0,
      next_seq: 0,
      finished_at: null,
    });
    expect(started.id).toMatch(/^rec_/);

    const first = randomBytes(1000);
    const second = randomBytes(2345);
    expect(expectOk(await sendChunk(s.session, attemptId, started.id, 0, first))).toMatchObject({ chunks: 1, bytes: 1000, next_seq: 1 });
    expect(expectOk(await sendChunk(s.session, attemptId, started.id, 1, second))).toMatchObject({ chunks: 2, bytes: 3345, next_seq: 2 });

    const list = await appGet(s.session, `/attempts/${attemptId}/recordings`);
    expect(list.status).toBe(200);
    expect(list.body.data.items).toEqual([{ ...started, chunks: 2, bytes: 3345, next_seq: 2 }]);
  });

  it('a retry of a stored seq with the same bytes answers the same state; other bytes or a gap is 409 naming the expected seq', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    const first = randomBytes(500);
    const after = expectOk(await sendChunk(s.session, attemptId, rec.id, 0, first));

    // The answer was lost; the page sends seq 0 again.
    expect(expectOk(await sendChunk(s.session, attemptId, rec.id, 0, first))).toEqual(after);

    const different = await sendChunk(s.session, attemptId, rec.id, 0, randomBytes(500));
    expectError(different, 409, 'conflict');
    expect(different.body.message).toContain('seq 1');

    const gap = await sendChunk(s.session, attemptId, rec.id, 2, randomBytes(10));
    expectError(gap, 409, 'conflict');
    expect(gap.body.message).toContain('seq 1');

    const list = (await appGet(s.session, `/attempts/${attemptId}/recordings`)).body.data.items as WireRecording[];
    expect(list[0]).toMatchObject({ chunks: 1, bytes: 500, next_seq: 1 });
  });

  it('refuses a chunk over 8 MB with 422 file_too_large, and a malformed seq with 422 validation_error', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    expectError(await sendChunk(s.session, attemptId, rec.id, 0, Buffer.alloc(MAX_CHUNK_BYTES + 1)), 422, 'file_too_large');
    expectError(await sendChunk(s.session, attemptId, rec.id, '-1', randomBytes(10)), 422, 'validation_error');
    expectError(await sendChunk(s.session, attemptId, rec.id, 'x', randomBytes(10)), 422, 'validation_error');
    expect(expectOk(await sendChunk(s.session, attemptId, rec.id, 0, Buffer.alloc(MAX_CHUNK_BYTES)))).toMatchObject({ bytes: MAX_CHUNK_BYTES });
  });

  it('refuses a chunk that would take the recording past 1 GiB with 422 file_too_large, and keeps the recording as it was', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    expectOk(await sendChunk(s.session, attemptId, rec.id, 0, randomBytes(10)));
    // As if 1 GiB less 5 bytes had been received (writing a real GiB would only slow the suite).
    await app.ctx.db.models.AttemptRecording.update({ bytes: MAX_RECORDING_BYTES - 5 }, { where: { id: rec.id } });
    const refused = await sendChunk(s.session, attemptId, rec.id, 1, randomBytes(6));
    expectError(refused, 422, 'file_too_large');
    expect(refused.body.message).toContain('1024 MB');
    expect(expectOk(await sendChunk(s.session, attemptId, rec.id, 1, randomBytes(5)))).toMatchObject({ bytes: MAX_RECORDING_BYTES, next_seq: 2 });
  });

  it('the same seq sent twice at once is appended once; two different bodies for one seq: one lands, the other is 409', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    const bytes = randomBytes(50_000);
    const twice = await Promise.all([sendChunk(s.session, attemptId, rec.id, 0, bytes), sendChunk(s.session, attemptId, rec.id, 0, bytes)]);
    for (const res of twice) expect(expectOk(res)).toMatchObject({ chunks: 1, bytes: 50_000 });

    const racing = await Promise.all([
      sendChunk(s.session, attemptId, rec.id, 1, randomBytes(700)),
      sendChunk(s.session, attemptId, rec.id, 1, randomBytes(900)),
    ]);
    expect(racing.map((res) => res.status).sort()).toEqual([200, 409]);
    const landed = racing.find((res) => res.status === 200)!.body.data as WireRecording;
    expect([50_700, 50_900]).toContain(landed.bytes);
    const row = await app.ctx.db.models.AttemptRecording.findByPk(rec.id);
    expect(fs.statSync(path.join(app.dataDir, row!.storage_path)).size).toBe(landed.bytes);
  });

  it("another student's attempt or recording is 404 not_found; a faculty session is 403 forbidden; a bad media type is 422", async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    const body = { source: 'screen', mime_type: 'video/webm' };

    expectError(await appPost(s.otherSession, `/attempts/${attemptId}/recordings`, body), 404, 'not_found');
    expectError(await appGet(s.otherSession, `/attempts/${attemptId}/recordings`), 404, 'not_found');
    expectError(await sendChunk(s.otherSession, attemptId, rec.id, 0, randomBytes(10)), 404, 'not_found');
    expectError(await appPost(s.otherSession, `/attempts/${attemptId}/recordings/${rec.id}/finish`), 404, 'not_found');
    // Another attempt's recording id, under the student's own attempt, is as unknown.
    const otherAttempt = await startAttempt(s, s.otherSession);
    expectError(await sendChunk(s.otherSession, otherAttempt, rec.id, 0, randomBytes(10)), 404, 'not_found');

    const faculty = await learnerSession(app, s.key, s.teacher);
    expectError(await appPost(faculty, `/attempts/${attemptId}/recordings`, body), 403, 'forbidden');
    expectError(await appGet(faculty, `/attempts/${attemptId}/recordings`), 403, 'forbidden');
    expectError(await sendChunk(faculty, attemptId, rec.id, 0, randomBytes(10)), 403, 'forbidden');

    expectError(await appPost(s.session, `/attempts/${attemptId}/recordings`, { source: 'screen', mime_type: 'text/html' }), 422, 'validation_error');
    expectError(await appPost(s.session, `/attempts/${attemptId}/recordings`, { source: 'microphone', mime_type: 'audio/ogg' }), 422, 'validation_error');
    expect((await appGet(s.session, `/attempts/${attemptId}/recordings`)).body.data.items).toHaveLength(1);
  });

  it('finish makes one stored file of exactly the chunks, listed with a signed link for submissions:write keys only', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const camera = await startRecording(s, attemptId, 'camera');
    const chunks = [randomBytes(3000), randomBytes(1), randomBytes(70_000)];
    for (const [seq, bytes] of chunks.entries()) expectOk(await sendChunk(s.session, attemptId, camera.id, seq, bytes));

    const finished = expectOk(await appPost(s.session, `/attempts/${attemptId}/recordings/${camera.id}/finish`));
    expect(finished.finished_at).not.toBeNull();
    expect(finished).toMatchObject({ chunks: 3, bytes: 73_001 });
    // Idempotent: the same recording, the same time.
    expect(expectOk(await appPost(s.session, `/attempts/${attemptId}/recordings/${camera.id}/finish`))).toEqual(finished);
    expectError(await sendChunk(s.session, attemptId, camera.id, 3, randomBytes(10)), 409, 'conflict');
    // Even a retry of a chunk it holds: the recording is closed.
    expectError(await sendChunk(s.session, attemptId, camera.id, 2, chunks[2]!), 409, 'conflict');

    const submissionId = await submit(s, attemptId);
    const writer = await makeKey(app, s.inst, { scopes: ['submissions:write'] });
    const reader = await makeKey(app, s.inst, { scopes: ['submissions:read'] });
    const links = await recordingsOnSubmission(writer, submissionId);
    const whole = Buffer.concat(chunks);
    expect(links).toHaveLength(1);
    expect(links![0]).toMatchObject({ name: 'camera-1.webm', size: whole.length, sha256: sha256(whole) });
    const file = await download(links![0]!.url);
    expect(file.status).toBe(200);
    expect(sha256(file.body)).toBe(sha256(whole));
    expect(file.type).toBe('video/webm;codecs=vp9');

    expect(await recordingsOnSubmission(reader, submissionId)).toBeUndefined();
  });

  it('takes a chunk for 5 minutes after the submit, then 409; a new recording only while the attempt is open', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId, 'screen');
    expectOk(await sendChunk(s.session, attemptId, rec.id, 0, randomBytes(100)));
    await submit(s, attemptId);

    // The chunk flushed by the submit still lands.
    expectOk(await sendChunk(s.session, attemptId, rec.id, 1, randomBytes(100)));
    expectError(await appPost(s.session, `/attempts/${attemptId}/recordings`, { source: 'camera', mime_type: 'video/webm' }), 409, 'conflict');

    await app.ctx.db.models.Attempt.update({ submitted_at: new Date(Date.now() - RECORDING_GRACE_MS - 1000) }, { where: { id: attemptId } });
    expectError(await sendChunk(s.session, attemptId, rec.id, 2, randomBytes(100)), 409, 'conflict');
  });

  it('recordings left unfinished are finished by the job once the attempt was submitted 5 minutes ago', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const camera = await startRecording(s, attemptId, 'camera');
    const screen = await startRecording(s, attemptId, 'screen');
    const empty = await startRecording(s, attemptId, 'camera');
    const cameraBytes = [randomBytes(4000), randomBytes(5000)];
    const screenBytes = randomBytes(6000);
    for (const [seq, bytes] of cameraBytes.entries()) expectOk(await sendChunk(s.session, attemptId, camera.id, seq, bytes));
    expectOk(await sendChunk(s.session, attemptId, screen.id, 0, screenBytes));
    const submissionId = await submit(s, attemptId);
    const writer = await makeKey(app, s.inst, { scopes: ['submissions:write'] });

    // Within the grace the job leaves them open: the last chunks may still be on their way.
    await app.scheduler.runNow('finish-recordings');
    expect(await recordingsOnSubmission(writer, submissionId)).toEqual([]);

    await app.ctx.db.models.Attempt.update({ submitted_at: new Date(Date.now() - RECORDING_GRACE_MS - 1000) }, { where: { id: attemptId } });
    await app.scheduler.runNow('finish-recordings');
    const links = (await recordingsOnSubmission(writer, submissionId))!;
    expect(links.map((link) => link.name).sort()).toEqual(['camera-1.webm', 'screen-1.webm']);
    const cameraLink = links.find((link) => link.name === 'camera-1.webm')!;
    expect(sha256((await download(cameraLink.url)).body)).toBe(sha256(Buffer.concat(cameraBytes)));
    expect(cameraLink.sha256).toBe(sha256(Buffer.concat(cameraBytes)));

    const items = (await appGet(s.session, `/attempts/${attemptId}/recordings`)).body.data.items as WireRecording[];
    expect(items.map((item) => [item.id, item.finished_at !== null])).toEqual([
      [camera.id, true],
      [screen.id, true],
      [empty.id, true],
    ]);
    // Nothing left for a second run.
    expect(await app.scheduler.runNow('finish-recordings')).toEqual({ finished: 0 });
  });

  it('an append cut off by a crash (bytes past the recorded end) is cut away by the next one', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    const rec = await startRecording(s, attemptId);
    const first = randomBytes(2000);
    const second = randomBytes(3000);
    expectOk(await sendChunk(s.session, attemptId, rec.id, 0, first));

    // What kill -9 in the middle of writing chunk 1 leaves: part of it on disk, no row for it.
    const row = await app.ctx.db.models.AttemptRecording.findByPk(rec.id);
    const onDisk = path.join(app.dataDir, row!.storage_path);
    fs.appendFileSync(onDisk, randomBytes(4321));
    expect(fs.statSync(onDisk).size).toBe(2000 + 4321);

    expect(expectOk(await sendChunk(s.session, attemptId, rec.id, 1, second))).toMatchObject({ chunks: 2, bytes: 5000 });
    expect(fs.statSync(onDisk).size).toBe(5000);
    // And garbage after the last chunk is cut away by the finish.
    fs.appendFileSync(onDisk, randomBytes(777));
    expectOk(await appPost(s.session, `/attempts/${attemptId}/recordings/${rec.id}/finish`));

    const submissionId = await submit(s, attemptId);
    const links = (await recordingsOnSubmission(s.key, submissionId))!;
    const whole = Buffer.concat([first, second]);
    expect(links[0]).toMatchObject({ size: 5000, sha256: sha256(whole) });
    expect(sha256((await download(links[0]!.url)).body)).toBe(sha256(whole));
  });

  it('at most 20 recordings per attempt: the next is 409 conflict', async () => {
    const s = await school();
    const attemptId = await startAttempt(s);
    for (let index = 0; index < 20; index += 1) await startRecording(s, attemptId, index % 2 ? 'screen' : 'camera');
    const refused = await appPost(s.session, `/attempts/${attemptId}/recordings`, { source: 'camera', mime_type: 'video/webm' });
    expectError(refused, 409, 'conflict');
    expect(refused.body.message).toContain('20 recordings');
  });
});
