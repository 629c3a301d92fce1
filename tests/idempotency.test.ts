// @tier integration
// @databases sqlite, postgres
// Idempotency-Key on the POSTs of /v1 (docs/api.md#idempotent-requests): the first answer is kept
// 24 hours per caller and key and replayed with Idempotent-Replayed: true; another request under
// the same key, or one still running, is 409 conflict; kept answers survive a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAllowance } from '../server/commands/wallet/merits.js';
import { INTERRUPTED_AFTER_MS } from '../server/http/idempotency.js';
import { examWithAiPolicy, startAttemptAs } from './helpers/ai-attempts.js';
import {
  learnerSession,
  makeDataDir,
  makeKey,
  makePerson,
  makeSchool,
  removeDataDir,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestSchool,
} from './helpers/appliance.js';

describe('Idempotency-Key', () => {
  let app: TestAppliance;
  let school: TestSchool;
  beforeAll(async () => {
    // Endpoints on 127.0.0.1 are allowed; nothing is sent to them here (no event is subscribed in time to matter).
    app = await startTestAppliance({
      config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [60], sweepSeconds: 60, timeoutMs: 1000 } },
    });
    school = await makeSchool(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (path: string, body: object | undefined, idempotencyKey?: string, key: TestKey = school.key, on = app) => {
    const request = on.http.post(`/v1${path}`).set('Authorization', key.auth);
    if (idempotencyKey !== undefined) request.set('Idempotency-Key', idempotencyKey);
    return body === undefined ? request : request.send(body);
  };

  /** Students of the school with this student_id (each test uses its own). */
  const studentsNumbered = async (studentId: string) => {
    const res = await app.http.get('/v1/students').query({ student_id: studentId, limit: 100 }).set('Authorization', school.key.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.items as Array<{ id: string }>;
  };

  const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

  it('replays the first answer for the same request, with Idempotent-Replayed, and runs it once', async () => {
    const number = unique('S');
    const first = await post('/students', { full_name: 'Ada Replay', student_id: number }, 'create-ada-1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // The same body with its keys in another order is the same request.
    const again = await app.http
      .post('/v1/students')
      .set('Authorization', school.key.auth)
      .set('Idempotency-Key', 'create-ada-1')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ student_id: number, full_name: 'Ada Replay' }, null, 2));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await studentsNumbered(number)).toHaveLength(1);
    const created = await app.ctx.db.models.Event.count({ where: { institution_id: school.inst.id, type: 'student.created' } });
    expect(created, 'student.created events: the replay emitted none').toBe(1);
  });

  it('refuses the same key with another body or another path with 409 conflict, changing nothing', async () => {
    const number = unique('S');
    expect((await post('/students', { full_name: 'Grace Conflict', student_id: number }, 'reused-key')).status).toBe(200);
    const otherBody = await post('/students', { full_name: 'Grace Conflict', student_id: `${number}-jr` }, 'reused-key');
    expect(otherBody.status, JSON.stringify(otherBody.body)).toBe(409);
    expect(otherBody.body).toMatchObject({ success: false, error: 'conflict' });
    expect(otherBody.body.message).toMatch(/another request/);
    expect(await studentsNumbered(`${number}-jr`)).toHaveLength(0);

    const otherPath = await post('/faculty', { full_name: 'Grace Conflict' }, 'reused-key');
    expect(otherPath.status, JSON.stringify(otherPath.body)).toBe(409);
    expect(otherPath.body.error).toBe('conflict');
  });

  it('keeps keys apart per API key: another key may use the same Idempotency-Key', async () => {
    const name = 'Alan Apart';
    const otherKey = await makeKey(app, school.inst, { scopes: ['all'] });
    const mine = await post('/students', { full_name: name }, 'shared-key-value');
    const theirs = await post('/students', { full_name: name }, 'shared-key-value', otherKey);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('runs concurrent requests with one key once: the others replay it or get 409 while it runs', async () => {
    const number = unique('S');
    const body = { full_name: 'Concurrent Carol', student_id: number };
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('/students', body, 'concurrent-key')));
    const ok = answers.filter((res) => res.status === 200);
    const conflicts = answers.filter((res) => res.status === 409);
    expect(ok.length + conflicts.length, answers.map((res) => `${res.status} ${JSON.stringify(res.body)}`).join('\n')).toBe(8);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((res) => res.body.data.id)).size).toBe(1);
    expect(ok.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const res of conflicts) expect(res.body.message).toMatch(/still running|being reused/);
    expect(await studentsNumbered(number)).toHaveLength(1);
    // Once it has finished, every retry is the replay.
    const later = await post('/students', body, 'concurrent-key');
    expect(later.status).toBe(200);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body.data.id).toBe(ok[0]!.body.data.id);
  });

  it('keeps client errors too (a 422 is replayed as it was), and takes only 1 to 255 printable ASCII characters', async () => {
    const bad = await post('/students', { full_name: '' }, 'bad-body-key');
    expect(bad.status).toBe(422);
    const replayed = await post('/students', { full_name: '' }, 'bad-body-key');
    expect(replayed.status).toBe(422);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(bad.body);

    for (const value of ['', 'x'.repeat(256), 'tab\there']) {
      const res = await post('/students', { full_name: unique('Never') }, value);
      expect(res.status, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body).toMatchObject({ error: 'validation_error', details: [{ path: 'Idempotency-Key' }] });
    }
    expect((await post('/students', { full_name: unique('Longest') }, 'k'.repeat(255))).status).toBe(200);
  });

  it('seals kept answers: a new endpoint’s secret is not readable in the database', async () => {
    const res = await post('/webhooks/endpoints', { url: 'https://127.0.0.1:9/campus', events: ['*'] }, 'endpoint-secret-key');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const secret = res.body.data.secret as string;
    const row = await app.ctx.db.models.IdempotencyKey.findOne({ where: { key: 'endpoint-secret-key' } });
    expect(row?.status).toBe('done');
    expect(row?.response_sealed).toBeTruthy();
    expect(row!.response_sealed).not.toContain(secret);
    expect(row!.response_sealed).not.toContain(secret.slice('whsec_'.length));
    const replayed = await post('/webhooks/endpoints', { url: 'https://127.0.0.1:9/campus', events: ['*'] }, 'endpoint-secret-key');
    expect(replayed.body.data.secret).toBe(secret);
    const endpoints = await app.http.get('/v1/webhooks/endpoints').set('Authorization', school.key.auth);
    expect((endpoints.body.data.items as Array<{ id: string }>).filter((item) => item.id === res.body.data.id)).toHaveLength(1);
  });

  it('runs again once the kept answer is past its 24 hours; a first request cut off is reported, not rerun', async () => {
    const name = unique('Expired Eve');
    const first = await post('/students', { full_name: name }, 'expiring-key');
    expect(first.status).toBe(200);
    await app.ctx.db.models.IdempotencyKey.update({ expires_at: new Date(Date.now() - 1000) }, { where: { key: 'expiring-key' } });
    const second = await post('/students', { full_name: name }, 'expiring-key');
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.data.id).not.toBe(first.body.data.id);

    // A row left running by a process that stopped mid-request: whether it took effect is unknown.
    const cutOff = unique('S');
    await post('/students', { full_name: 'Cut Off', student_id: cutOff }, 'cut-off-key');
    await app.ctx.db.models.IdempotencyKey.update(
      { status: 'in_progress', response_status: null, response_sealed: null, created_at: new Date(Date.now() - INTERRUPTED_AFTER_MS - 1000) },
      { where: { key: 'cut-off-key' } },
    );
    const retried = await post('/students', { full_name: 'Cut Off', student_id: cutOff }, 'cut-off-key');
    expect(retried.status).toBe(409);
    expect(retried.body.message).toMatch(/interrupted/);
    expect(await studentsNumbered(cutOff)).toHaveLength(1);
  });

  it('the pruning job removes answers past their 24 hours', async () => {
    await post('/students', { full_name: unique('Pruned Pat') }, 'pruned-key');
    await app.ctx.db.models.IdempotencyKey.update({ expires_at: new Date(Date.now() - 1000) }, { where: { key: 'pruned-key' } });
    const result = (await app.scheduler.runNow('prune-sessions')) as { idempotency_keys: number };
    expect(result.idempotency_keys).toBeGreaterThanOrEqual(1);
    expect(await app.ctx.db.models.IdempotencyKey.count({ where: { key: 'pruned-key' } })).toBe(0);
  });

  it('covers the learner’s AI usage: a retried report is spent once', async () => {
    const student = await makePerson(app, school.key, 'students', unique('Wallet Wanda'));
    await setAllowance(app.ctx.db, school.inst.id, 5000);
    const credit = await post('/merits/credits', { email: student.login_email, amount_cents: 500, reason: 'Prize', ref: unique('prize') });
    expect(credit.status, JSON.stringify(credit.body)).toBe(200);
    const { examId } = await examWithAiPolicy(app, school, [student], { allowed: true, max_interactions: 10 });
    const session = await learnerSession(app, school.key, student);
    const attemptId = await startAttemptAs(app, session, examId);
    const report = () =>
      app.http
        .post('/v1/app/ai/usage')
        .set('Authorization', `Bearer ${session}`)
        .set('Idempotency-Key', 'ai-usage-1')
        .send({ attempt_id: attemptId, interactions: 2, cost_cents: 30 });
    const first = await report();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ interactions_total: 2, cost_cents_total: 30, balance_cents: 470 });
    const retried = await report();
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body).toEqual(first.body);
    const attempt = await app.ctx.db.models.Attempt.findByPk(attemptId);
    expect(attempt?.ai_interactions).toBe(2);
    const wallet = await app.http.get(`/v1/merits/wallets/${student.id}`).set('Authorization', school.key.auth);
    expect(wallet.body.data.balance_cents).toBe(470);
  });

  it('an upload replays the stored file’s answer instead of storing it twice', async () => {
    const teacher = await makePerson(app, school.key, 'faculty', unique('Uploading Ursula'));
    const exam = await post('/exams', { faculty_id: teacher.id, title: 'Files', app: 'code', max_score: 10 });
    expect(exam.status, JSON.stringify(exam.body)).toBe(200);
    const upload = () =>
      app.http
        .post(`/v1/exams/${exam.body.data.id}/files`)
        .set('Authorization', school.key.auth)
        .set('Idempotency-Key', 'upload-1')
        .attach('file', Buffer.from('starter archive bytes'), 'starter.zip');
    const first = await upload();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const second = await upload();
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data.ref).toBe(first.body.data.ref);
    expect(await app.ctx.db.models.StoredFile.count({ where: { owner_id: exam.body.data.id } })).toBe(1);
  });

  it('is in the OpenAPI document: the request header on every POST, the replay header and 409', async () => {
    const doc = (await app.http.get('/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, { headers?: object }> }>>;
    };
    const posts = Object.entries(doc.paths).flatMap(([path, item]) => (item.post ? [[path, item.post] as const] : []));
    expect(posts.length).toBeGreaterThan(20);
    for (const [path, operation] of posts) {
      const keyed = operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
      // Operations without a caller (the learner's sign-in exchange) have no one to keep a key for.
      if (!keyed) continue;
      expect(Object.keys(operation.responses), path).toContain('409');
      expect(Object.keys(operation.responses['200']?.headers ?? {}), path).toContain('Idempotent-Replayed');
    }
    const keyedPaths = posts.filter(([, operation]) => operation.parameters?.some((parameter) => parameter.name === 'Idempotency-Key')).map(([path]) => path);
    expect(keyedPaths).toEqual(expect.arrayContaining(['/students', '/students/bulk', '/webhooks/endpoints', '/app/ai/usage', '/exams/{id}/files']));
  });
});

describe('Idempotency-Key across a restart', () => {
  it('replays an answer kept before the appliance stopped', async () => {
    const dataDir = makeDataDir();
    try {
      const first = await startTestAppliance({ dataDir });
      const school = await makeSchool(first);
      const send = (on: TestAppliance) =>
        on.http
          .post('/v1/students')
          .set('Authorization', school.key.auth)
          .set('Idempotency-Key', 'before-restart')
          .send({ full_name: 'Restart Rita', student_id: 'R-1' });
      const original = await send(first);
      expect(original.status, JSON.stringify(original.body)).toBe(200);
      await first.stop();

      const second = await startTestAppliance({ dataDir });
      try {
        const replayed = await send(second);
        expect(replayed.status).toBe(200);
        expect(replayed.headers['idempotent-replayed']).toBe('true');
        expect(replayed.body).toEqual(original.body);
        const list = await second.http.get('/v1/students').query({ student_id: 'R-1' }).set('Authorization', school.key.auth);
        expect(list.body.data.items).toHaveLength(1);
      } finally {
        await second.stop();
      }
    } finally {
      await removeDataDir(dataDir);
    }
  });
});
