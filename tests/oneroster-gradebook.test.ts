// @tier integration
// @databases sqlite, postgres
// OneRoster 1.2 Gradebook write-back end to end: a SIS written from the 1EdTech Gradebook REST
// binding (tests/helpers/oneroster-provider.ts) on 127.0.0.1, a roster synced from it, an exam
// assigned to the synced class, and grades recorded through /v1 going out as line items and results
// through the durable queue the AGS scores use (claimed, retried, replayed), read back through the
// portal's posts list and grade-standing route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsvConnection, saveConnection } from '../server/commands/oneroster/connections.js';
import { sendDueGradebookPosts } from '../server/commands/oneroster/gradebook-send.js';
import { onerosterGradebookJob } from '../server/jobs/oneroster-gradebook.js';
import { ltiScoresJob } from '../server/jobs/lti-scores.js';
import { jobs } from '../server/jobs/registry.js';
import { writeApplianceSetting } from '../server/settings/appliance-settings.js';
import { learnerSession, makeSchool, requestsAs, startTestAppliance, type TestAppliance, type TestSchool } from './helpers/appliance.js';
import { GRADEBOOK_BASE, GRADEBOOK_SCOPE, OneRosterProvider, seedSchool } from './helpers/oneroster-provider.js';
import { expectError, institutionApi, ok, portalRequests, signedInMember, type SignedIn } from './helpers/portal.js';

const RETRY_SECONDS = [1, 1, 1];

let app: TestAppliance;
const api = requestsAs(() => app);
const providers: OneRosterProvider[] = [];

beforeAll(async () => {
  // Jobs run when the tests say (the job's own run), so each step's state can be read before the next.
  app = await startTestAppliance({
    config: { jobsOnSchedule: false, outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: RETRY_SECONDS, sweepSeconds: 30, timeoutMs: 3000 } },
  });
  await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
});
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  await app?.close();
});

async function startProvider(options: ConstructorParameters<typeof OneRosterProvider>[0] = {}) {
  const provider = await new OneRosterProvider(options).start();
  providers.push(provider);
  return provider;
}

/** A run of the `oneroster-gradebook` job `secondsLater` from now (a retry's time come). */
const runJob = (secondsLater = 0) =>
  secondsLater === 0
    ? (onerosterGradebookJob.run(app.ctx) as Promise<{ sent: number; failed: number }>)
    : sendDueGradebookPosts(app.ctx.db, app.ctx.config, RETRY_SECONDS, new Date(Date.now() + secondsLater * 1000));

interface Standing {
  submission_id: string;
  score: number | null;
  destinations: Array<{ destination: string; name: string; target: string; sent_score: number | null; latest_score: number | null; state: string }>;
  summary: string;
}

interface GradebookPost {
  id: string;
  submission_id: string;
  result_sourced_id: string;
  status: string;
  attempt_count: number;
  payload: Record<string, unknown>;
  attempts: Array<{ step: string; response_status: number | null; error: string | null }>;
}

