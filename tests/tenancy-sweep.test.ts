// @tier proof
// @databases sqlite, postgres
/**
 * Tenancy sweep, generated from the OpenAPI document: two institutions on one real appliance,
 * each filled with rows of every kind the API has ids for. For every operation with a path
 * parameter, query parameter or body field that names a record (as the document describes it),
 * institution A's key calls it with B's real value in that place and again with a well-formed
 * value that names nothing; the two answers must be the same, nothing of B may be in them, and
 * B's rows must be exactly as they were. The learner side (/app/*) is swept with A's learner
 * session, and the portal with A's admin and developer: B's institution id must answer as a
 * nonexistent one, and B's ids inside A's institution as missing ones.
 *
 * Ends with the line `tenancy sweep: N cross-institution calls over M operations, K leaks (…)`.
 * Each defect is reported as a one-line reproduction. SWEEP_VERBOSE=1 prints every case's two answers.
 */
import { randomBytes } from 'node:crypto';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurriculum } from '../server/commands/alpha/curricula.js';
import { approveBatch } from '../server/commands/wallet/coupons.js';
import { addPlatform, linkResourceLink } from '../server/commands/lti/platforms.js';
import { mintLaunchToken } from '../server/commands/learner/sso.js';
import { seedDemo } from '../server/commands/demo/seed.js';
import { generateWeeklyReports } from '../server/commands/people/guardian-reports.js';
import { setAllowance } from '../server/commands/wallet/merits.js';
import { LoginThrottle } from '../server/portal/login-throttle.js';
import type { AnyPortalRoute as PortalRoute } from '../server/http/route.js';
import { grants, roleScopes } from '../server/policies/scopes.js';
import { apiRoutes, portalRoutes } from '../server/routes/index.js';
import { Tenant } from '../server/db/tenant.js';
import { newId } from '../server/ids.js';
import { replayDelivery } from '../server/commands/webhooks/deliveries.js';
import { sendQueuedMail } from '../server/mail/mailer.js';
import { dropStaleMail } from '../server/mail/staleness.js';
import {
  learnerSession,
  makeKey,
  makePerson,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
  type TestPerson,
} from './helpers/appliance.js';
import { createAccount, signedInMember, type SignedIn } from './helpers/portal.js';
import {
  diffSnapshots,
  errorCodeOf,
  exampleValue,
  leaksIn,
  lookalike,
  markersOf,
  normalizeAnswer,
  operationsOf,
  RECORD_KINDS,
  requestBodyOf,
  setAt,
  slotsOf,
  snapshotInstitution,
  type InstitutionSnapshot,
  type Markers,
  type Method,
  type OpenApiDoc,
  type Operation,
  type RefKind,
  type Slot,
} from './helpers/tenancy-sweep.js';

// ---------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------

/** B's texts carry this marker, so any of them reaching A is found whatever field it is in. */
const B_MARKER = 'LEAKMARK';
/** Reads whose answer does not depend on the value even for A's own rows (explained where the list is checked). */
const SWEEP_BLIND_SPOTS: string[] = [];
const DAY_MS = 24 * 60 * 60 * 1000;

interface School {
  tag: 'A' | 'B';
  inst: TestInstitution;
  key: TestKey;
  /** Values by kind. Record kinds: the records to point at (A: the first is the context value). Value kinds: a pool, one used per call. */
  refs: Partial<Record<RefKind, string[]>>;
  /** The learner's session (A's sweeps /app) and open attempt (B's is pointed at). */
  session: string;
  /** The teacher's grading session for the coding exam, as an LMS instructor's launch opens it (A's sweeps /app/grading). */
  gradingSession: string;
  openAttempt: string;
  /** Records no read depends on, which writes around the place under test may change (A). */
  scratch: TestPerson;
  scratchTeacher: TestPerson;
  scratchGroupId: string;
  /** The draft coding exam with its three uploads (A: the context of PATCH /exams code_spec). */
  draftExam: string;
  hiddenFile: { ref: string; sha256: string };
  /** A signed download link of one of the school's stored files. */
  fileLink: { ref: string; expires: string; signature: string };
  admin?: SignedIn;
  developer?: SignedIn;
}

