// @tier integration
// @databases sqlite, postgres
/**
 * The LMS frame and grading sessions (docs/decisions/lti-frame-and-grading-sessions.md), from the
 * outside: a teacher's LTI launch opens a session that grades the linked exam and nothing else (no
 * portal account, audited as the LMS instructor); the learner page a launch opens may be framed by
 * the launching platform's origins and no others; a login that offers LTI Platform Storage hands
 * its frame and origin to the page. The browser side (a cross-site frame with third-party cookies
 * blocked) is tests/e2e/lti-frame.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LTI, LtiPlatform, type LaunchPlan } from './helpers/lti-platform.js';
import {
  learnerSession,
  makePerson,
  readEvents,
  makeSchool,
  startTestAppliance,
  type TestAppliance,
  type TestKey,
  type TestPerson,
} from './helpers/appliance.js';
import { cliOk, runCliCaptured } from './helpers/cli.js';
import { institutionApi, portalRequests, signedInMember } from './helpers/portal.js';

type Person = TestPerson & { login_email: string };

/** The device the learner page names at the exchange. */
const DEVICE = { id: 'web-0123456789abcdef0123456789abcdef', name: 'Chrome on Linux' };

describe('LTI: grading from the LMS, and the LMS frame', () => {
  let app: TestAppliance;
  let platform: LtiPlatform;
  let key: TestKey;
  let institutionId: string;
  let students: Person[];
  let teacher: Person;
  let examId: string;
  let otherExamId: string;
  let platformId: string;
  let submissionIds: string[];
  let otherSubmissionId: string;
  let portal: ReturnType<typeof portalRequests>;
  let launchUrl: string;

  const api = {
    get: (path: string, auth: string = key.auth) => app.http.get(`/v1${path}`).set('Authorization', auth),
    post: (path: string, body: object = {}, auth: string = key.auth) => app.http.post(`/v1${path}`).set('Authorization', auth).send(body),
  };
  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };
  const bearer = (session: string) => `Bearer ${session}`;

  async function submit(student: Person, exam: string): Promise<string> {
    const session = await learnerSession(app, key, student);
    const attempt = data<{ id: string }>(await api.post(`/app/exams/${exam}/attempts`, {}, bearer(session)), 'attempt');
    return data<{ id: string }>(
      await api.post(`/app/attempts/${attempt.id}/submit`, { answers: { text: `${student.full_name}'s loop` } }, bearer(session)),
      'submit',
    ).id;
  }

  beforeAll(async () => {
    app = await startTestAppliance({
      config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1], sweepSeconds: 1, timeoutMs: 3000 } },
    });
    platform = await LtiPlatform.start();
    const school = await makeSchool(app, { scopes: ['all'] });
    key = school.key;
    institutionId = school.inst.id;
    teacher = (await makePerson(app, key, 'faculty', 'Grace Hopper')) as Person;
    students = [(await makePerson(app, key, 'students', 'Ada Lovelace')) as Person, (await makePerson(app, key, 'students', 'Alan Turing')) as Person];
    const group = data<{ id: string }>(await api.post('/groups', { name: 'CS 101', faculty_id: teacher.id, student_ids: students.map((s) => s.id) }), 'group');
    const makeExam = async (title: string) => {
      const exam = data<{ id: string }>(
        await api.post('/exams', { faculty_id: teacher.id, title, app: 'learning', max_score: 10, time_limit_minutes: 30 }),
        'exam',
      );
      data(await api.post(`/exams/${exam.id}/publish`), 'publish');
      data(await api.post(`/exams/${exam.id}/assignments`, { group_ids: [group.id] }), 'assign');
      return exam.id;
    };
    examId = await makeExam('Loops quiz');
    otherExamId = await makeExam('Recursion quiz');
    submissionIds = [await submit(students[0]!, examId), await submit(students[1]!, examId)];
    otherSubmissionId = await submit(students[0]!, otherExamId);

    cliOk(await runCliCaptured(app, 'settings', 'set', 'public_url', app.origin));
    const tool = cliOk<{ jwks_url: string; launch_url: string }>(await runCliCaptured(app, 'lti', 'tool-config', '--institution', institutionId));
    platform.toolJwksUrl = tool.jwks_url;
    launchUrl = tool.launch_url;
    const admin = await signedInMember(app, institutionId, 'admin');
    portal = portalRequests(
      () => admin,
      () => institutionApi(institutionId),
    );
    const added = data<{ id: string }>(
      await portal.post('/lti/platforms', {
        name: 'Course LMS',
        issuer: platform.issuer,
        client_id: platform.clientId,
        deployment_ids: [platform.deploymentId],
        auth_url: platform.authUrl,
        token_url: platform.tokenUrl,
        jwks_url: platform.jwksUrl,
        frame_origins: ['https://school.lms.example'],
      }),
      'platform',
    );
    platformId = added.id;
    cliOk(await runCliCaptured(app, 'lti', 'link', '--platform', platformId, '--resource-link-id', 'rl-loops', '--exam', examId));
  });
  afterAll(async () => {
    await platform?.close();
    await app?.close();
  });

  /** The whole LMS round: login initiation (with `extra` parameters) → the platform's sign-in → the launch; answers the launch response. */
  async function launch(plan: LaunchPlan, extra: Record<string, string> = {}) {
    platform.plan = plan;
    const login = await app.http.get('/lti/login').query({
      iss: platform.issuer,
      login_hint: plan.sub,
      target_link_uri: launchUrl,
      client_id: platform.clientId,
      lti_deployment_id: platform.deploymentId,
      ...extra,
    });
    expect(login.status, JSON.stringify(login.body)).toBe(302);
    const answer = await platform.authorize(login.headers.location as string);
    return app.http.post('/lti/launch').type('form').send({ id_token: answer.id_token, state: answer.state });
  }
  const teacherPlan: LaunchPlan = { sub: 'lms-grace', email: '', roles: [LTI.instructor], resourceLinkId: 'rl-loops' };

  /** The learner page's exchange of the launch link's token. */
  async function exchange(location: string) {
    const token = new URL(location).searchParams.get('token');
    return data<{ session_token: string; grading_exam_id: string | null; user: { id: string } }>(
      await app.http.post('/v1/sso/exchange').send({ token, device: DEVICE }),
      'exchange',
    );
  }

  let grading: string;

  it("a teacher's launch opens a session that grades the linked exam, and takes no device seat", async () => {
    const launched = await launch({ ...teacherPlan, email: teacher.login_email });
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
    const location = new URL(launched.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${app.origin}/launch`);
    expect(location.searchParams.get('lti')).toBe(platformId);
    const session = await exchange(location.toString());
    expect(session).toMatchObject({ grading_exam_id: examId, user: { id: teacher.id } });
    grading = session.session_token;
    expect(await app.ctx.db.models.DeviceSeat.count({ where: { device_id: DEVICE.id } })).toBe(0);

    const overview = data<{
      exam: { id: string; title: string; max_score: number };
      items: Array<{ id: string; student: { full_name: string } }>;
      total: number;
    }>(await api.get('/app/grading', bearer(grading)), 'overview');
    expect(overview.exam).toEqual({ id: examId, title: 'Loops quiz', max_score: 10 });
    expect(overview.total).toBe(2);
    expect(overview.items.map((item) => [item.id, item.student.full_name])).toEqual([
      [submissionIds[0], 'Ada Lovelace'],
      [submissionIds[1], 'Alan Turing'],
    ]);
    const one = data<{ answers: { text: string }; student: { full_name: string }; attachments: unknown[] }>(
      await api.get(`/app/grading/submissions/${submissionIds[1]}`, bearer(grading)),
      'submission',
    );
    expect(one).toMatchObject({ answers: { text: "Alan Turing's loop" }, student: { full_name: 'Alan Turing' } });
    expect(one).not.toHaveProperty('recordings');
  });

  it('grades and comments in the name of the LMS instructor, with the audit entry and the grade events of any other grade', async () => {
    const graded = data<{ status: string; score: number; feedback: string; graded_by: string }>(
      await api.post(`/app/grading/submissions/${submissionIds[0]}/grade`, { score: 8, feedback: 'Mind the off-by-one.' }, bearer(grading)),
      'grade',
    );
    expect(graded).toMatchObject({ status: 'graded', score: 8, feedback: 'Mind the off-by-one.', graded_by: 'Grace Hopper (LMS instructor)' });
    // What the school's integration sees: the same submission and the same event as a grade by key.
    expect(data<{ score: number; graded_by: string }>(await api.get(`/submissions/${submissionIds[0]}`), 'read back')).toMatchObject({ score: 8 });
    const events = await readEvents(app, key, 'exam.graded');
    expect(events.some((event) => event.data.submission_id === submissionIds[0] && event.data.score === 8)).toBe(true);

    const resubmit = data<{ status: string }>(await api.post(`/app/grading/submissions/${submissionIds[1]}/grade`, { score: -1 }, bearer(grading)), 'resubmit');
    expect(resubmit.status).toBe('resubmission_requested');

    const log = data<{ items: Array<{ actor_email: string; action: string; description: string; target: Record<string, string> }> }>(
      await portal.get('/audit-log'),
      'audit log',
    );
    const fromLms = log.items.filter((entry) => entry.action === 'POST /v1/app/grading/submissions/{id}/grade');
    expect(fromLms).toHaveLength(2);
    expect(fromLms.map((entry) => entry.target.submission_id).sort()).toEqual([...submissionIds].sort());
    expect(fromLms.every((entry) => entry.actor_email === teacher.login_email && entry.target.via === 'lti_instructor_launch')).toBe(true);
  });

  it('refuses a score out of range in words, and changes nothing', async () => {
    const res = await api.post(`/app/grading/submissions/${submissionIds[0]}/grade`, { score: 11 }, bearer(grading));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'validation_error' });
    expect(data<{ score: number }>(await api.get(`/submissions/${submissionIds[0]}`), 'unchanged').score).toBe(8);
  });

  it("cannot open, nor grade, another exam's submission, nor reach anything else of the school", async () => {
    for (const res of [
      await api.get(`/app/grading/submissions/${otherSubmissionId}`, bearer(grading)),
      await api.post(`/app/grading/submissions/${otherSubmissionId}/grade`, { score: 1 }, bearer(grading)),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
    expect(data<{ status: string; score: number | null }>(await api.get(`/submissions/${otherSubmissionId}`), 'untouched')).toMatchObject({
      status: 'submitted',
      score: null,
    });
    for (const path of ['/app/exams', `/app/exams/${otherExamId}`, '/app/devices', '/students']) {
      const res = await api.get(path, bearer(grading));
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(path === '/students' ? 401 : 403);
    }
    expect(data<{ id: string }>(await api.get('/app/me', bearer(grading)), 'me').id).toBe(teacher.id);
  });

  it('a session from any other way in cannot grade: a student, a teacher signed in by the integration, a student launched by the LMS', async () => {
    const studentSession = await learnerSession(app, key, students[0]!);
    const facultySession = await learnerSession(app, key, teacher);
    for (const session of [studentSession, facultySession]) {
      const res = await api.get('/app/grading', bearer(session));
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    // POST /sso/tokens has no way to ask for a grading session: an unknown field is refused.
    const minted = await api.post('/sso/tokens', { email: teacher.login_email, app: 'learning', grading_exam_id: examId });
    expect(minted.status).toBe(422);
    const studentLaunch = await launch({ sub: 'lms-ada', email: students[0]!.login_email, roles: [LTI.learner], resourceLinkId: 'rl-loops' });
    expect(studentLaunch.status).toBe(302);
    const session = await exchange(studentLaunch.headers.location as string);
    expect(session.grading_exam_id).toBeNull();
    expect((await api.get('/app/grading', bearer(session.session_token))).status).toBe(403);
  });

  it("the launched page may be framed by the platform's origins (issuer, sign-in URL, listed) and by no one else", async () => {
    const framed = await app.http.get('/launch').query({ lti: platformId });
    expect(framed.status).toBe(200);
    const csp = String(framed.headers['content-security-policy']);
    const ancestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1]?.split(' ');
    expect(ancestors?.sort()).toEqual(["'self'", platform.origin, 'https://school.lms.example'].sort());
    expect(framed.headers['x-frame-options']).toBeUndefined();

    for (const query of [{}, { lti: 'ltp_unknown' }]) {
      const page = await app.http.get('/launch').query(query);
      expect(/frame-ancestors ([^;]+)/.exec(String(page.headers['content-security-policy']))?.[1]).toBe("'self'");
      expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
    // The portal itself is never framable.
    expect(/frame-ancestors ([^;]+)/.exec(String((await app.http.get('/').query({ lti: platformId })).headers['content-security-policy']))?.[1]).toBe("'self'");
  });

  it("the deep linking picker, a form, may be framed only by its platform's origins", async () => {
    const picker = await launch({ sub: 'lms-grace', email: teacher.login_email, roles: [LTI.instructor], messageType: 'LtiDeepLinkingRequest' });
    expect(picker.status, picker.text).toBe(200);
    const ancestors = /frame-ancestors ([^;]+)/.exec(String(picker.headers['content-security-policy']))?.[1]?.split(' ');
    expect(ancestors?.sort()).toEqual(["'self'", platform.origin, 'https://school.lms.example'].sort());
  });

  it("a login offering LTI Platform Storage hands its frame and the sign-in URL's origin to the page; a malformed target is ignored", async () => {
    const offered = await launch(
      { sub: 'lms-ada', email: students[0]!.login_email, roles: [LTI.learner], resourceLinkId: 'rl-loops' },
      {
        lti_storage_target: 'post_message_forwarding',
      },
    );
    const location = new URL(offered.headers.location as string);
    expect(location.searchParams.get('lti_storage_target')).toBe('post_message_forwarding');
    expect(location.searchParams.get('lti_storage_origin')).toBe(new URL(platform.authUrl).origin);

    const malformed = await launch(
      { sub: 'lms-ada', email: students[0]!.login_email, roles: [LTI.learner], resourceLinkId: 'rl-loops' },
      {
        lti_storage_target: '<script>',
      },
    );
    const plain = new URL(malformed.headers.location as string);
    expect(plain.searchParams.has('lti_storage_target')).toBe(false);
    expect(plain.searchParams.has('lti_storage_origin')).toBe(false);
  });

  it('frame origins are origins: a path or a wildcard is refused in words, by field', async () => {
    const res = await portal.patch(`/lti/platforms/${platformId}`, { frame_origins: ['https://ok.example', 'https://*.example', 'https://x.example/course'] });
    expect(res.status).toBe(422);
    expect(res.body.details.map((detail: { path: string }) => detail.path)).toEqual(['frame_origins.1', 'frame_origins.2']);
    const listed = data<{ platforms: Array<{ id: string; listed_frame_origins: string[] }> }>(await portal.get('/lti'), 'overview');
    expect(listed.platforms.find((row) => row.id === platformId)?.listed_frame_origins).toEqual(['https://school.lms.example']);
  });
});
