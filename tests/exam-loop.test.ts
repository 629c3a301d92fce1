// @tier integration
// @databases sqlite, postgres
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAllowance } from '../server/commands/wallet/merits.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from './helpers/appliance.js';

/**
 * The whole loop of a proctored coding exam, over HTTP only, as an LMS and a student's app would
 * drive it: provision → coding exam with files and key → launch → attempt with proctoring →
 * hidden key → AI usage → submit → grade → event → analytics, scores and CSV.
 */
describe('a coding exam from provisioning to grades', () => {
  let app: TestAppliance;
  let lms: string;
  let institutionId: string;

  beforeAll(async () => {
    app = await startTestAppliance();
    const institution = await makeInstitution(app, { name: 'Loop High' });
    institutionId = institution.id;
    lms = (await makeKey(app, institution)).auth;
  });
  afterAll(() => app.close());

  const api = {
    get: (path: string, auth = lms) => app.http.get(`/v1${path}`).set('Authorization', auth),
    post: (path: string, body: object = {}, auth = lms) => app.http.post(`/v1${path}`).set('Authorization', auth).send(body),
    put: (path: string, body: object) => app.http.put(`/v1${path}`).set('Authorization', lms).send(body),
    patch: (path: string, body: object) => app.http.patch(`/v1${path}`).set('Authorization', lms).send(body),
  };
  const ok = <T = Record<string, unknown>>(res: { status: number; body: { data: T; error?: string; message?: string } }, what: string): T => {
    expect(res.status, `${what}: ${res.body.error ?? ''} ${res.body.message ?? ''}`).toBe(200);
    return res.body.data;
  };

  it('walks the loop', async () => {
    // The institution allows one toolchain.
    const config = ok(await api.get('/institution/config'), 'read config');
    ok(await api.put('/institution/config', { ...config, allowed_toolchains: ['python-3.12'] }), 'allow toolchain');

    // People and a class.
    const teacher = ok<{ id: string; login_email: string }>(await api.post('/faculty', { full_name: 'Barbara Liskov' }), 'faculty');
    const students = [];
    for (const name of ['Ada Lovelace', 'Alan Turing', 'Edsger Dijkstra']) {
      students.push(ok<{ id: string; login_email: string }>(await api.post('/students', { full_name: name }), name));
    }
    const group = ok<{ id: string }>(
      await api.post('/groups', { name: 'CS 101', faculty_id: teacher.login_email, student_ids: students.map((s) => s.id) }),
      'group',
    );

    // A coding exam with its three files, a code_spec that points at them, and the hidden-tests key.
    const exam = ok<{ id: string; status: string }>(
      await api.post('/exams', {
        faculty_id: teacher.id,
        title: 'Recursion lab',
        app: 'code',
        max_score: 100,
        time_limit_minutes: 60,
        ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 5 },
      }),
      'exam',
    );
    expect(exam.status).toBe('draft');
    const upload = async (name: string, bytes: Buffer) =>
      ok<{ ref: string; sha256: string; size: number }>(
        await app.http.post(`/v1/exams/${exam.id}/files`).set('Authorization', lms).attach('file', bytes, name),
        `upload ${name}`,
      );
    const starter = await upload('starter.zip', randomBytes(2048));
    const samples = await upload('sample-tests.zip', randomBytes(1024));
    const hiddenBytes = randomBytes(4096);
    const hidden = await upload('hidden-tests.zip.enc', hiddenBytes);
    expect(hidden.sha256).toBe(createHash('sha256').update(hiddenBytes).digest('hex'));
    ok(
      await api.patch(`/exams/${exam.id}`, {
        code_spec: {
          toolchain: 'python-3.12',
          starter: starter.ref,
          sample_tests: samples.ref,
          hidden_tests: { file: hidden.ref, iv_b64: randomBytes(12).toString('base64'), sha256: hidden.sha256 },
          commands: { test: 'pytest -q' },
        },
      }),
      'code_spec',
    );
    const hiddenKey = randomBytes(32).toString('base64');
    ok(await api.put(`/exams/${exam.id}/code-secret`, { hidden_key_b64: hiddenKey }), 'store key');
    expect(ok<{ stored: boolean }>(await api.get(`/exams/${exam.id}/code-secret/status`), 'key status').stored).toBe(true);

    // Publish and assign: students with the exam can now start it.
    expect(ok<{ status: string }>(await api.post(`/exams/${exam.id}/publish`), 'publish').status).toBe('published');
    ok(await api.post(`/exams/${exam.id}/assignments`, { group_ids: [group.id] }), 'assign');

    // The LMS mints a launch token; the student's app exchanges it for a session.
    const ada = students[0]!;
    const minted = ok<{ launch_url: string }>(
      await api.post('/sso/tokens', { email: ada.login_email, app: 'code', redirect: `exam:${exam.id}`, ttl_seconds: 120 }),
      'mint',
    );
    const token = new URL(minted.launch_url).searchParams.get('token');
    const exchanged = ok<{ session_token: string; redirect: string; user: { id: string } }>(
      await app.http.post('/v1/sso/exchange').send({ token, device: { id: 'ada-laptop', name: "Ada's laptop" } }),
      'exchange',
    );
    expect(exchanged.user.id).toBe(ada.id);
    expect(exchanged.redirect).toBe(`exam:${exam.id}`);
    const session = `Bearer ${exchanged.session_token}`;
    expect((await app.http.post('/v1/sso/exchange').send({ token })).body.error).toBe('LAUNCH_TOKEN_INVALID');

    const mine = ok<{ items: Array<{ id: string }> }>(await api.get('/app/exams', session), 'app exams');
    expect(mine.items.map((e) => e.id)).toEqual([exam.id]);

    // The attempt, with proctoring events and the hidden key released into it.
    const attempt = ok<{ id: string; started_at: string; expires_at: string }>(await api.post(`/app/exams/${exam.id}/attempts`, {}, session), 'attempt');
    expect(Date.parse(attempt.expires_at) - Date.parse(attempt.started_at)).toBe(60 * 60 * 1000);
    const at = new Date().toISOString();
    ok(
      await api.post(
        `/app/attempts/${attempt.id}/events`,
        {
          events: [
            { type: 'focus_lost', at },
            { type: 'focus_lost', at },
            { type: 'recorder_error', at, detail: { code: 'camera_busy' } },
          ],
        },
        session,
      ),
      'proctoring events',
    );
    expect(ok<{ hidden_key_b64: string }>(await api.post(`/app/attempts/${attempt.id}/hidden-key`, {}, session), 'hidden key').hidden_key_b64).toBe(hiddenKey);

    // Submit with a file and AI usage.
    const solution = Buffer.from('def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n');
    const file = ok<{ ref: string }>(
      await app.http.post(`/v1/app/attempts/${attempt.id}/files`).set('Authorization', session).attach('file', solution, 'solution.py'),
      'attempt file',
    );
    // AI help during the attempt, paid from merits the school credited: recorded by the appliance.
    await setAllowance(app.ctx.db, institutionId, 1_000);
    ok(await api.post('/merits/credits', { email: ada.login_email, amount_cents: 100, reason: 'Lab credit', ref: 'loop-1' }), 'credit');
    const usage = ok<{ interactions_total: number; cost_cents_total: number; balance_cents: number }>(
      await api.post('/app/ai/usage', { attempt_id: attempt.id, interactions: 3, cost_cents: 12 }, session),
      'ai usage',
    );
    expect(usage).toEqual({ interactions_total: 3, cost_cents_total: 12, balance_cents: 88 });

    // What the app claims at submit is ignored: the recorded usage is what the school sees.
    const submitted = ok<{ id: string; status: string }>(
      await api.post(
        `/app/attempts/${attempt.id}/submit`,
        { answers: { notes: 'done' }, files: [file.ref], ai_usage: { interactions: 0, cost_cents: 0 } },
        session,
      ),
      'submit',
    );
    expect(submitted.status).toBe('submitted');

    // The LMS sees the submission with its attachment, AI usage and proctoring.
    const listed = ok<{ items: Array<{ id: string; status: string }> }>(await api.get(`/submissions?exam_id=${exam.id}`), 'list submissions');
    expect(listed.items.map((s) => [s.id, s.status])).toEqual([[submitted.id, 'submitted']]);
    const detail = ok<{ attachments: Array<{ url: string; name: string }>; ai_usage: unknown; proctoring: { counts: Record<string, number> } }>(
      await api.get(`/submissions/${submitted.id}`),
      'submission',
    );
    expect(detail.ai_usage).toEqual({ interactions: 3, cost_cents: 12 });
    expect(detail.proctoring.counts.focus_lost).toBe(2);
    expect(detail.attachments.map((a) => a.name)).toEqual(['solution.py']);
    const link = new URL(detail.attachments[0]!.url);
    const download = await app.http
      .get(`${link.pathname}${link.search}`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(download.status).toBe(200);
    expect(Buffer.compare(download.body as Buffer, solution)).toBe(0);
    const feed = ok<{ attempt: { hidden_released_at: string | null }; counts: Record<string, number> }>(
      await api.get(`/submissions/${submitted.id}/events`),
      'proctoring feed',
    );
    expect(feed.counts).toMatchObject({ focus_lost: 2, recorder_error: 1 });
    expect(feed.attempt.hidden_released_at).not.toBeNull();
    expect(ok<{ released_count: number }>(await api.get(`/exams/${exam.id}/code-secret/status`), 'key status').released_count).toBe(1);

    // Grading pushes exam.graded with the outcome.
    const since = new Date(Date.now() - 60_000).toISOString();
    const graded = ok<{ status: string; score: number }>(
      await api.post(`/submissions/${submitted.id}/grade`, { score: 87, feedback: 'Clean recursion.', graded_by: teacher.login_email }),
      'grade',
    );
    expect(graded).toMatchObject({ status: 'graded', score: 87 });
    const events = ok<{ items: Array<{ type: string; data: Record<string, unknown> }> }>(await api.get(`/events?since=${since}&type=exam.graded`), 'events');
    expect(events.items).toHaveLength(1);
    expect(events.items[0]!.data).toMatchObject({ submission_id: submitted.id, exam_id: exam.id, student_id: ada.id, score: 87 });
    const created = ok<{ items: Array<{ data: Record<string, unknown> }> }>(await api.get(`/events?since=${since}&type=submission.created`), 'created events');
    expect(created.items.map((e) => e.data.submission_id)).toContain(submitted.id);

    // Analytics, scores and the CSV reflect the grade.
    const analytics = ok<{ count: number; mean: number; min: number; max: number }>(await api.get(`/exams/${exam.id}/analytics`), 'analytics');
    expect(analytics).toMatchObject({ count: 1, mean: 87, min: 87, max: 87 });
    const scores = ok<{ items: Array<{ student_id: string; score: number | null; status: string | null }> }>(
      await api.get(`/exams/${exam.id}/scores`),
      'scores',
    );
    expect(scores.items).toHaveLength(3);
    expect(scores.items.find((row) => row.student_id === ada.id)).toMatchObject({ score: 87, status: 'graded' });
    expect(scores.items.filter((row) => row.score === null)).toHaveLength(2);
    const csv = await api.get(`/exams/${exam.id}/export.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('student_id,login_email,full_name,submission_id,status,score,max_score,submitted_at,graded_at');
    const adaRow = lines.find((line) => line.startsWith(ada.id));
    expect(adaRow).toContain(`,${submitted.id},graded,87,100,`);

    const stats = ok<{ stats: Record<string, number> }>(await api.get(`/exams/${exam.id}`), 'exam detail').stats;
    expect(stats).toEqual({ assigned_students: 3, attempts: 1, submissions: 1, graded: 1 });
  });
});