describe('tenancy sweep generated from the OpenAPI document', () => {
  let app: TestAppliance;
  let doc: OpenApiDoc;
  let A: School;
  let B: School;
  let before: InstitutionSnapshot;
  let markers: Markers;
  /** A's ids, for `id:<prefix>` kinds. */
  let ownIds: Set<string>;
  const started = Date.now();
  /** For the summary line: calls with one of B's values, the operations they went to, and what was found. */
  const stats = { crossCalls: 0, operations: new Set<string>(), portalRoutes: new Set<string>(), scanned: 0, findings: 0 };

  const data = (res: supertest.Response, what: string) => {
    if (res.status !== 200 || res.body?.success !== true) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    return res.body.data;
  };

  async function seedSchool(tag: 'A' | 'B'): Promise<School> {
    const { institution, key: demoKey } = await seedDemo(app.ctx.db, { portalUrl: await app.ctx.publicUrl(), dataDir: app.ctx.config.dataDir });
    expect(demoKey).toMatch(/^cb_live_/);
    const inst: TestInstitution = { id: institution.id, name: institution.name, tenant: new Tenant(app.ctx.db, institution.id) };
    const key = await makeKey(app, inst, { name: `${tag} sweep key` });
    const text = tag === 'B' ? B_MARKER : 'Sweep';
    const unique = () => randomBytes(4).toString('hex');
    const as = (request: supertest.Test) => request.set('Authorization', key.auth);
    const post = async (path: string, body: object) => data(await as(app.http.post(`/v1${path}`)).send(body), `${tag} POST ${path}`);
    const patch = async (path: string, body: object) => data(await as(app.http.patch(`/v1${path}`)).send(body), `${tag} PATCH ${path}`);
    const put = async (path: string, body: object) => data(await as(app.http.put(`/v1${path}`)).send(body), `${tag} PUT ${path}`);
    const get = async (path: string) => data(await as(app.http.get(`/v1${path}`)), `${tag} GET ${path}`);
    const upload = async (examId: string, name: string, content: Buffer) =>
      data(await as(app.http.post(`/v1/exams/${examId}/files`)).attach('file', content, name), `${tag} upload ${name}`) as { ref: string; sha256: string };

    // People: a teacher and students with the institution's own ids and personal emails, and a
    // pool of students and teachers whose values another institution may reuse.
    const externalIds = { teacher: `F-${tag}-${unique()}`, learner: `S-${tag}-${unique()}`, classmate: `S-${tag}-${unique()}` };
    const teacher = await makePerson(app, key, 'faculty', `Fiona ${text} Teacher`, { faculty_id: externalIds.teacher });
    const learnerPersonalEmail = `lena.${unique()}@family-${tag.toLowerCase()}.example.org`;
    const learner = await makePerson(app, key, 'students', `Lena ${text} Learner`, { student_id: externalIds.learner, personal_email: learnerPersonalEmail });
    const classmate = await makePerson(app, key, 'students', `Carl ${text} Classmate`, { student_id: externalIds.classmate });
    const scratch = await makePerson(app, key, 'students', `Sam ${text} Scratch`);
    const scratchTeacher = await makePerson(app, key, 'faculty', `Tom ${text} Scratch`);
    const poolStudents = Array.from({ length: 10 }, (_, i) => ({
      full_name: `Pat ${text} Pool${i}`,
      student_id: `P-${tag}-${unique()}`,
      personal_email: `pool${i}.${unique()}@family-${tag.toLowerCase()}.example.org`,
    }));
    data(await as(app.http.post('/v1/students/bulk')).send({ students: poolStudents }), `${tag} bulk`);
    const poolFaculty: string[] = [];
    for (let i = 0; i < 6; i += 1) poolFaculty.push(`F-${tag}-${unique()}`);
    for (const facultyId of poolFaculty) await makePerson(app, key, 'faculty', `Fay ${text} Pool`, { faculty_id: facultyId });

    const group = await post('/groups', { name: `${text} group`, faculty_id: teacher.id, student_ids: [learner.id, classmate.id] });
    const scratchGroup = await post('/groups', { name: `${text} scratch group`, faculty_id: scratchTeacher.id, student_ids: [] });
    const groupId = (group.group ?? group).id as string;
    const scratchGroupId = (scratchGroup.group ?? scratchGroup).id as string;
    const guardianEmails = [`guardian.${unique()}@family-${tag.toLowerCase()}.example.org`, `guardian.${unique()}@family-${tag.toLowerCase()}.example.org`];
    const guardian = await post('/guardians', {
      student_id: learner.id,
      guardian_email: guardianEmails[0],
      guardian_type: 'mother',
      guardian_name: `${text} Parent`,
    });
    await post('/guardians', { student_id: classmate.id, guardian_email: guardianEmails[1], guardian_type: 'father' });

    // A coding exam with its uploads, spec and stored key, published to the group; and a draft one.
    async function codingExam(publish: boolean) {
      const exam = await post('/exams', {
        faculty_id: teacher.id,
        title: `${text} coding exam`,
        app: 'code',
        max_score: 100,
        time_limit_minutes: 600,
        code_spec: { toolchain: 'python-3.12' },
      });
      const starter = await upload(exam.id, 'starter.zip', randomBytes(512));
      const samples = await upload(exam.id, 'sample-tests.zip', randomBytes(512));
      const hidden = await upload(exam.id, 'hidden-tests.zip.enc', randomBytes(512));
      await patch(`/exams/${exam.id}`, {
        code_spec: {
          toolchain: 'python-3.12',
          starter: starter.ref,
          sample_tests: { ref: samples.ref },
          hidden_tests: { file: hidden.ref, iv_b64: randomBytes(12).toString('base64'), sha256: hidden.sha256 },
        },
      });
      await put(`/exams/${exam.id}/code-secret`, { hidden_key_b64: randomBytes(32).toString('base64') });
      if (publish) {
        await post(`/exams/${exam.id}/assignments`, { group_ids: [groupId] });
        await post(`/exams/${exam.id}/publish`, {});
      }
      return { id: exam.id as string, starter, hidden };
    }
    const exam = await codingExam(true);
    const draft = await codingExam(false);

    // The learner side: the classmate takes the exam to the end (file, hidden key, submission);
    // the learner starts an attempt and keeps it open.
    const learnerApp = (token: string) => ({
      post: async (path: string, body: object) =>
        data(await app.http.post(`/v1/app${path}`).set('Authorization', `Bearer ${token}`).send(body), `${tag} app POST ${path}`),
      upload: async (attemptId: string) =>
        data(
          await app.http
            .post(`/v1/app/attempts/${attemptId}/files`)
            .set('Authorization', `Bearer ${token}`)
            .attach('file', Buffer.from(`print("${tag}")\n`), 'solution.py'),
          `${tag} app upload`,
        ),
      /** A camera recording of one chunk, finished (into a stored file of the submission) or left open. */
      record: async (attemptId: string, finish: boolean) => {
        const recording = data(
          await app.http
            .post(`/v1/app/attempts/${attemptId}/recordings`)
            .set('Authorization', `Bearer ${token}`)
            .send({ source: 'camera', mime_type: 'video/webm' }),
          `${tag} app recording`,
        ) as { id: string };
        const recordingPath = `/v1/app/attempts/${attemptId}/recordings/${recording.id}`;
        data(
          await app.http
            .post(`${recordingPath}/chunks`)
            .query({ seq: 0 })
            .set('Authorization', `Bearer ${token}`)
            .attach('file', Buffer.from(`${text} frames`), 'blob'),
          `${tag} app recording chunk`,
        );
        if (finish) data(await app.http.post(`${recordingPath}/finish`).set('Authorization', `Bearer ${token}`), `${tag} app recording finish`);
      },
    });
    const classmateSession = await learnerSession(app, key, classmate, {
      mint: { app: 'code' },
      exchange: { device: { id: `device-${tag}-classmate`, name: `${text} laptop` } },
    });
    const classmateApp = learnerApp(classmateSession);
    const doneAttempt = await classmateApp.post(`/exams/${exam.id}/attempts`, {});
    const attachment = await classmateApp.upload(doneAttempt.id);
    await classmateApp.record(doneAttempt.id, true);
    await classmateApp.post(`/attempts/${doneAttempt.id}/hidden-key`, {});
    await classmateApp.post(`/attempts/${doneAttempt.id}/events`, {
      events: [{ type: 'focus_lost', at: new Date().toISOString(), detail: { duration_ms: 1200 } }],
    });
    const submission = await classmateApp.post(`/attempts/${doneAttempt.id}/submit`, {
      answers: { text: `${text} answer` },
      files: [attachment.ref],
      ai_usage: { interactions: 1, cost_cents: 0 },
    });
    await post(`/submissions/${submission.id}/grade`, { score: 70, feedback: `${text} feedback`, graded_by: teacher.login_email });

    const session = await learnerSession(app, key, learner, {
      mint: { app: 'code' },
      exchange: { device: { id: `device-${tag}-learner`, name: `${text} tablet` } },
    });
    const learnerCalls = learnerApp(session);
    const openAttempt = await learnerCalls.post(`/exams/${exam.id}/attempts`, {});
    await learnerCalls.upload(openAttempt.id);
    await learnerCalls.record(openAttempt.id, false);

    // Coupons (approved by the operator, one redeemed), merits, Alpha Learning.
    const batch = await post('/coupons/batches', {
      name: `${text} prizes`,
      description: `${text} batch`,
      total_coupons: 3,
      value_cents: 150,
      expiry_date: new Date(Date.now() + 30 * DAY_MS).toISOString(),
    });
    await approveBatch(app.ctx.db, batch.id);
    const codes = ((await get(`/coupons/batches/${batch.id}`)).codes as Array<{ code: string }>).map((code) => code.code);
    await learnerCalls.post('/coupons/redeem', { code: codes[0]! });
    await setAllowance(app.ctx.db, inst.id, 1_000_000);
    const meritRef = `merit-${tag}-${unique()}`;
    await post('/merits/credits', { email: learner.login_email, amount_cents: 500, reason: `${text} award`, ref: meritRef });
    const { curriculum, concepts } = await createCurriculum(app.ctx.db, {
      name: `${text} curriculum`,
      description: `${text} maths`,
      concepts: [`${text} fractions`, `${text} decimals`],
      institution_id: inst.id,
      publish: true,
    });
    const enrolled = await post('/alpha/enrollments', { curriculum_id: curriculum.id, student_ids: [learner.id], guide_id: teacher.id });
    const enrollment = ((enrolled.items ?? enrolled.created ?? []) as Array<{ id: string }>)[0]!;
    const pointsRef = `points-${tag}-${unique()}`;
    await post(`/alpha/students/${learner.id}/points`, { points: 5, ref: pointsRef, note: `${text} points` });
    await learnerCalls.post('/alpha/activity', { curriculum_id: curriculum.id, concept_id: concepts[0]!.id, correct: true, minutes: 3 });

    // Rows the demo made: its endpoint (paused) and deliveries, and a demo submission.
    const endpoint = await inst.tenant.webhookEndpoints.findOne();
    const delivery = await inst.tenant.webhookDeliveries.findOne({ order: [['created_at', 'ASC']] });
    const demoSubmission = await inst.tenant.submissions.findOne({ where: { status: 'graded' } });
    const license = await inst.tenant.licenses.findOne({ where: { user_id: learner.id } });
    const seat = await inst.tenant.deviceSeats.findOne({ where: { license_id: license!.id } });
    const keys = await inst.tenant.apiKeys.findAll();
    // An LTI platform with a score post waiting for it (the portal's LTI routes point at both).
    const platform = await addPlatform(inst.tenant, {
      name: `${text} LMS`,
      issuer: `https://lms-${tag.toLowerCase()}-${unique()}.example`,
      client_id: `client-${unique()}`,
      deployment_ids: ['1'],
      auth_url: 'https://lms.example/auth',
      token_url: 'https://lms.example/token',
      jwks_url: 'https://lms.example/jwks',
    });
    // A resource link of that platform tied to the coding exam (the portal's class list routes point at it).
    await linkResourceLink(inst.tenant, platform.id, `rl-${tag}-${unique()}`, exam.id, { title: `${text} course link` });
    await inst.tenant.ltiScorePosts.create({
      id: newId('lsp'),
      platform_id: platform.id,
      submission_id: demoSubmission!.id,
      line_item_url: 'https://lms.example/lineitems/1',
      payload: { userId: `${text}-lms-user`, scoreGiven: 1, scoreMaximum: 1 },
      status: 'dead',
      next_attempt_at: null,
      last_attempt_at: null,
      response_status: null,
      error: null,
    });
    // Last week's guardian reports (the demo's verified guardian has one student), as the 06:00 job makes them.
    await generateWeeklyReports(app.ctx.db, { institutionId: inst.id });
    const verified = await inst.tenant.guardianLinks.findOne({ where: { verified: true } });
    const guarded = await inst.tenant.people.findById(verified!.student_id);

    // A signed link to the classmate's attachment, as GET /submissions/{id} gives it.
    const detail = JSON.stringify(await get(`/submissions/${submission.id}`));
    const url = /"url":"([^"]+)"/.exec(detail)?.[1];
    if (!url) throw new Error(`${tag}: no signed file link in ${detail.slice(0, 300)}`);
    const link = new URL(url, app.origin);

    const refs: School['refs'] = {
      student: [learner.id, demoSubmission!.student_id, verified!.student_id],
      student_email: [learner.login_email, classmate.login_email, guarded!.login_email],
      faculty: [teacher.id],
      faculty_email: [teacher.login_email],
      group: [groupId],
      license: [license!.id],
      seat: [seat!.id],
      guardian: [(guardian.id ?? guardian.link?.id) as string],
      exam: [exam.id, demoSubmission!.exam_id],
      submission: [submission.id, demoSubmission!.id],
      attempt: [openAttempt.id, doneAttempt.id],
      coupon_batch: [batch.id],
      curriculum: [curriculum.id],
      concept: [concepts[0]!.id],
      enrollment: [enrollment.id],
      endpoint: [endpoint!.id],
      delivery: [delivery!.id],
      file: [exam.starter.ref, attachment.ref],
      key: keys.map((row) => row.id),
      // Value pools: one per call, so no two calls compete for the same value.
      student_external: [externalIds.learner, externalIds.classmate, ...poolStudents.map((student) => student.student_id)],
      faculty_external: [externalIds.teacher, ...poolFaculty],
      personal_email: [learnerPersonalEmail, ...poolStudents.map((s) => s.personal_email)],
      guardian_email: guardianEmails,
      merit_ref: [meritRef],
      points_ref: [pointsRef],
      replay_ref: [], // made in beforeAll, for B only
      coupon_code: codes.slice(1),
      exam_redirect: [`exam:${exam.id}`],
    };
    // The grading session an instructor's launch of the coding exam opens (lms-grading.ts): the classmate's submission is in it.
    const grading = await mintLaunchToken(inst.tenant, { email: teacher.login_email, app: 'code', grading_exam_id: exam.id, ttl_seconds: 300 });
    const gradingSession = data(await app.http.post('/v1/sso/exchange').send({ token: grading.token }), `${tag} grading exchange`).session_token as string;
    return {
      tag,
      inst,
      key,
      refs,
      session,
      gradingSession,
      openAttempt: openAttempt.id,
      draftExam: draft.id,
      hiddenFile: draft.hidden,
      fileLink: { ref: link.pathname.split('/').pop()!, expires: link.searchParams.get('expires')!, signature: link.searchParams.get('signature')! },
      scratch,
      scratchTeacher,
      scratchGroupId,
    };
  }

  beforeAll(async () => {
    // No job on its schedule: the sweep asks what calls do to B, and an hourly or every-minute pass
    // landing mid-sweep (on a busy machine the sweep takes minutes) would be counted as theirs.
    app = await startTestAppliance({ config: { jobsOnSchedule: false } });
    doc = (await app.http.get('/v1/openapi.json')).body as OpenApiDoc;
    A = await seedSchool('A');
    B = await seedSchool('B');
    A.admin = await signedInMember(app, A.inst.id, 'admin');
    A.developer = await signedInMember(app, A.inst.id, 'developer');
    // B has its own portal people: an admin, a developer and a pending invitation.
    B.admin = await signedInMember(app, B.inst.id, 'admin');
    const { account: bDeveloper } = await createAccount(app, B.inst.id, 'developer');
    const invited = await B.admin.agent
      .post(`/portal/api/institutions/${B.inst.id}/developers/invitations`)
      .set('X-CSRF-Token', B.admin.csrf)
      .send({ email: `invited.${randomBytes(3).toString('hex')}@b.example.org` });
    B.refs.invitation = [data(invited, 'B invitation').invitation_id];
    B.refs.account = [bDeveloper.id];
    // A replay made with an idempotency ref: the command needs an active endpoint, so B's paused
    // endpoint is resumed for the moment of the call (straight in the database: nothing is kicked)
    // and paused again; the replay waits as `pending`, as everything of a paused endpoint does.
    const replayRefs = [1, 2].map((n) => `replay-B${n}-${randomBytes(4).toString('hex')}`);
    const bEndpoint = (await B.inst.tenant.webhookEndpoints.findById(B.refs.endpoint![0]!))!;
    await bEndpoint.update({ status: 'active' });
    try {
      for (const ref of replayRefs) await replayDelivery(B.inst.tenant, B.refs.delivery![0]!, ref);
    } finally {
      await bEndpoint.update({ status: 'paused' });
    }
    B.refs.replay_ref = replayRefs;
    // Mail queued by the seeding is settled first, as the send-mail job settles it every minute
    // (sent, or dropped when its invitation is already used): the job's pass during the sweep is
    // not something the sweep did to B.
    await sendQueuedMail(app.ctx.db, app.ctx.logger);
    await dropStaleMail(app.ctx.db);
    before = await snapshotInstitution(app.ctx.db, B.inst.id, app.dataDir);
    markers = markersOf(before, [B_MARKER, B.inst.name]);
    ownIds = markersOf(await snapshotInstitution(app.ctx.db, A.inst.id, app.dataDir), []).ids;
    // Two whole schools seeded through the API and the portal, then snapshotted: on a machine
    // whose cores are busy with other work this took over 120 s. A bound
    // only a hang reaches.
  }, 300_000);

  afterAll(async () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `tenancy sweep: ${stats.crossCalls} cross-institution calls over ${stats.operations.size + stats.portalRoutes.size} operations, ${stats.findings} leaks ` +
        `(${stats.operations.size} /v1 operations, ${stats.portalRoutes.size} portal routes, each call beside a nonexistent-id twin; ` +
        `${stats.scanned} reference-free reads scanned; ${seconds} s)`,
    );
    await app?.close();
  });

  it('seeds both institutions with rows of every kind the sweep points at', () => {
    for (const kind of RECORD_KINDS) {
      expect(B.refs[kind]?.length, `B has no ${kind}`).toBeGreaterThan(0);
      const shape = kind.endsWith('_email') ? /^[^@\s]+@[^@\s]+$/ : /^[a-z]{2,5}_[A-Za-z0-9]{24}$/;
      for (const school of [A, B]) for (const value of school.refs[kind] ?? []) expect(value, `${school.tag} ${kind}`).toMatch(shape);
    }
    expect(A.inst.id).not.toBe(B.inst.id);
    for (const table of [
      'Person',
      'Group',
      'License',
      'DeviceSeat',
      'GuardianLink',
      'Exam',
      'ExamSecret',
      'StoredFile',
      'Attempt',
      'Submission',
      'CouponBatch',
      'CouponCode',
      'MeritLedgerEntry',
      'AlphaEnrollment',
      'WebhookEndpoint',
      'WebhookDelivery',
      'Event',
      'ApiKey',
      'Membership',
      'Invitation',
    ]) {
      expect(before.tables[table]?.length ?? 0, `B rows of ${table}`).toBeGreaterThan(0);
    }
  });

  // -------------------------------------------------------------------------------------------
  // Calls
  // -------------------------------------------------------------------------------------------

  type Auth = { as: 'key' } | { as: 'session' } | { as: 'none' } | { as: 'portal'; signed: SignedIn };
  interface Call {
    method: Method;
    url: string;
    query: Record<string, string>;
    body?: Record<string, unknown>;
    upload?: string;
    auth: Auth;
  }

  function send(call: Call): Promise<supertest.Response> {
    const agent = call.auth.as === 'portal' ? call.auth.signed.agent : app.http;
    let request = agent[call.method](call.url).query(call.query);
    if (call.auth.as === 'key') request = request.set('Authorization', A.key.auth);
    if (call.auth.as === 'session') request = request.set('Authorization', `Bearer ${call.url.startsWith('/v1/app/grading') ? A.gradingSession : A.session}`);
    if (call.auth.as === 'portal' && call.method !== 'get') request = request.set('X-CSRF-Token', call.auth.signed.csrf);
    if (call.upload) return request.attach('file', Buffer.from('sweep upload\n'), call.upload);
    if (call.body !== undefined) return request.send(call.body);
    return request;
  }

  /** One line that reproduces a call by hand. */
  const describeCall = (call: Call) => {
    const query = Object.keys(call.query).length ? `?${new URLSearchParams(call.query).toString()}` : '';
    const who =
      call.auth.as === 'key'
        ? "A's key"
        : call.auth.as === 'session'
          ? "A's learner session"
          : call.auth.as === 'portal'
            ? `A's portal ${call.auth.signed === A.admin ? 'admin' : 'developer'}`
            : 'no credentials';
    const body = call.upload ? ` multipart file=${call.upload}` : call.body !== undefined ? ` ${JSON.stringify(call.body)}` : '';
    return `${call.method.toUpperCase()} ${call.url}${query} as ${who}${body}`;
  };
  const describeAnswer = (res: supertest.Response) => `${res.status} ${(res.text ?? '').slice(0, 240)}`;

  // -------------------------------------------------------------------------------------------
  // Values
  // -------------------------------------------------------------------------------------------

  let counter = 0;
  const fresh = (prefix: string) => `${prefix}-${(counter += 1)}-${randomBytes(3).toString('hex')}`;

  /** A's value of a kind where the call needs a valid one around the place under test. */
  function contextValue(kind: RefKind, read = false): string {
    if (kind.startsWith('id:')) return idsWithPrefix(ownIds, kind)[0] ?? lookalike(idsWithPrefix(markers.ids, kind)[0] ?? `${kind.slice(3)}_${'x'.repeat(24)}`);
    // Reads look at A's lived-in records (the learner, with attempts, mastery and a license); writes
    // change only scratch records, so no call changes what a later one reads.
    if (read && (RECORD_KINDS as readonly string[]).includes(kind) && A.refs[kind]?.[0]) return A.refs[kind]![0]!;
    switch (kind) {
      case 'student':
        return A.scratch.id;
      case 'student_email':
        return A.scratch.login_email;
      case 'faculty':
        return A.scratchTeacher.id;
      case 'faculty_email':
        return A.scratchTeacher.login_email;
      case 'group':
        return A.scratchGroupId;
      case 'exam':
        return A.draftExam;
      case 'attempt':
        return A.openAttempt;
      case 'student_external':
      case 'faculty_external':
        return fresh('X-A');
      case 'personal_email':
      case 'guardian_email':
        return `${fresh('fresh')}@family-a.example.org`.toLowerCase();
      case 'merit_ref':
      case 'points_ref':
      case 'replay_ref':
        return fresh('sweep-ref');
      case 'exam_redirect':
        return `exam:${A.draftExam}`;
      case 'coupon_code':
        return A.refs.coupon_code![0]!;
      default:
        return A.refs[kind]?.[0] ?? lookalike(B.refs[kind]![0]!);
    }
  }

  /** Ids of an `id:<prefix>` kind (one the sweep has no seeding for), straight from the database snapshot. */
  const idsWithPrefix = (ids: Set<string>, kind: RefKind) => [...ids].filter((id) => id.startsWith(`${kind.slice(3)}_`)).sort();

  /** B's values to point at: every record of the kind, or the next unused value of a pool. */
  const poolCursor = new Map<RefKind, number>();
  function bValues(kind: RefKind): string[] {
    if (kind.startsWith('id:')) return idsWithPrefix(markers.ids, kind).slice(0, 2);
    const values = B.refs[kind] ?? [];
    if ((RECORD_KINDS as readonly string[]).includes(kind)) return values;
    const next = poolCursor.get(kind) ?? 0;
    poolCursor.set(kind, next + 1);
    return values[next] !== undefined ? [values[next]!] : [];
  }

  // -------------------------------------------------------------------------------------------
  // How to build a valid request around the place under test (the only hand-written part)
  // -------------------------------------------------------------------------------------------

  interface Context {
    path?: Record<string, () => string>;
    query?: () => Record<string, string>;
    body?: (slot: Slot) => Record<string, unknown>;
    upload?: string;
  }
  const hiddenSpec = () => ({
    toolchain: 'python-3.12',
    hidden_tests: { file: A.hiddenFile.ref, iv_b64: randomBytes(12).toString('base64'), sha256: A.hiddenFile.sha256 },
  });
  const codeSpecFor = (slot: Slot) => (slot.name.startsWith('code_spec.hidden_tests') ? hiddenSpec() : { toolchain: 'python-3.12' });
  const CONTEXT: Record<string, Context> = {
    'post /groups': { body: () => ({ faculty_id: contextValue('faculty') }) },
    'post /licenses/{id}/extend': { body: () => ({ days: 1 }) },
    'post /exams': {
      body: (slot) => ({ faculty_id: contextValue('faculty'), app: 'code', ...(slot.name.startsWith('code_spec') ? { code_spec: codeSpecFor(slot) } : {}) }),
    },
    'patch /exams/{id}': { body: (slot) => (slot.name.startsWith('code_spec') ? { code_spec: codeSpecFor(slot) } : {}) },
    'put /exams/{id}/code-secret': { body: () => ({ hidden_key_b64: randomBytes(32).toString('base64') }) },
    'post /exams/{id}/files': { upload: 'starter.zip' },
    'post /submissions/{id}/grade': { body: () => ({ score: 1 }) },
    'post /app/grading/submissions/{id}/grade': { body: () => ({ score: 1 }) },
    'post /sso/tokens': { body: () => ({ app: 'code' }) },
    'post /merits/credits': { body: () => ({ amount_cents: 1, reason: 'sweep credit' }) },
    'post /alpha/students/{id}/points': { body: () => ({ points: 1, note: 'sweep' }) },
    'post /app/attempts/{id}/events': { body: () => ({ events: [{ type: 'focus_lost', at: new Date().toISOString() }] }) },
    'post /app/attempts/{id}/files': { upload: 'notes.txt' },
    'post /app/attempts/{id}/recordings': { body: () => ({ source: 'screen', mime_type: 'video/webm' }) },
    'post /app/attempts/{id}/recordings/{recId}/chunks': { query: () => ({ seq: '1' }), upload: 'chunk.webm' },
    'post /app/alpha/activity': { body: () => ({ correct: true, minutes: 1 }) },
    'get /files/{ref}': { query: () => ({ expires: A.fileLink.expires, signature: A.fileLink.signature }) },
    // Portal operations without a /v1 twin.
    'patch /keys/{id}': { body: () => ({ name: 'renamed by the sweep' }) },
    'post /developers/{id}/suspend': { body: () => ({ revoke_keys: false }) },
  };

  const hasAt = (target: unknown, dotted: string): boolean => {
    let node: unknown = target;
    for (const raw of dotted.split('.')) {
      const name = raw.replace(/\[\]$/, '');
      if (!node || typeof node !== 'object' || !(name in (node as object))) return false;
      node = (node as Record<string, unknown>)[name];
      if (raw.endsWith('[]')) node = Array.isArray(node) ? node[0] : undefined;
    }
    return node !== undefined;
  };

  /** The request of `op` with `value` in `slot` and A's valid values everywhere else. */
  function buildCall(op: Operation, slots: Slot[], slot: Slot, value: string, auth: Auth, prefix: string): Call {
    const context = CONTEXT[op.key] ?? {};
    const pathFor = (name: string) => {
      if (slot.where === 'path' && slot.name === name) return value;
      if (context.path?.[name]) return context.path[name]!();
      const other = slots.find((candidate) => candidate.where === 'path' && candidate.name === name);
      if (!other) throw new Error(`${op.key}: no kind for path parameter ${name}`);
      return contextValue(other.kinds[0]!, op.method === 'get');
    };
    const url = prefix + op.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(pathFor(name)));
    const query = { ...(context.query?.() ?? {}) };
    if (slot.where === 'query') query[slot.name] = value;
    const call: Call = { method: op.method, url, query, auth };
    const body = requestBodyOf(doc, op);
    if (context.upload || body?.mediaType === 'multipart/form-data') {
      call.upload = context.upload ?? 'file.bin';
    } else if (body || op.method !== 'get') {
      const built = { ...((body ? exampleValue(doc, body.schema) : {}) as Record<string, unknown>), ...(context.body?.(slot) ?? {}) };
      for (const other of slots) {
        if (other.where === 'body' && other !== slot && hasAt(built, other.name)) setAt(built, other.name, contextValue(other.kinds[0]!, op.method === 'get'));
      }
      if (slot.where === 'body') setAt(built, slot.name, value);
      call.body = built;
    }
    return call;
  }

  // -------------------------------------------------------------------------------------------
  // Comparing
  // -------------------------------------------------------------------------------------------

  /** One entry per defect found, each a one-line reproduction. */
  const findings: string[] = [];
  /** Cases whose answers do not test what they mean to (a body refused for another reason): the sweep's own problems. */
  const inconclusive: string[] = [];

  const slotRoot = (slot: Slot) => slot.name.split(/[.[]/)[0]!;
  function unrelatedRefusal(res: supertest.Response, slot: Slot): boolean {
    if (res.status === 401 || (res.status === 403 && errorCodeOf(res.body) !== 'forbidden')) return true;
    if (res.status !== 422 || errorCodeOf(res.body) !== 'validation_error') return false;
    if (slot.where === 'path') return true;
    const details = ((res.body?.details ?? []) as Array<{ path: string }>).map((detail) => String(detail.path).split('.')[0]);
    return !details.includes(slotRoot(slot)) && details.length > 0;
  }

  async function crossCheck(
    label: string,
    slot: Slot,
    kind: string,
    bValue: string,
    build: (value: string) => Call,
    write: boolean,
  ): Promise<supertest.Response> {
    const missing = lookalike(bValue);
    const crossCall = build(bValue);
    const controlCall = build(missing);
    const cross = await send(crossCall);
    const control = await send(controlCall);
    stats.crossCalls += 1;
    const repro = `${describeCall(crossCall)} → ${describeAnswer(cross)}; with a nonexistent ${kind} (${missing}) → ${describeAnswer(control)}`;
    if (process.env.SWEEP_VERBOSE)
      console.log(
        `${label} ${slot.where}:${slot.name} ${kind}: ${cross.status} ${errorCodeOf(cross.body) ?? ''} | ${control.status} ${errorCodeOf(control.body) ?? ''}`,
      );
    const problems: string[] = [];
    if (cross.status >= 500 || control.status >= 500) problems.push('5xx');
    // The value the caller sent may come back in a refusal ("No exam … in this institution"), as a missing one does.
    const leaked = leaksIn(cross.text ?? '', markers, [bValue, ...(bValue.match(/[a-z]{2,5}_[A-Za-z0-9]{24}/g) ?? [])]);
    if (leaked.length > 0) problems.push(`B's ${leaked.join(', ')} in the answer`);
    const normalizedCross = normalizeAnswer(cross.status, cross.body, cross.text ?? '', bValue, write);
    const normalizedControl = normalizeAnswer(control.status, control.body, control.text ?? '', missing, write);
    if (JSON.stringify(normalizedCross) !== JSON.stringify(normalizedControl)) {
      problems.push(
        cross.status !== control.status || errorCodeOf(cross.body) !== errorCodeOf(control.body)
          ? 'answered differently from a missing id'
          : 'same status, different body',
      );
    }
    // A list filtered by another institution's value is empty, as it is for a value that names nothing.
    if (!write && slot.where === 'query' && cross.status === 200) {
      const listed = cross.body?.data;
      const items = Array.isArray(listed) ? listed : Array.isArray(listed?.items) ? listed.items : [];
      if (items.length > 0) problems.push(`filter by B's value is not empty (${items.length} items)`);
    }
    if (problems.length > 0) {
      findings.push(`[${label}] ${slot.where}:${slot.name} = B's ${kind}: ${problems.join('; ')}: ${repro}`);
      stats.findings += 1;
    } else if (unrelatedRefusal(cross, slot)) {
      inconclusive.push(`[${label}] ${slot.where}:${slot.name} (${kind}): refused for another reason: ${repro}`);
    }
    return cross;
  }

  /** Every slot of `op`, every kind of value it takes, every B record of that kind. */
  async function sweepOperation(op: Operation, slots: Slot[], auth: Auth, prefix: string, label: string) {
    for (const slot of slots) {
      for (const kind of slot.kinds) {
        const values = bValues(kind);
        // A place the sweep has no value of B for is not silently skipped: the seeding must grow.
        if (values.length === 0) inconclusive.push(`[${label}] ${slot.where}:${slot.name} (${kind}): B has no value left to point at; seed more`);
        for (const bValue of values) {
          await crossCheck(label, slot, kind, bValue, (value) => buildCall(op, slots, slot, value, auth, prefix), op.method !== 'get');
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // The sweeps
  // -------------------------------------------------------------------------------------------

  it('every reference the document describes has a kind the sweep knows', () => {
    const unclassified = operationsOf(doc).flatMap((op) => slotsOf(doc, op).unclassified);
    expect(unclassified).toEqual([]);
  });

  it('the sweep can see a difference: on reads, A’s own records answer unlike missing ones', async () => {
    // The other side of "B's id answers like a missing one": were B's rows treated as A's, these
    // are the answers they would get. A read whose answer never depends on the value would prove nothing.
    const insensitive: string[] = [];
    let checked = 0;
    for (const op of operationsOf(doc).filter((candidate) => candidate.method === 'get' && candidate.auth !== 'none')) {
      const { slots } = slotsOf(doc, op);
      for (const slot of slots) {
        for (const kind of slot.kinds) {
          const own = kind.startsWith('id:') ? idsWithPrefix(ownIds, kind).slice(0, 2) : (A.refs[kind] ?? []);
          let differs = false;
          for (const value of own) {
            const auth: Auth = op.auth === 'session' ? { as: 'session' } : { as: 'key' };
            const mine = await send(buildCall(op, slots, slot, value, auth, '/v1'));
            const missing = lookalike(value);
            const none = await send(buildCall(op, slots, slot, missing, auth, '/v1'));
            checked += 1;
            if (
              JSON.stringify(normalizeAnswer(mine.status, mine.body, mine.text ?? '', value, false)) !==
              JSON.stringify(normalizeAnswer(none.status, none.body, none.text ?? '', missing, false))
            )
              differs = true;
          }
          if (!differs) insensitive.push(`${op.key} ${slot.where}:${slot.name} (${kind})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(insensitive).toEqual(SWEEP_BLIND_SPOTS);
  });

  it('/v1 with A’s key: B’s ids, emails and values answer as nonexistent ones, and nothing of B comes back', async () => {
    for (const op of operationsOf(doc).filter((candidate) => candidate.auth === 'key')) {
      const { slots } = slotsOf(doc, op);
      if (slots.length === 0) continue;
      stats.operations.add(op.key);
      await sweepOperation(op, slots, { as: 'key' }, '/v1', op.key);
    }
    expect(inconclusive).toEqual([]);
    expect(findings).toEqual([]);
  }, 120_000);

  it('/v1/app with A’s learner session and the public file link: B’s attempts, exams, files, curricula and codes answer as nonexistent ones', async () => {
    const before = { findings: findings.length, inconclusive: inconclusive.length };
    for (const op of operationsOf(doc).filter((candidate) => candidate.auth === 'session' || candidate.path === '/files/{ref}')) {
      const { slots } = slotsOf(doc, op);
      if (slots.length === 0) continue;
      stats.operations.add(op.key);
      await sweepOperation(op, slots, op.auth === 'session' ? { as: 'session' } : { as: 'none' }, '/v1', op.key);
    }
    expect(inconclusive.slice(before.inconclusive)).toEqual([]);
    expect(findings.slice(before.findings)).toEqual([]);
  }, 120_000);

  // -------------------------------------------------------------------------------------------
  // The portal
  // -------------------------------------------------------------------------------------------

  const routes = () => portalRoutes(new LoginThrottle()).filter((route) => route.caller === 'member' && route.path.startsWith('/institutions/{id}'));
  /**
   * The /v1 institution operations as the portal mounts them for sessions, in the shape of its own
   * routes: `/institutions/{id}` then the operation's path; the role may call it when its scopes grant
   * the operation's scope.
   */
  const mountedRoutes = (): PortalRoute[] =>
    apiRoutes.flatMap((route) =>
      route.caller !== 'key' || route.keyOnly
        ? []
        : [
            {
              method: route.method,
              path: `/institutions/{id}${route.path.replace('{id}', '{resourceId}')}`,
              summary: route.summary,
              caller: 'member',
              roles: route.scope === 'any' || grants(roleScopes('developer'), route.scope) ? ['admin', 'developer'] : ['admin'],
              handler: async () => null,
            } as unknown as PortalRoute,
          ],
    );
  /** The portal's sub-resource parameters and the record each names. */
  const PORTAL_PARAM_KIND: Record<string, RefKind> = {
    studentId: 'student',
    facultyId: 'faculty',
    groupId: 'group',
    licenseId: 'license',
    seatId: 'seat',
    examId: 'exam',
    submissionId: 'submission',
    endpointId: 'endpoint',
    deliveryId: 'delivery',
    keyId: 'key',
    invitationId: 'invitation',
    accountId: 'account',
    platformId: 'id:ltp',
    postId: 'id:lsp',
    link: 'id:ltl',
  };
  const portalUrl = (route: PortalRoute, institutionId: string) =>
    `/portal/api${route.path}`.replace(/\{(\w+)\}/g, (_match, name: string) =>
      encodeURIComponent(name === 'id' ? institutionId : contextValue(PORTAL_PARAM_KIND[name] ?? 'student')),
    );
  const portalCall = (route: PortalRoute, institutionId: string, signed: SignedIn): Call => ({
    method: route.method,
    url: portalUrl(route, institutionId),
    query: {},
    body: route.method === 'get' || route.method === 'delete' ? undefined : {},
    auth: { as: 'portal', signed },
  });
  /**
   * Portal-only writes whose body must be valid before the record in the path is looked up
   * (validation comes first): the body the sweep sends them, with the record ids in the path.
   */
  const PORTAL_BODIES: Record<string, Record<string, unknown>> = {
    '/institutions/{id}/webhook-debugging/endpoints/{endpointId}/signature-check': { body: '{}', headers: 'X-Service-Signature: t=1,v1=00' },
  };

  it('A’s lists, summaries and streams (reads without a reference) hold nothing of B', async () => {
    const leaks: string[] = [];
    const calls: Call[] = [];
    for (const op of operationsOf(doc).filter((candidate) => candidate.method === 'get' && candidate.auth !== 'none' && !candidate.path.includes('{'))) {
      if (op.path === '/openapi.json') continue;
      const limit = ((op.op.parameters ?? []) as Array<{ name: string; schema?: { maximum?: number } }>).find((param) => param.name === 'limit');
      calls.push({
        method: 'get',
        url: `/v1${op.path}`,
        query: limit?.schema?.maximum ? { limit: String(limit.schema.maximum) } : {},
        auth: op.auth === 'session' ? { as: 'session' } : { as: 'key' },
      });
    }
    for (const route of routes().filter((candidate) => candidate.method === 'get' && !candidate.path.slice('/institutions/{id}'.length).includes('{'))) {
      calls.push({ method: 'get', url: portalUrl(route, A.inst.id), query: {}, auth: { as: 'portal', signed: A.admin! } });
    }
    expect(calls.length).toBeGreaterThan(25);
    for (const call of calls) {
      const res = await send(call);
      stats.scanned += 1;
      if (res.status !== 200) leaks.push(`${describeCall(call)} → ${describeAnswer(res)} (expected 200)`);
      const found = leaksIn(res.text ?? '', markers, []);
      if (found.length > 0) leaks.push(`${describeCall(call)}: B's ${found.join(', ')} in the answer`);
    }
    stats.findings += leaks.length;
    expect(leaks).toEqual([]);
  });

  it('portal: every institution route with B’s institution id answers A’s admin and developer as a nonexistent institution does', async () => {
    const before = findings.length;
    const list = [...routes(), ...mountedRoutes()];
    expect(list.length).toBeGreaterThan(100);
    for (const route of list) {
      for (const signed of [A.admin!, A.developer!]) {
        stats.portalRoutes.add(`${route.method} ${route.path}`);
        const slot: Slot = { where: 'path', name: 'id', kinds: [] };
        const last = findings.length;
        const res = await crossCheck(
          `portal ${route.method} ${route.path}`,
          slot,
          'institution',
          B.inst.id,
          (id) => portalCall(route, id, signed),
          route.method !== 'get',
        );
        // Not only alike: exactly the 404 of an institution the caller is not a member of.
        if (findings.length === last && (res.status !== 404 || errorCodeOf(res.body) !== 'not_found')) {
          stats.findings += 1;
          findings.push(
            `[portal ${route.method} ${route.path}] B's institution id: expected 404 not_found: ${describeCall(portalCall(route, B.inst.id, signed))} → ${describeAnswer(res)}`,
          );
        }
      }
    }
    expect(findings.slice(before)).toEqual([]);
  });

  it('portal: A’s developer gets 403 forbidden on every admin-only route of A', async () => {
    const before = findings.length;
    const adminOnly = [...routes(), ...mountedRoutes()].filter((route) => route.caller === 'member' && !route.roles.includes('developer'));
    expect(adminOnly.length).toBeGreaterThan(15);
    for (const route of adminOnly) {
      const call = portalCall(route, A.inst.id, A.developer!);
      const res = await send(call);
      stats.portalRoutes.add(`${route.method} ${route.path}`);
      if (res.status !== 403 || errorCodeOf(res.body) !== 'forbidden') {
        findings.push(
          `[portal ${route.method} ${route.path}] A's developer on an admin-only route: expected 403 forbidden: ${describeCall(call)} → ${describeAnswer(res)}`,
        );
        stats.findings += 1;
      }
    }
    expect(findings.slice(before)).toEqual([]);
  });

  it('portal: inside A’s institution, B’s record ids (and filters) answer A’s admin as nonexistent ones', async () => {
    const before = { findings: findings.length, inconclusive: inconclusive.length };
    const v1 = new Map(operationsOf(doc).map((op) => [op.key, op]));
    for (const route of routes()) {
      // `/institutions/{id}/groups/{groupId}/members/{studentId}` is /v1's `/groups/{id}/members/{studentId}`.
      const rest = route.path.slice('/institutions/{id}'.length);
      const first = /\{(\w+)\}/.exec(rest)?.[1];
      const path = first ? rest.replace(`{${first}}`, '{id}') : rest;
      const key = `${route.method} ${path}`;
      const twin = v1.get(key);
      const declared = (schema: unknown) => new Set(Object.keys((schema as { shape?: object } | undefined)?.shape ?? {}));
      const queryNames = declared(route.query);
      const bodyNames = declared(route.body);
      let op: Operation;
      let slots: Slot[];
      if (twin) {
        op = twin;
        slots = slotsOf(doc, twin).slots.filter(
          (slot) =>
            slot.where === 'path' ||
            (slot.where === 'query' && queryNames.has(slot.name)) ||
            (slot.where === 'body' && bodyNames.has(slot.name.split(/[.[]/)[0]!)),
        );
      } else {
        const example = PORTAL_BODIES[route.path];
        op = { method: route.method, path, key, auth: 'key', op: example ? { requestBody: { content: { 'application/json': { schema: { example } } } } } : {} };
        slots = [...rest.matchAll(/\{(\w+)\}/g)].map((match) => {
          const kind = PORTAL_PARAM_KIND[match[1]!];
          if (!kind) throw new Error(`portal ${route.path}: no kind for {${match[1]}}`);
          return { where: 'path' as const, name: match[1] === first ? 'id' : match[1]!, kinds: [kind] };
        });
      }
      if (slots.length === 0) continue;
      stats.portalRoutes.add(`${route.method} ${route.path}`);
      await sweepOperation(op, slots, { as: 'portal', signed: A.admin! }, `/portal/api/institutions/${A.inst.id}`, `portal ${route.method} ${route.path}`);
    }
    expect(inconclusive.slice(before.inconclusive)).toEqual([]);
    expect(findings.slice(before.findings)).toEqual([]);
  }, 120_000);

  it('changes nothing of B: every row and stored file of B is as it was before the sweep', async () => {
    const after = await snapshotInstitution(app.ctx.db, B.inst.id, app.dataDir);
    const changes = diffSnapshots(before, after);
    // And nothing of A (its rows as the sweep left them) points at a record of B.
    const ofA = await snapshotInstitution(app.ctx.db, A.inst.id, app.dataDir);
    for (const [table, rows] of Object.entries(ofA.tables)) {
      for (const row of rows) {
        const found = leaksIn(row, markers, []);
        if (found.length > 0) changes.push(`A's ${table} row refers to B's ${found.join(', ')}: ${row.slice(0, 300)}`);
      }
    }
    stats.findings += changes.length;
    expect(changes).toEqual([]);
  });
});
