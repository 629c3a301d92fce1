// @tier integration
// @databases sqlite, postgres
/**
 * The exam a student takes (instructions, code_spec without the hidden tests' IV, the
 * open attempt's clock, the submit's grace minute) and the student's own device seats.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const IV_B64 = 'q83vEjRWeJASNFZ4';
const HIDDEN_SHA = 'ab'.repeat(32);

describe('Learner side: the exam a student takes, and their devices', () => {
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
    return { inst, key, teacher, student, other, groupId: group.body.data.id };
  }

  /** A published exam assigned to the school's group, written directly (exam creation is another area). */
  async function insertExam(s: School, fields: { description?: string; code_spec?: Record<string, unknown> | null; time_limit_minutes?: number | null } = {}) {
    const id = newId('exm');
    await s.inst.tenant.inTransaction(async (tx) => {
      await tx.exams.create({
        id,
        faculty_id: s.teacher.id,
        title: 'Recursion',
        description: fields.description ?? '',
        exam_type: 'exam',
        app: fields.code_spec ? 'code' : 'learning',
        status: 'published',
        max_score: 10,
        due_date: null,
        time_limit_minutes: fields.time_limit_minutes === undefined ? 30 : fields.time_limit_minutes,
        proctoring: {},
        ai_policy: { allowed: false },
        code_spec: fields.code_spec ?? null,
        published_at: new Date(),
        closed_at: null,
      });
      await tx.examAssignments.create({ exam_id: id, group_id: s.groupId, assigned_at: new Date() });
    });
    return id;
  }

  const sessionOn = (key: TestKey, who: TestPerson, deviceId: string | null) =>
    learnerSession(app, key, who, { exchange: deviceId ? { device: { id: deviceId, name: `Laptop ${deviceId}` } } : {} });
  const appGet = (session: string, path: string) => app.http.get(`/v1/app${path}`).set('Authorization', `Bearer ${session}`);
  const appPost = (session: string, path: string, body: object = {}) => app.http.post(`/v1/app${path}`).set('Authorization', `Bearer ${session}`).send(body);
  const seatsOf = (deviceId: string) => app.ctx.db.models.DeviceSeat.findAll({ where: { device_id: deviceId } });

  it('lists the instructions and a coding exam’s code_spec, without the hidden tests’ IV or any key', async () => {
    const s = await school();
    const description = '# Recursion\n\nWrite `fact(n)`.\n\n<script>alert(1)</script>';
    const examId = await insertExam(s, {
      description,
      code_spec: {
        toolchain: 'python-3.12',
        starter: 'file_starter',
        sample_tests: { ref: 'file_samples' },
        hidden_tests: { file: 'file_hidden', iv_b64: IV_B64, sha256: HIDDEN_SHA },
        commands: { test: ['pytest -q'], build: 'pip install -r requirements.txt' },
        // What an older row might hold: never shown.
        hidden_key_b64: 'c2VjcmV0LWtleQ==',
      },
    });
    const session = await sessionOn(s.key, s.student, 'dev-a');
    const res = await appGet(session, '/exams');
    expect(res.status).toBe(200);
    const item = res.body.data.items.find((exam: { id: string }) => exam.id === examId);
    expect(item.description).toBe(description);
    expect(item.code_spec).toEqual({
      toolchain: 'python-3.12',
      starter: 'file_starter',
      sample_tests: { ref: 'file_samples' },
      hidden_tests: { file: 'file_hidden', sha256: HIDDEN_SHA },
      commands: { test: ['pytest -q'], build: 'pip install -r requirements.txt' },
    });
    expect(res.text).not.toContain(IV_B64);
    expect(res.text).not.toContain('iv_b64');
    expect(res.text).not.toContain('c2VjcmV0LWtleQ');
    expect(res.text).not.toMatch(/_key/);
  });

  interface Archive {
    ref: string;
    kind: string;
    name: string;
    size: number;
    sha256: string;
    url: string;
    expires_at: string;
  }

  /** A coding exam whose code_spec names three uploaded archives, as an integrator sets one up. */
  async function codingExamWithArchives(s: School) {
    const examId = await insertExam(s, { code_spec: null });
    const contents = { 'starter.zip': 'starter bytes', 'sample-tests.zip': 'sample tests', 'hidden-tests.zip.enc': 'sealed hidden tests' };
    const refs: Record<string, string> = {};
    for (const [name, text] of Object.entries(contents)) {
      const res = await app.http.post(`/v1/exams/${examId}/files`).set('Authorization', s.key.auth).attach('file', Buffer.from(text), name);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      refs[name] = res.body.data.ref;
    }
    // An upload the spec does not name is not an archive of the exam.
    await app.http.post(`/v1/exams/${examId}/files`).set('Authorization', s.key.auth).attach('file', Buffer.from('old starter'), 'starter.zip');
    const hiddenSha = createHash('sha256').update(contents['hidden-tests.zip.enc']).digest('hex');
    const patched = await app.http
      .patch(`/v1/exams/${examId}`)
      .set('Authorization', s.key.auth)
      .send({
        code_spec: {
          toolchain: 'python-3.12',
          starter: refs['starter.zip'],
          sample_tests: { ref: refs['sample-tests.zip'] },
          hidden_tests: { file: refs['hidden-tests.zip.enc'], iv_b64: IV_B64, sha256: hiddenSha },
        },
      });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    return { examId, contents, refs };
  }

  const download = async (url: string) => {
    expect(url.startsWith(`${app.origin}/v1/files/`)).toBe(true);
    const res = await fetch(url);
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const archivesOf = async (session: string, examId: string): Promise<Archive[]> => {
    const res = await appGet(session, `/exams/${examId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.files;
  };

  it('gives a student signed archive links that open only during their own open attempt', async () => {
    const s = await school();
    const { examId, contents, refs } = await codingExamWithArchives(s);
    const ada = await sessionOn(s.key, s.student, 'dev-arch-a');
    const alan = await sessionOn(s.key, s.other, 'dev-arch-b');

    const listed = (await appGet(ada, '/exams')).body.data.items.find((exam: { id: string }) => exam.id === examId);
    expect(listed.files.map((file: Archive) => [file.kind, file.name, file.ref])).toEqual([
      ['starter', 'starter.zip', refs['starter.zip']],
      ['sample_tests', 'sample-tests.zip', refs['sample-tests.zip']],
      ['hidden_tests', 'hidden-tests.zip.enc', refs['hidden-tests.zip.enc']],
    ]);
    const files = await archivesOf(ada, examId);
    for (const file of files) {
      expect(Date.parse(file.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
      expect(new URL(file.url).searchParams.get('student')).toBe(s.student.id);
    }

    // Before the attempt starts, the links open nothing.
    expect((await download(files[0]!.url)).status).toBe(404);

    const attemptId = (await appPost(ada, `/exams/${examId}/attempts`)).body.data.id as string;
    for (const file of files) {
      const got = await download(file.url);
      expect(got.status).toBe(200);
      expect(got.bytes.toString()).toBe(contents[file.name as keyof typeof contents]);
      expect(sha256(got.bytes)).toBe(file.sha256);
      expect(got.bytes.length).toBe(file.size);
    }

    // Another student's link: Alan is assigned but has no open attempt; Ada's link rewritten for Alan fails its signature.
    const alansLink = (await archivesOf(alan, examId))[0]!;
    expect((await download(alansLink.url)).status).toBe(404);
    const forged = new URL(files[0]!.url);
    forged.searchParams.set('student', s.other.id);
    expect((await download(forged.toString())).status).toBe(404);
    const unbound = new URL(files[0]!.url);
    unbound.searchParams.delete('student');
    expect((await download(unbound.toString())).status).toBe(404);

    // Once Ada has submitted, her links stop working.
    expect((await appPost(ada, `/attempts/${attemptId}/submit`, { answers: 'done' })).status).toBe(200);
    const closed = await download(files[1]!.url);
    expect(closed.status).toBe(404);
  });

  it('closes archive links when the attempt’s time runs out, and hides exams not assigned', async () => {
    const s = await school();
    const { examId } = await codingExamWithArchives(s);
    const ada = await sessionOn(s.key, s.student, 'dev-arch-c');
    const attemptId = (await appPost(ada, `/exams/${examId}/attempts`)).body.data.id as string;
    const [starter] = await archivesOf(ada, examId);
    expect((await download(starter!.url)).status).toBe(200);
    await app.ctx.db.models.Attempt.update({ expires_at: new Date(Date.now() - 61_000) }, { where: { id: attemptId } });
    expect((await download(starter!.url)).status).toBe(404);

    const elsewhere = await school();
    const foreign = await insertExam(elsewhere);
    const res = await appGet(ada, `/exams/${foreign}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    const faculty = await sessionOn(s.key, s.teacher, 'dev-arch-t');
    expect((await appGet(faculty, `/exams/${examId}`)).status).toBe(403);
  });

  it('gives the integration the same archives with exams:read, openable without an attempt', async () => {
    const s = await school();
    const { examId, contents } = await codingExamWithArchives(s);
    const reader = await makeKey(app, s.inst, { scopes: ['exams:read'] });
    const res = await app.http.get(`/v1/exams/${examId}`).set('Authorization', reader.auth);
    expect(res.status).toBe(200);
    const files = res.body.data.files as Archive[];
    expect(files.map((file) => file.kind)).toEqual(['starter', 'sample_tests', 'hidden_tests']);
    expect(new URL(files[2]!.url).searchParams.has('student')).toBe(false);
    const got = await download(files[2]!.url);
    expect(got.status).toBe(200);
    expect(got.bytes.toString()).toBe(contents['hidden-tests.zip.enc']);
    expect(sha256(got.bytes)).toBe(files[2]!.sha256);

    const plain = await insertExam(s);
    expect((await app.http.get(`/v1/exams/${plain}`).set('Authorization', reader.auth)).body.data.files).toEqual([]);
  });

  it('gives back the open attempt, so a reload finds its clock', async () => {
    const s = await school();
    const examId = await insertExam(s, { time_limit_minutes: 20 });
    const session = await sessionOn(s.key, s.student, 'dev-b');
    const before = await appGet(session, '/exams');
    expect(before.body.data.items[0].attempt).toBeNull();
    const started = await appPost(session, `/exams/${examId}/attempts`);
    expect(started.status).toBe(200);
    const after = await appGet(session, '/exams');
    expect(after.body.data.items[0].attempt).toEqual({
      id: started.body.data.id,
      started_at: started.body.data.started_at,
      expires_at: started.body.data.expires_at,
    });
    expect(await appPost(session, `/attempts/${started.body.data.id}/submit`, { answers: 'done' }).then((r) => r.status)).toBe(200);
    expect((await appGet(session, '/exams')).body.data.items[0].attempt).toBeNull();
  });

  it('takes a submit up to 60 seconds after expires_at, and refuses a later one with 409 conflict', async () => {
    const s = await school();
    const examId = await insertExam(s);
    const inGrace = await sessionOn(s.key, s.student, 'dev-c');
    const late = await sessionOn(s.key, s.other, 'dev-d');
    const graceAttempt = (await appPost(inGrace, `/exams/${examId}/attempts`)).body.data.id as string;
    const lateAttempt = (await appPost(late, `/exams/${examId}/attempts`)).body.data.id as string;
    const Attempt = app.ctx.db.models.Attempt;
    await Attempt.update({ expires_at: new Date(Date.now() - 30_000) }, { where: { id: graceAttempt } });
    await Attempt.update({ expires_at: new Date(Date.now() - 61_000) }, { where: { id: lateAttempt } });

    const accepted = await appPost(inGrace, `/attempts/${graceAttempt}/submit`, { answers: 'just in time' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const refused = await appPost(late, `/attempts/${lateAttempt}/submit`, { answers: 'too late' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conflict');
    expect(refused.body.message).toMatch(/run out.*60 seconds/);
    expect(await app.ctx.db.models.Submission.count({ where: { attempt_id: lateAttempt } })).toBe(0);
  });

  it('moves the seat’s last_seen_at on activity, at most once a minute', async () => {
    const s = await school();
    const session = await sessionOn(s.key, s.student, 'dev-e');
    const [seat] = await seatsOf('dev-e');
    const Seat = app.ctx.db.models.DeviceSeat;

    const recent = new Date(Date.now() - 30_000);
    await Seat.update({ last_seen_at: recent }, { where: { id: seat!.id } });
    expect((await appGet(session, '/me')).status).toBe(200);
    expect((await Seat.findByPk(seat!.id))!.last_seen_at.getTime()).toBe(recent.getTime());

    const old = new Date(Date.now() - 61_000);
    await Seat.update({ last_seen_at: old }, { where: { id: seat!.id } });
    const before = Date.now();
    expect((await appGet(session, '/me')).status).toBe(200);
    const seen = (await Seat.findByPk(seat!.id))!.last_seen_at.getTime();
    expect(seen).toBeGreaterThanOrEqual(before - 1000);
    expect(seen).toBeLessThanOrEqual(Date.now());
  });

  it('lists the student’s own devices, releases one, and refuses another student’s seat', async () => {
    const s = await school();
    const laptop = await sessionOn(s.key, s.student, 'dev-f1');
    const tablet = await sessionOn(s.key, s.student, 'dev-f2');
    const others = await sessionOn(s.key, s.other, 'dev-f3');

    const list = await appGet(laptop, '/devices');
    expect(list.status).toBe(200);
    const items = list.body.data.items as Array<Record<string, unknown>>;
    expect(items.map((item) => item.device_name).sort()).toEqual(['Laptop dev-f1', 'Laptop dev-f2']);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['activated_at', 'app', 'current', 'device_name', 'last_seen_at', 'seat_id', 'status']);
    }
    const current = items.find((item) => item.current)!;
    expect(current.device_name).toBe('Laptop dev-f1');
    const tabletSeat = items.find((item) => !item.current)!.seat_id as string;

    const othersSeat = (await appGet(others, '/devices')).body.data.items[0].seat_id as string;
    const refused = await appPost(laptop, `/devices/${othersSeat}/release`);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toBe('not_found');
    expect((await appGet(others, '/me')).status).toBe(200);

    const released = await appPost(laptop, `/devices/${tabletSeat}/release`);
    expect(released.status).toBe(200);
    expect(released.body.data).toMatchObject({ seat_id: tabletSeat, status: 'revoked', current: false });
    expect((await appGet(tablet, '/me')).status).toBe(401);
    expect((await appGet(laptop, '/devices')).body.data.items.map((item: { seat_id: string }) => item.seat_id)).toEqual([current.seat_id]);
    expect((await appPost(laptop, `/devices/${tabletSeat}/release`)).status).toBe(200);

    // Releasing this very device signs it out.
    expect((await appPost(laptop, `/devices/${current.seat_id as string}/release`)).status).toBe(200);
    expect((await appGet(laptop, '/me')).status).toBe(401);
  });

  it('a session exchanged without a device id takes no seat', async () => {
    const s = await school();
    await sessionOn(s.key, s.student, 'dev-g');
    const seatsBefore = await app.ctx.db.models.DeviceSeat.count({ where: { institution_id: s.inst.id } });
    const seatless = await sessionOn(s.key, s.student, null);
    expect(await app.ctx.db.models.DeviceSeat.count({ where: { institution_id: s.inst.id } })).toBe(seatsBefore);
    const list = await appGet(seatless, '/devices');
    expect(list.status).toBe(200);
    expect(list.body.data.items).toHaveLength(1);
    expect(list.body.data.items[0]).toMatchObject({ device_name: 'Laptop dev-g', current: false });
  });
});
