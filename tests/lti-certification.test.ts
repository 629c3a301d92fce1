// @tier integration
// @databases sqlite: the launch checks are the same on both databases; provisioning's writes run on both in tests/lti.test.ts
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLearner, isTeacher, launchRoles } from '../server/commands/lti/claims.js';
import { cliOk, runCliCaptured } from './helpers/cli.js';
import { certificationCases, PII, type CertificationCase } from './helpers/lti-certification.js';
import { LTI, LtiPlatform, type LaunchPlan } from './helpers/lti-platform.js';
import { makePerson, makeSchool, readEvents, startTestAppliance, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { institutionApi, portalRequests, signedInMember } from './helpers/portal.js';

/**
 * The LTI 1.3 certification launch cases (tests/helpers/lti-certification.ts) replayed by a test
 * platform registered with provisioning on: every known bad payload refused as
 * `401 LAUNCH_TOKEN_INVALID` with its reason, every valid launch accepted whatever PII it carries,
 * and a valid launch whose roles name no learner or teacher refused in words as
 * `403 role_not_supported`, provisioning no one (docs/lms.md#roles).
 */
describe('LTI 1.3 certification launch cases', () => {
  let app: TestAppliance;
  let platform: LtiPlatform;
  let key: TestKey;
  let institutionId: string;
  let examId: string;
  let platformId: string;
  let cases: CertificationCase[];

  beforeAll(async () => {
    // The platform is on 127.0.0.1: allowed the way webhook tests allow their receivers.
    app = await startTestAppliance({
      config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1], sweepSeconds: 60, timeoutMs: 3000 } },
    });
    platform = await LtiPlatform.start();
    const school = await makeSchool(app, { scopes: ['all'] });
    key = school.key;
    institutionId = school.inst.id;
    const teacher = await makePerson(app, key, 'faculty', 'Grace Hopper');
    const exam = await app.http
      .post('/v1/exams')
      .set('Authorization', key.auth)
      .send({ faculty_id: teacher.id, title: 'Certification quiz', app: 'learning', max_score: 10, time_limit_minutes: 30 });
    expect(exam.status, JSON.stringify(exam.body)).toBe(200);
    examId = exam.body.data.id;
    expect((await app.http.post(`/v1/exams/${examId}/publish`).set('Authorization', key.auth)).status).toBe(200);

    cliOk(await runCliCaptured(app, 'settings', 'set', 'public_url', app.origin));
    const tool = cliOk<{ jwks_url: string }>(await runCliCaptured(app, 'lti', 'tool-config', '--institution', institutionId));
    platform.toolJwksUrl = tool.jwks_url;
    const admin = await signedInMember(app, institutionId, 'admin');
    const portal = portalRequests(
      () => admin,
      () => institutionApi(institutionId),
    );
    const added = await portal.post('/lti/platforms', {
      name: 'Cert LMS',
      issuer: platform.issuer,
      client_id: platform.clientId,
      deployment_ids: [platform.deploymentId],
      auth_url: platform.authUrl,
      token_url: platform.tokenUrl,
      jwks_url: platform.jwksUrl,
      provision_users: true,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    platformId = added.body.data.id;
    expect((await portal.post('/lti/links', { platform_id: platformId, resource_link_id: 'rl-cert', exam_id: examId })).status).toBe(200);
    cases = certificationCases({ strangerKey: await LtiPlatform.unpublishedKey('kid-unknown') });
  });
  afterAll(async () => {
    await platform?.close();
    await app?.close();
  });

  /** Login initiation → the platform's authorization endpoint → its form's id_token and state, for `plan`. */
  async function authorize(plan: LaunchPlan) {
    platform.plan = plan;
    const login = await app.http.get('/lti/login').query({
      iss: platform.issuer,
      login_hint: plan.sub || 'someone',
      target_link_uri: `${app.origin}/lti/launch`,
      client_id: platform.clientId,
      lti_deployment_id: platform.deploymentId,
    });
    expect(login.status, JSON.stringify(login.body)).toBe(302);
    return platform.authorize(login.headers.location as string);
  }

  /** A full launch (name, e-mail, context) for a subject of its own, changed as the case says. */
  function planOf(testCase: CertificationCase, index: number): LaunchPlan {
    const sub = `cert-user-${index + 1}`;
    return {
      sub,
      email: `${sub}@lms.example`,
      roles: [LTI.learner],
      resourceLinkId: 'rl-cert',
      ...testCase.plan,
      claims: { ...PII, ...testCase.plan.claims },
    };
  }

  const people = async () => app.ctx.db.models.Person.count({ where: { institution_id: institutionId } });
  /** What the learner page does with the launch link: spends its token; a teacher's session grades the linked exam, a student's none. */
  const gradingExamOf = async (location: string): Promise<string | null | undefined> => {
    const exchanged = await app.http.post('/v1/sso/exchange').send({ token: new URL(location).searchParams.get('token') });
    return exchanged.status === 200 ? (exchanged.body.data.grading_exam_id as string | null) : undefined;
  };

  it('has the 33 cases: 12 known bad payloads, 9 valid teacher and 9 valid student launches, 3 beside the suite', () => {
    const count = (section: CertificationCase['section']) => cases.filter((testCase) => testCase.section === section).length;
    expect([cases.length, count('known bad payloads'), count('valid teacher launches'), count('valid student launches'), count('beside the suite')]).toEqual([
      33, 12, 9, 9, 3,
    ]);
    expect(new Set(cases.map((testCase) => testCase.name)).size).toBe(33);
  });

  it('answers every case right', async () => {
    const wrong: string[] = [];
    for (const [index, testCase] of cases.entries()) {
      const before = await people();
      const answer = await authorize(planOf(testCase, index));
      const idToken = testCase.mangle ? testCase.mangle(answer.id_token) : answer.id_token;
      const res = await app.http.post('/lti/launch').type('form').send({ id_token: idToken, state: answer.state });
      const got = `${res.status} ${res.body?.error ?? ''} ${res.body?.message ?? res.headers.location ?? ''}`;
      const location = String(res.headers.location ?? '');
      const { expect: expected } = testCase;
      const right =
        expected.kind === 'refused'
          ? res.status === 401 && res.body.error === 'LAUNCH_TOKEN_INVALID' && expected.reason.test(res.body.message) && (await people()) === before
          : expected.kind === 'role_not_supported'
            ? res.status === 403 && res.body.error === 'role_not_supported' && (await people()) === before
            : expected.kind === 'picker'
              ? res.status === 200 && res.text.includes('Certification quiz')
              : res.status === 302 &&
                location.startsWith(`${app.origin}/launch?token=`) &&
                (await gradingExamOf(location)) === (expected.as === 'teacher' ? examId : null);
      if (!right)
        wrong.push(
          `${testCase.section} / ${testCase.name}: expected ${JSON.stringify(expected, (_k, v: unknown) => (v instanceof RegExp ? String(v) : v))}, got ${got}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it('a launch with no name provisions a placeholder from the platform and the subject, replaced when a later launch carries a name', async () => {
    const plan: LaunchPlan = { sub: 'cert-anonymous-7', roles: ['Learner'], resourceLinkId: 'rl-cert', claims: {} };
    const first = await app.http
      .post('/lti/launch')
      .type('form')
      .send(await authorize(plan));
    expect(first.status, JSON.stringify(first.body)).toBe(302);
    const subject = await app.ctx.db.models.LtiSubject.findOne({ where: { platform_id: platformId, subject: 'cert-anonymous-7' } });
    const created = await app.ctx.db.models.Person.findByPk(subject!.person_id);
    expect(created).toMatchObject({ role: 'student', full_name: 'Cert LMS user cert-anonymous-7' });

    const named = await app.http
      .post('/lti/launch')
      .type('form')
      .send(await authorize({ ...plan, claims: { given_name: 'Ada', family_name: 'Byron' } }));
    expect(named.status, JSON.stringify(named.body)).toBe(302);
    expect((await created!.reload()).full_name).toBe('Ada Byron');
    const updated = (await readEvents(app, key, 'student.updated')).filter((event) => event.data.student_id === created!.id);
    expect(updated.map((event) => event.data.changed)).toEqual([['full_name']]);

    // A name the school gave is the school's: a launch never overwrites it.
    await created!.update({ full_name: 'Ada King' });
    expect(
      (
        await app.http
          .post('/lti/launch')
          .type('form')
          .send(await authorize({ ...plan, claims: { name: 'Someone Else' } }))
      ).status,
    ).toBe(302);
    expect((await created!.reload()).full_name).toBe('Ada King');
  });

  it("a browser's refused launch gets a page in words with the same status; a JSON caller the envelope", async () => {
    const noKid = await authorize({ sub: 'cert-browser', roles: [LTI.learner], resourceLinkId: 'rl-cert', omitKid: true, claims: PII });
    const page = await app.http.post('/lti/launch').type('form').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8').send(noKid);
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('CampusBridge could not open this activity');
    expect(page.text).toContain('the id_token&#39;s header has no kid');
    expect(page.text).toContain('<code>LAUNCH_TOKEN_INVALID</code>');
    // The page may be framed by the LMS, and runs no script.
    expect(page.headers['content-security-policy']).toMatch(/script-src 'none'.*frame-ancestors/);

    const mentor = await authorize({ sub: 'cert-browser', roles: ['Mentor'], resourceLinkId: 'rl-cert', claims: PII });
    const forbidden = await app.http.post('/lti/launch').type('form').set('Accept', 'text/html').send(mentor);
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).toContain('CampusBridge cannot open this for you');
    expect(forbidden.text).toContain('role_not_supported');

    const asJson = await authorize({ sub: 'cert-browser', roles: [LTI.learner], resourceLinkId: 'rl-cert', omitKid: true, claims: PII });
    const envelope = await app.http.post('/lti/launch').type('form').set('Accept', 'application/json').send(asJson);
    expect(envelope.status).toBe(401);
    expect(envelope.body).toMatchObject({ success: false, error: 'LAUNCH_TOKEN_INVALID' });
  });

  it('a person the school already has launches with no role: refused in words, not matched and not changed', async () => {
    const known = await makePerson(app, key, 'students', 'Known Student');
    const res = await app.http
      .post('/lti/launch')
      .type('form')
      .send(
        await authorize({
          sub: 'cert-known',
          email: known.login_email,
          roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor'],
          resourceLinkId: 'rl-cert',
        }),
      );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: 'role_not_supported' });
    expect(res.body.message).toContain('http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor');
    expect(await app.ctx.db.models.LtiSubject.count({ where: { platform_id: platformId, subject: 'cert-known' } })).toBe(0);
  });
});

describe('LTI roles (LTI 1.3 Core §A.2)', () => {
  const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership#';
  const INSTITUTION = 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#';

  it('short names stand for membership roles, and a sub-role counts as its principal role', () => {
    expect(launchRoles(['Instructor', ' Learner ', 'http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant', 7, ''])).toEqual([
      `${MEMBERSHIP}Instructor`,
      `${MEMBERSHIP}Learner`,
      'http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant',
    ]);
    expect(launchRoles('Instructor')).toEqual([]);
  });

  it("the course's roles decide over the institution's; the institution's decide a launch without a context role", () => {
    expect([isTeacher(['Learner', `${INSTITUTION}Faculty`]), isLearner(['Learner', `${INSTITUTION}Faculty`])]).toEqual([false, true]);
    expect([isTeacher([`${INSTITUTION}Faculty`]), isLearner([`${INSTITUTION}Student`])]).toEqual([true, true]);
    expect([isTeacher([`${MEMBERSHIP}Mentor`]), isLearner([`${MEMBERSHIP}Mentor`]), isTeacher([]), isLearner(undefined)]).toEqual([false, false, false, false]);
  });
});