describe('OneRoster 1.2 gradebook write-back', () => {
  let school: TestSchool;
  let provider: OneRosterProvider;
  let admin: SignedIn;
  let portal: ReturnType<typeof portalRequests>;
  let examId: string;
  /** Submission id per SIS student sourcedId. */
  const submissions = new Map<string, string>();

  const gradebookRequests = () => provider.requests.filter((request) => request.path.startsWith(GRADEBOOK_BASE));
  const grade = async (student: string, score: number, feedback?: string) => {
    const res = await api.post(school.key, `/submissions/${submissions.get(student)}/grade`, { score, ...(feedback ? { feedback } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { graded_at: string };
  };
  const standing = async (student: string) => {
    const body = ok<Standing>(await portal.get(`/grade-standing/submissions/${submissions.get(student)}`));
    expect(body.submission_id).toBe(submissions.get(student));
    return body;
  };
  const posts = async () => ok<{ items: GradebookPost[] }>(await portal.get('/oneroster/gradebook/posts')).items;
  const connectionBody = (extra: Record<string, unknown> = {}) => ({ url: provider.url, token_url: provider.tokenUrl, client_id: provider.clientId, ...extra });

  beforeAll(async () => {
    school = await makeSchool(app);
    provider = await startProvider();
    seedSchool(provider, { students: 3, teachers: 1, classes: 1 });
    admin = await signedInMember(app, school.inst.id, 'admin');
    portal = portalRequests(
      () => admin,
      () => institutionApi(school.inst.id),
    );
    const connected = ok<{ gradebook_writeback: boolean }>(await portal.put('/oneroster', connectionBody({ client_secret: provider.clientSecret })));
    expect(connected.gradebook_writeback).toBe(false);
    expect(ok<{ outcome: string }>(await portal.post('/oneroster/sync', {})).outcome).toBe('applied');

    const teacher = (await api.get(school.key, '/faculty')).body.data.items[0] as { id: string };
    const group = (await api.get(school.key, '/groups')).body.data.items[0] as { id: string; name: string };
    expect(group.name).toBe('Class 0');
    const exam = await api.post(school.key, '/exams', { faculty_id: teacher.id, title: 'Fractions quiz', app: 'learning', max_score: 10 });
    expect(exam.status, JSON.stringify(exam.body)).toBe(200);
    examId = exam.body.data.id as string;
    expect((await api.post(school.key, `/exams/${examId}/publish`)).status).toBe(200);
    expect((await api.post(school.key, `/exams/${examId}/assignments`, { group_ids: [group.id] })).status).toBe(200);

    // Each synced student sits the exam from the learner page.
    for (const sourcedId of ['s-0', 's-1', 's-2']) {
      const identifier = provider.users.find((user) => user.sourcedId === sourcedId)!.identifier;
      const student = (await api.get(school.key, '/students', { student_id: identifier })).body.data.items[0] as { login_email: string };
      const session = await learnerSession(app, school.key, student);
      const attempt = await app.http.post(`/v1/app/exams/${examId}/attempts`).set('Authorization', `Bearer ${session}`).send({});
      expect(attempt.status, JSON.stringify(attempt.body)).toBe(200);
      const submitted = await app.http
        .post(`/v1/app/attempts/${attempt.body.data.id}/submit`)
        .set('Authorization', `Bearer ${session}`)
        .send({ answers: { q1: sourcedId } });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      submissions.set(sourcedId, submitted.body.data.id as string);
    }
  }, 60_000);

  it('the job runs on the AGS scores schedule', () => {
    expect(jobs).toContain(onerosterGradebookJob);
    expect(onerosterGradebookJob.schedule(app.ctx)).toBe(ltiScoresJob.schedule(app.ctx));
  });

  it('off by default: a grade queues nothing and the SIS gets no gradebook request', async () => {
    await grade('s-0', 6);
    expect(await runJob()).toEqual({ sent: 0, failed: 0 });
    expect(gradebookRequests()).toHaveLength(0);
    expect(await posts()).toEqual([]);
    const before = await standing('s-0');
    expect(before).toMatchObject({ score: 6, destinations: [], summary: 'Not sent to an LMS or a SIS; here 6.' });
  });

  it('a CSV connection, and a OneRoster 1.1 one, refuse the opt-in with 422 naming gradebook_writeback', async () => {
    const csvSchool = await makeSchool(app);
    await csvSchool.inst.tenant.inTransaction((tx) => createCsvConnection(tx, '1.2'));
    const csvAdmin = await signedInMember(app, csvSchool.inst.id, 'admin');
    const csvPortal = portalRequests(
      () => csvAdmin,
      () => institutionApi(csvSchool.inst.id),
    );
    const refused = await csvPortal.put('/oneroster/gradebook', { gradebook_writeback: true });
    expectError(refused, 422, 'validation_error');
    expect(refused.body.details[0]).toMatchObject({ path: 'gradebook_writeback', message: expect.stringContaining('CSV imports') });
    expect((await csvSchool.inst.tenant.onerosterConnections.findOne())!.gradebook_writeback).toBe(false);
    // Turning it off is always allowed.
    expect(ok<{ gradebook_writeback: boolean }>(await csvPortal.put('/oneroster/gradebook', { gradebook_writeback: false })).gradebook_writeback).toBe(false);

    const oldSchool = await makeSchool(app);
    const old = await startProvider({ version: '1.1' });
    const oldAdmin = await signedInMember(app, oldSchool.inst.id, 'admin');
    const oldPortal = portalRequests(
      () => oldAdmin,
      () => institutionApi(oldSchool.inst.id),
    );
    const body = { url: old.url, token_url: old.tokenUrl, client_id: old.clientId, client_secret: old.clientSecret, version: '1.1', gradebook_writeback: true };
    const oldRefused = await oldPortal.put('/oneroster', body);
    expectError(oldRefused, 422, 'validation_error');
    expect(oldRefused.body.details[0]).toMatchObject({ path: 'gradebook_writeback', message: expect.stringContaining('OneRoster 1.2') });
    expect(await oldSchool.inst.tenant.onerosterConnections.count()).toBe(0);

    // Without a connection there is nothing to turn on.
    const bare = await makeSchool(app);
    const bareAdmin = await signedInMember(app, bare.inst.id, 'admin');
    expectError(
      await portalRequests(
        () => bareAdmin,
        () => institutionApi(bare.inst.id),
      ).put('/oneroster/gradebook', { gradebook_writeback: true }),
      404,
      'not_found',
    );
  });

  it('opted in through the save route: a grade PUTs the category, the line item and the result, with the bodies the binding requires', async () => {
    const saved = ok<{ gradebook_writeback: boolean }>(await portal.put('/oneroster', connectionBody({ gradebook_writeback: true })));
    expect(saved.gradebook_writeback).toBe(true);
    expect(ok<{ connection: { gradebook_writeback: boolean } }>(await portal.get('/oneroster')).connection.gradebook_writeback).toBe(true);

    const graded = await grade('s-1', 8, 'Good work on the common denominators.');
    const queued = await standing('s-1');
    expect(queued.destinations).toEqual([expect.objectContaining({ destination: 'sis', name: 'Class 0', sent_score: null, latest_score: 8, state: 'queued' })]);
    expect(queued.summary).toBe('SIS has nothing yet, here 8: queued');
    expect(gradebookRequests()).toHaveLength(0);

    expect(await runJob()).toEqual({ sent: 1, failed: 0 });
    const sent = gradebookRequests();
    expect(sent.map((request) => `${request.method} ${request.path.slice(GRADEBOOK_BASE.length).split('/').slice(0, 2).join('/')}`)).toEqual([
      'PUT /categories',
      'PUT /lineItems',
      'PUT /results',
    ]);
    expect(sent.every((request) => request.headers['content-type']?.startsWith('application/json'))).toBe(true);
    // The gradebook token asked for the gradebook scope (the provider refuses a PUT without it).
    const tokenForms = provider.requests.filter((request) => request.path === '/oauth/token').map((request) => new URLSearchParams(request.body).get('scope'));
    expect(tokenForms).toContain(GRADEBOOK_SCOPE);

    expect([...provider.categories.keys()]).toEqual(['campusbridge-exams']);
    const [lineItemId, lineItem] = [...provider.lineItems.entries()][0]!;
    expect(lineItemId).toMatch(new RegExp(`^campusbridge-${examId}-`));
    expect(lineItem.body).toEqual({
      sourcedId: lineItemId,
      status: 'active',
      dateLastModified: expect.any(String),
      title: 'Fractions quiz',
      assignDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      dueDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      class: { sourcedId: 'c-0', type: 'class' },
      school: { sourcedId: 'org-1', type: 'org' },
      category: { sourcedId: 'campusbridge-exams', type: 'category' },
      resultValueMin: 0,
      resultValueMax: 10,
    });
    const [resultId, result] = [...provider.results.entries()][0]!;
    expect(result.body).toEqual({
      sourcedId: resultId,
      status: 'active',
      dateLastModified: graded.graded_at,
      lineItem: { sourcedId: lineItemId, type: 'lineItem' },
      student: { sourcedId: 's-1', type: 'user' },
      class: { sourcedId: 'c-0', type: 'class' },
      scoreStatus: 'fully graded',
      score: 8,
      scoreDate: graded.graded_at.slice(0, 10),
      comment: 'Good work on the common denominators.',
    });

    const delivered = await standing('s-1');
    expect(delivered.destinations[0]).toMatchObject({ destination: 'sis', target: lineItemId, sent_score: 8, latest_score: 8, state: 'delivered' });
    expect(delivered.summary).toBe('SIS has 8, here 8: delivered');
    const [post] = await posts();
    expect(post).toMatchObject({ status: 'succeeded', attempt_count: 1, result_sourced_id: resultId, submission_id: submissions.get('s-1') });
    expect(post!.attempts).toEqual([expect.objectContaining({ step: 'result', response_status: 201, error: null })]);
  });

  it('a regrade PUTs the same result sourcedId with the new score; the line item is not sent again', async () => {
    const before = provider.requests.length;
    const resultId = [...provider.results.keys()][0]!;
    await grade('s-1', 9);
    // Between the grade and its delivery, the SIS still has the old score.
    expect((await standing('s-1')).summary).toBe('SIS has 8, here 9: queued');
    expect(await runJob()).toEqual({ sent: 1, failed: 0 });
    const puts = provider.requests.slice(before).filter((request) => request.method === 'PUT');
    expect(puts.map((request) => request.path)).toEqual([`${GRADEBOOK_BASE}/results/${encodeURIComponent(resultId)}`]);
    expect(provider.results.size).toBe(1);
    expect(provider.results.get(resultId)).toMatchObject({ puts: 2, body: { sourcedId: resultId, score: 9, student: { sourcedId: 's-1', type: 'user' } } });
    expect(provider.lineItems.get([...provider.lineItems.keys()][0]!)!.puts).toBe(1);
    expect((await standing('s-1')).summary).toBe('SIS has 9, here 9: delivered');
  });

  it('two grades before a delivery: only the newest is sent, the older one superseded', async () => {
    await grade('s-1', 5);
    await grade('s-1', 7);
    expect(await runJob()).toEqual({ sent: 1, failed: 0 });
    expect(provider.results.get([...provider.results.keys()][0]!)!.body.score).toBe(7);
    const [newest, older] = await posts();
    expect([newest!.status, older!.status]).toEqual(['succeeded', 'superseded']);
    expect((await standing('s-1')).summary).toBe('SIS has 7, here 7: delivered');
  });

  it('the SIS fails: the result is retried on the schedule, every attempt recorded, then delivered', async () => {
    provider.failGradebook = [500, 503];
    await grade('s-2', 4);
    expect(await runJob()).toEqual({ sent: 0, failed: 1 });
    let [post] = await posts();
    expect(post).toMatchObject({ submission_id: submissions.get('s-2'), status: 'pending', attempt_count: 1 });
    const waiting = await standing('s-2');
    expect(waiting.destinations[0]).toMatchObject({ sent_score: null, latest_score: 4, state: 'queued' });
    // Not due again until its retry gap has passed.
    expect(await runJob()).toEqual({ sent: 0, failed: 0 });
    expect(await runJob(RETRY_SECONDS[0]! + 1)).toEqual({ sent: 0, failed: 1 });
    expect(await runJob(RETRY_SECONDS[0]! + RETRY_SECONDS[1]! + 2)).toEqual({ sent: 1, failed: 0 });
    [post] = await posts();
    expect(post).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    // The class's line item was already in the SIS: only the result was tried again.
    expect(post!.attempts.map((attempt) => [attempt.step, attempt.response_status])).toEqual([
      ['result', 500],
      ['result', 503],
      ['result', 201],
    ]);
    expect(provider.results.get(post!.result_sourced_id)!.body.score).toBe(4);
    expect((await standing('s-2')).summary).toBe('SIS has 4, here 4: delivered');
  });

  it('a result that gave up is dead, shown as failed, and replayed from the portal', async () => {
    provider.failGradebook = [500, 500, 500, 500];
    await grade('s-2', 3);
    let ahead = 0;
    for (let attempt = 0; attempt <= RETRY_SECONDS.length; attempt++) {
      expect(await runJob(ahead)).toEqual({ sent: 0, failed: 1 });
      ahead += 2;
    }
    let [post] = await posts();
    expect(post).toMatchObject({ status: 'dead', attempt_count: 4 });
    expect(post!.attempts.every((attempt) => attempt.response_status === 500 && attempt.error === 'result: HTTP 500')).toBe(true);
    const failed = await standing('s-2');
    expect(failed.destinations[0]).toMatchObject({ sent_score: 4, latest_score: 3, state: 'failed' });
    expect(failed.summary).toBe('SIS has 4, here 3: failed');
    expect(await runJob(ahead + 60)).toEqual({ sent: 0, failed: 0 });

    expect(ok<{ queued: true }>(await portal.post(`/oneroster/gradebook/posts/${post!.id}/retry`)).queued).toBe(true);
    expect(await runJob()).toEqual({ sent: 1, failed: 0 });
    [post] = await posts();
    expect(post).toMatchObject({ status: 'succeeded', attempt_count: 5 });
    expect(provider.results.get(post!.result_sourced_id)!.body.score).toBe(3);
    expect((await standing('s-2')).summary).toBe('SIS has 3, here 3: delivered');
    // A delivered post is not replayed; an unknown one is 404.
    expectError(await portal.post(`/oneroster/gradebook/posts/${post!.id}/retry`), 404, 'not_found');
    expectError(await portal.post('/oneroster/gradebook/posts/ogp_unknown/retry'), 404, 'not_found');
  });

  it("the exam's standing lists each submission; turned off, grades stop going to the SIS", async () => {
    const exam = ok<{ items: Standing[] }>(await portal.get(`/grade-standing/exams/${examId}`)).items;
    expect(new Map(exam.map((item) => [item.submission_id, item.summary]))).toEqual(
      new Map([
        [submissions.get('s-0'), 'Not sent to an LMS or a SIS; here 6.'],
        [submissions.get('s-1'), 'SIS has 7, here 7: delivered'],
        [submissions.get('s-2'), 'SIS has 3, here 3: delivered'],
      ]),
    );
    expectError(await portal.get('/grade-standing/submissions/sub_unknown'), 404, 'not_found');
    expectError(await portal.get('/grade-standing/exams/exm_unknown'), 404, 'not_found');

    expect(ok<{ gradebook_writeback: boolean }>(await portal.put('/oneroster/gradebook', { gradebook_writeback: false })).gradebook_writeback).toBe(false);
    const before = (await posts()).length;
    await grade('s-0', 2);
    expect(await posts()).toHaveLength(before);
  });

  it('a student the SIS does not know, or a class not synced, sends nothing', async () => {
    await saveConnection(school.inst.tenant, { url: provider.url, token_url: provider.tokenUrl, client_id: provider.clientId, gradebook_writeback: true });
    // A student made by hand in the synced group: no sourcedId to name in a result.
    const hand = await api.post(school.key, '/students', { full_name: 'Hand Made' });
    expect(hand.status, JSON.stringify(hand.body)).toBe(200);
    const before = (await posts()).length;
    const tenant = school.inst.tenant;
    const link = await tenant.onerosterLinks.findOne({ where: { kind: 'user', sourced_id: 's-0' } });
    await tenant.inTransaction((tx) => tx.onerosterLinks.update({ target_id: hand.body.data.id }, { kind: 'user', sourced_id: 's-0' }));
    await grade('s-0', 3);
    expect(await posts()).toHaveLength(before);
    await tenant.inTransaction((tx) => tx.onerosterLinks.update({ target_id: link!.target_id }, { kind: 'user', sourced_id: 's-0' }));
    await grade('s-0', 3);
    expect(await posts()).toHaveLength(before + 1);
  });
});
