// @tier integration
// @databases sqlite, postgres
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOk, runCliCaptured } from './helpers/cli.js';
import { LTI, LtiPlatform, type LaunchPlan } from './helpers/lti-platform.js';
import { makePerson, makeSchool, startTestAppliance, type TestAppliance, type TestKey, type TestPerson } from './helpers/appliance.js';
import { institutionApi, portalRequests, signedInMember } from './helpers/portal.js';
import { waitFor } from './helpers/wait.js';

/**
 * The appliance as an LTI 1.3 tool against a platform written from the 1EdTech specifications
 * (tests/helpers/lti-platform.ts), everything on 127.0.0.1: login initiation → launch → learner
 * page, each refused id_token, deep linking, and grades back through AGS with a retry.
 */
describe('LTI 1.3 tool', () => {
  let app: TestAppliance;
  let platform: LtiPlatform;
  let key: TestKey;
  let institutionId: string;
  let student: TestPerson & { login_email: string };
  let teacher: TestPerson & { login_email: string };
  let examId: string;
  let platformId: string;
  let tool: { login_url: string; launch_url: string; redirect_urls: string[]; jwks_url: string; public_jwk: Record<string, unknown>; deep_linking_url: string };

  const api = {
    get: (path: string, auth = key.auth) => app.http.get(`/v1${path}`).set('Authorization', auth),
    post: (path: string, body: object = {}, auth = key.auth) => app.http.post(`/v1${path}`).set('Authorization', auth).send(body),
  };
  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    // The platform is on 127.0.0.1: allowed the way webhook tests allow their receivers.
    app = await startTestAppliance({
      config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1], sweepSeconds: 1, timeoutMs: 3000 } },
    });
    platform = await LtiPlatform.start();
    const school = await makeSchool(app, { scopes: ['all'] });
    key = school.key;
    institutionId = school.inst.id;
    student = (await makePerson(app, key, 'students', 'Ada Lovelace')) as typeof student;
    teacher = (await makePerson(app, key, 'faculty', 'Grace Hopper')) as typeof teacher;
    const group = data<{ id: string }>(await api.post('/groups', { name: 'CS 101', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
    const exam = data<{ id: string }>(
      await api.post('/exams', { faculty_id: teacher.id, title: 'Loops quiz', app: 'learning', max_score: 100, time_limit_minutes: 30 }),
      'exam',
    );
    examId = exam.id;
    data(await api.post(`/exams/${examId}/publish`), 'publish');
    data(await api.post(`/exams/${examId}/assignments`, { group_ids: [group.id] }), 'assign');

    // Registration the way an IT admin does it from the command line, on the address LMS users' browsers reach.
    cliOk(await runCliCaptured(app, 'settings', 'set', 'public_url', app.origin));
    tool = cliOk(await runCliCaptured(app, 'lti', 'tool-config', '--institution', institutionId));
    platform.toolJwksUrl = tool.jwks_url;
    const added = cliOk<{ id: string; issuer: string; client_id: string; provision_users: boolean }>(
      await runCliCaptured(
        app,
        'lti',
        'platform',
        'add',
        '--institution',
        institutionId,
        '--issuer',
        platform.issuer,
        '--client-id',
        platform.clientId,
        '--deployment-id',
        platform.deploymentId,
        '--auth-url',
        platform.authUrl,
        '--token-url',
        platform.tokenUrl,
        '--jwks-url',
        platform.jwksUrl,
      ),
    );
    expect(added).toEqual({ id: expect.stringMatching(/^ltp_/), issuer: platform.issuer, client_id: platform.clientId, provision_users: false });
    platformId = added.id;
    expect(cliOk(await runCliCaptured(app, 'lti', 'link', '--platform', platformId, '--resource-link-id', 'rl-1', '--exam', examId))).toEqual({
      platform_id: platformId,
      resource_link_id: 'rl-1',
      exam_id: examId,
    });
  });
  afterAll(async () => {
    await platform?.close();
    await app?.close();
  });

  /** Login initiation (GET, or POST as form) → the platform's authorization endpoint → its form's id_token and state. */
  async function authorize(plan: LaunchPlan, method: 'get' | 'post' = 'get', lms: LtiPlatform = platform) {
    lms.plan = plan;
    const params = {
      iss: lms.issuer,
      login_hint: plan.sub,
      target_link_uri: tool.launch_url,
      lti_message_hint: 'message-hint-9',
      client_id: lms.clientId,
      lti_deployment_id: lms.deploymentId,
    };
    const login = method === 'get' ? await app.http.get('/lti/login').query(params) : await app.http.post('/lti/login').type('form').send(params);
    expect(login.status, JSON.stringify(login.body)).toBe(302);
    return lms.authorize(login.headers.location as string);
  }
  const postLaunch = (answer: { id_token: string; state: string }) => app.http.post('/lti/launch').type('form').send(answer);

  const studentPlan = (extra: Partial<LaunchPlan> = {}): LaunchPlan => ({
    sub: 'lms-user-ada',
    email: student.login_email,
    roles: [LTI.learner],
    resourceLinkId: 'rl-1',
    lineItem: platform.lineItemUrl('li-1'),
    ...extra,
  });

  async function expectRefused(answer: { id_token: string; state: string }, reason: RegExp) {
    const res = await postLaunch(answer);
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'LAUNCH_TOKEN_INVALID' });
    expect(res.body.message).toMatch(reason);
  }

  /** The learner page's own steps: exchange the launch link's token, then open the exam it names. */
  async function learnerOpens(location: string) {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(`${app.origin}/launch`);
    const exchanged = data<{ session_token: string; redirect: string | null }>(
      await app.http.post('/v1/sso/exchange').send({ token: url.searchParams.get('token') }),
      'exchange',
    );
    const opened = data<{ id: string; title: string }>(await api.get(`/app/exams/${examId}`, `Bearer ${exchanged.session_token}`), 'open exam');
    return { ...exchanged, opened };
  }

  it('prints the tool side on public_url with a public JWK that the key set serves', async () => {
    expect(tool).toMatchObject({
      login_url: `${app.origin}/lti/login`,
      launch_url: `${app.origin}/lti/launch`,
      redirect_urls: [`${app.origin}/lti/launch`],
      jwks_url: `${app.origin}/lti/jwks`,
      deep_linking_url: `${app.origin}/lti/launch`,
    });
    expect(tool.public_jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(tool.public_jwk).not.toHaveProperty('d');
    const jwks = await app.http.get('/lti/jwks');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toContainEqual(tool.public_jwk);
  });

  it('login initiation → authorization request → launch → the learner page opens the linked exam', async () => {
    const answer = await authorize(studentPlan());
    const request = platform.authRequests.at(-1)!;
    expect(request).toMatchObject({
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: platform.clientId,
      redirect_uri: tool.launch_url,
      login_hint: 'lms-user-ada',
      lti_message_hint: 'message-hint-9',
    });
    expect(answer.action).toBe(tool.launch_url);
    const launched = await postLaunch(answer);
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
    const { redirect, opened } = await learnerOpens(launched.headers.location as string);
    expect(redirect).toBe(`exam:${examId}`);
    expect(opened).toMatchObject({ id: examId, title: 'Loops quiz' });
  });

  it('login initiation by POST works the same', async () => {
    const launched = await postLaunch(await authorize(studentPlan(), 'post'));
    expect(launched.status).toBe(302);
    expect((await learnerOpens(launched.headers.location as string)).redirect).toBe(`exam:${examId}`);
  });

  it("a teacher's launch opens the learner page on a session that grades the linked exam (tests/lti-grading.test.ts has the rest)", async () => {
    const launched = await postLaunch(await authorize({ sub: 'lms-user-grace', email: teacher.login_email, roles: [LTI.instructor], resourceLinkId: 'rl-1' }));
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
    const url = new URL(launched.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${app.origin}/launch`);
    expect(url.searchParams.get('lti')).toBe(platformId);
    const exchanged = data<{ grading_exam_id: string | null; user: { id: string } }>(
      await app.http.post('/v1/sso/exchange').send({ token: url.searchParams.get('token') }),
      'exchange',
    );
    expect(exchanged).toMatchObject({ grading_exam_id: examId, user: { id: teacher.id } });
  });

  it('a forged signature is refused', async () => {
    const forger = await LtiPlatform.unpublishedKey('platform-key-1');
    await expectRefused(await authorize(studentPlan({ signWith: forger })), /signature/);
  });

  it('an expired id_token is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await authorize(studentPlan({ claims: { iat: now - 900, exp: now - 600 } })), /expired/);
  });

  it('a replayed id_token is refused: its state is spent, and with a new state its nonce is not that login’s', async () => {
    const answer = await authorize(studentPlan());
    expect((await postLaunch(answer)).status).toBe(302);
    await expectRefused(answer, /state/);
    const fresh = await authorize(studentPlan());
    await expectRefused({ id_token: answer.id_token, state: fresh.state }, /nonce/);
  });

  it('an id_token for another audience is refused', async () => {
    await expectRefused(await authorize(studentPlan({ claims: { aud: 'some-other-tool' } })), /aud/);
  });

  it('an unknown kid that the key set lacks even after a refetch is refused', async () => {
    const stranger = await LtiPlatform.unpublishedKey('kid-nobody-published');
    await expectRefused(await authorize(studentPlan({ signWith: stranger })), /kid-nobody-published/);
  });

  it('a deployment the platform was not registered with, a wrong version and a made-up state are refused', async () => {
    await expectRefused(await authorize(studentPlan({ claims: { [LTI.deploymentId]: 'deployment-x' } })), /deployment/);
    await expectRefused(await authorize(studentPlan({ claims: { [LTI.version]: '1.1' } })), /version/);
    await expectRefused({ id_token: 'a.b.c', state: 'made-up-state' }, /state/);
  });

  it("the platform's key rotation is picked up by refetching its key set on the new kid", async () => {
    await platform.rotateKey('platform-key-2');
    // jose refetches a key set at most once a second (cooldown): wait past it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const launched = await postLaunch(await authorize(studentPlan()));
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
  });

  it('deep linking: the teacher picks an exam and the platform receives a signed LtiDeepLinkingResponse', async () => {
    const picker = await postLaunch(
      await authorize({ sub: 'lms-user-grace', email: teacher.login_email, roles: [LTI.instructor], messageType: 'LtiDeepLinkingRequest' }),
    );
    expect(picker.status, picker.text).toBe(200);
    expect(picker.text).toContain('Loops quiz');
    const context = /name="context" value="([^"]+)"/.exec(picker.text)?.[1];
    expect(context).toBeTruthy();
    const chosen = await app.http.post('/lti/deep-link').type('form').send({ context, exam_id: examId });
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.text).toContain(`action="${platform.deepLinkReturnUrl}"`);
    const jwt = /name="JWT" value="([^"]+)"/.exec(chosen.text)?.[1] ?? '';
    // The platform verifies the response with the tool's key set, as Deep Linking 2.0 §4.2 asks.
    const { payload, protectedHeader } = await jwtVerify(jwt, createRemoteJWKSet(new URL(tool.jwks_url)), {
      issuer: platform.clientId,
      audience: platform.issuer,
    });
    expect(protectedHeader.kid).toBe(tool.public_jwk.kid);
    expect(payload).toMatchObject({
      nonce: expect.any(String),
      [LTI.messageType]: 'LtiDeepLinkingResponse',
      [LTI.version]: '1.3.0',
      [LTI.deploymentId]: platform.deploymentId,
      [LTI.data]: 'opaque-platform-data-7',
    });
    expect(payload[LTI.contentItems]).toEqual([
      {
        type: 'ltiResourceLink',
        title: 'Loops quiz',
        url: tool.launch_url,
        custom: { exam_id: examId },
        lineItem: { scoreMaximum: 100, label: 'Loops quiz', resourceId: examId },
      },
    ]);
    // The platform makes a resource link for the item and launches it with the item's custom parameters.
    const launched = await postLaunch(
      await authorize(
        studentPlan({
          resourceLinkId: 'rl-from-deep-link',
          lineItem: undefined,
          claims: { 'https://purl.imsglobal.org/spec/lti/claim/custom': { exam_id: examId } },
        }),
      ),
    );
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
    expect((await learnerOpens(launched.headers.location as string)).redirect).toBe(`exam:${examId}`);
  });

  it('a platform-signed deep linking request whose return URL is not an http(s) URL is refused in words, not a 500', async () => {
    for (const returnUrl of ['not a url', 'javascript:alert(1)']) {
      const res = await postLaunch(
        await authorize({
          sub: 'lms-user-grace',
          email: teacher.login_email,
          roles: [LTI.instructor],
          messageType: 'LtiDeepLinkingRequest',
          claims: { [LTI.deepLinkingSettings]: { deep_link_return_url: returnUrl, accept_types: ['ltiResourceLink'] } },
        }),
      );
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
      expect(res.body.message).toMatch(/deep_link_return_url is not an http\(s\) URL/);
    }
  });

  it('a learner cannot open the exam picker', async () => {
    const res = await postLaunch(await authorize({ ...studentPlan(), messageType: 'LtiDeepLinkingRequest' }));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it("a grade reaches the platform's score endpoint in the exact AGS format, retried after the platform fails once", async () => {
    const launched = await postLaunch(await authorize(studentPlan()));
    const { session_token: session } = await learnerOpens(launched.headers.location as string);
    const attempt = data<{ id: string }>(await api.post(`/app/exams/${examId}/attempts`, {}, `Bearer ${session}`), 'attempt');
    const submitted = data<{ id: string }>(await api.post(`/app/attempts/${attempt.id}/submit`, { answers: { q1: 'for' } }, `Bearer ${session}`), 'submit');
    platform.failScores = [500];
    const graded = data<{ graded_at: string }>(await api.post(`/submissions/${submitted.id}/grade`, { score: 87 }), 'grade');

    await waitFor(() => platform.scores.length === 1, 'the score at the platform', 20_000);
    const [score] = platform.scores;
    expect(score!.path).toBe('/lineitems/li-1/scores');
    expect(score!.contentType).toBe('application/vnd.ims.lis.v1.score+json');
    expect(score!.body).toEqual({
      userId: 'lms-user-ada',
      scoreGiven: 87,
      scoreMaximum: 100,
      timestamp: graded.graded_at,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
    });
    // The token came by client_credentials with a client assertion signed by the tool's key.
    const token = platform.tokenRequests.at(-1)!;
    expect(token.scope).toBe(LTI.scoreScope);
    expect(token.header.kid).toBe(tool.public_jwk.kid);

    // Visible in the portal like a webhook delivery: one failed attempt (500), then the accepted one.
    const admin = await signedInMember(app, institutionId, 'admin');
    const portal = portalRequests(
      () => admin,
      () => institutionApi(institutionId),
    );
    const listed = await portal.get('/lti/score-posts');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.items).toHaveLength(1);
    const post = listed.body.data.items[0];
    expect(post).toMatchObject({ status: 'succeeded', attempt_count: 2, submission_id: submitted.id });
    expect(post.attempts.map((a: { response_status: number }) => a.response_status)).toEqual([500, 204]);
  });
  it("the tool's signing key rotates: a new kid signs at once, the old stays in the key set for the grace period", async () => {
    const oldKid = tool.public_jwk.kid as string;
    const rotated = cliOk<{ kid: string; retired: Array<{ kid: string; drop_at: string }> }>(
      await runCliCaptured(app, 'lti', 'rotate-key', '--grace-days', '2'),
    );
    expect(rotated.kid).not.toBe(oldKid);
    expect(rotated.retired.map((key) => key.kid)).toEqual([oldKid]);
    expect(Date.parse(rotated.retired[0]!.drop_at) - Date.now()).toBeGreaterThan(47 * 3600 * 1000);
    const kids = async () => ((await app.http.get('/lti/jwks')).body.keys as Array<{ kid: string }>).map((key) => key.kid);
    expect(await kids()).toEqual([rotated.kid, oldKid]);

    // What the tool signs now carries the new kid and verifies with the key set.
    const picker = await postLaunch(
      await authorize({ sub: 'lms-user-grace', email: teacher.login_email, roles: [LTI.instructor], messageType: 'LtiDeepLinkingRequest' }),
    );
    const context = /name="context" value="([^"]+)"/.exec(picker.text)?.[1];
    const chosen = await app.http.post('/lti/deep-link').type('form').send({ context, exam_id: examId });
    const jwt = /name="JWT" value="([^"]+)"/.exec(chosen.text)?.[1] ?? '';
    const { protectedHeader } = await jwtVerify(jwt, createRemoteJWKSet(new URL(tool.jwks_url)), { issuer: platform.clientId, audience: platform.issuer });
    expect(protectedHeader.kid).toBe(rotated.kid);

    // A rotation with no grace drops the retired key from the set at once.
    const again = cliOk<{ kid: string }>(await runCliCaptured(app, 'lti', 'rotate-key', '--grace-days', '0'));
    expect(await kids()).toEqual([again.kid, oldKid]);
  });
  it('the CLI refuses bad registrations with the error code, changing nothing', async () => {
    const base = ['lti', 'platform', 'add', '--institution', institutionId, '--client-id', 'other', '--deployment-id', '1'];
    const urls = ['--auth-url', platform.authUrl, '--token-url', platform.tokenUrl];
    const neither = await runCliCaptured(app, ...base, '--issuer', 'https://lms.other.example', ...urls);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/^error validation_error: /);
    const taken = await runCliCaptured(
      app,
      ...base.slice(0, 5),
      '--client-id',
      platform.clientId,
      '--deployment-id',
      '1',
      '--issuer',
      platform.issuer,
      ...urls,
      '--jwks-url',
      platform.jwksUrl,
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^error conflict: /);
    const badUrl = await runCliCaptured(app, ...base, '--issuer', 'not a url', ...urls, '--jwks-url', platform.jwksUrl);
    expect(badUrl.stderr).toMatch(/^error validation_error: issuer/);
    const unknown = await runCliCaptured(app, 'lti', 'link', '--platform', 'ltp_nope', '--resource-link-id', 'x', '--exam', examId);
    expect(unknown.stderr).toMatch(/^error not_found: /);
    const badLogin = await app.http.get('/lti/login').query({ iss: 'https://unknown.example', login_hint: 'x', target_link_uri: tool.launch_url });
    expect(badLogin.status).toBe(422);
    expect(badLogin.body.error).toBe('validation_error');
    expect(await app.ctx.db.models.LtiPlatform.count()).toBe(1);
  });
  describe('provisioning at launch', () => {
    let lms: LtiPlatform;
    let portal: ReturnType<typeof portalRequests>;
    beforeAll(async () => {
      lms = await LtiPlatform.start();
      lms.toolJwksUrl = tool.jwks_url;
      const admin = await signedInMember(app, institutionId, 'admin');
      portal = portalRequests(
        () => admin,
        () => institutionApi(institutionId),
      );
    });
    afterAll(async () => {
      await lms?.close();
    });
    const learnerPlan = (sub: string, email: string): LaunchPlan => ({
      sub,
      email,
      roles: [LTI.learner],
      resourceLinkId: 'rl-provisioned',
      claims: { name: 'Mary Somerville', given_name: 'Mary', family_name: 'Somerville' },
    });

    it('off (the default): an unknown learner is refused with 404 user_not_found and nobody is created', async () => {
      const students = await app.ctx.db.models.Person.count({ where: { role: 'student' } });
      const res = await postLaunch(await authorize(learnerPlan('lms-user-nobody', 'nobody@family.example')));
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: 'user_not_found' });
      expect(await app.ctx.db.models.Person.count({ where: { role: 'student' } })).toBe(students);
    });

    it('on: an unknown learner becomes a student (student.created) and lands on the linked exam; an unknown instructor becomes faculty', async () => {
      const added = await portal.post('/lti/platforms', {
        name: 'Provisioning LMS',
        issuer: lms.issuer,
        client_id: lms.clientId,
        deployment_ids: [lms.deploymentId],
        auth_url: lms.authUrl,
        token_url: lms.tokenUrl,
        jwks_url: lms.jwksUrl,
        provision_users: true,
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect(added.body.data).toMatchObject({ issuer: lms.issuer, provision_users: true });
      const linked = await portal.post('/lti/links', { platform_id: added.body.data.id, resource_link_id: 'rl-provisioned', exam_id: examId });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);

      const launched = await postLaunch(await authorize(learnerPlan('lms-user-mary', 'mary@family.example'), 'get', lms));
      expect(launched.status, JSON.stringify(launched.body)).toBe(302);
      const location = new URL(launched.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(`${app.origin}/launch`);
      const exchanged = data<{ redirect: string | null }>(
        await app.http.post('/v1/sso/exchange').send({ token: location.searchParams.get('token') }),
        'exchange',
      );
      expect(exchanged.redirect).toBe(`exam:${examId}`);

      const listed = data<{ items: Array<{ id: string; full_name: string }> }>(await api.get('/students?limit=100'), 'students');
      const mary = listed.items.filter((item) => item.full_name === 'Mary Somerville');
      expect(mary).toHaveLength(1);
      const row = await app.ctx.db.models.Person.findByPk(mary[0]!.id);
      expect(row?.personal_email_index).not.toBeNull();
      const subject = await app.ctx.db.models.LtiSubject.findOne({ where: { platform_id: added.body.data.id, subject: 'lms-user-mary' } });
      expect(subject?.person_id).toBe(mary[0]!.id);
      const events = await app.ctx.db.models.Event.findAll({ where: { type: 'student.created' } });
      expect(events.map((event) => (event.data as { student_id: string }).student_id)).toContain(mary[0]!.id);

      // The second launch finds her by her subject: no second student.
      expect((await postLaunch(await authorize(learnerPlan('lms-user-mary', 'mary@family.example'), 'get', lms))).status).toBe(302);
      const again = data<{ items: Array<{ full_name: string }> }>(await api.get('/students?limit=100'), 'students');
      expect(again.items.filter((item) => item.full_name === 'Mary Somerville')).toHaveLength(1);

      const teacherLaunch = await postLaunch(
        await authorize(
          { sub: 'lms-user-emmy', roles: [LTI.instructor], resourceLinkId: 'rl-provisioned', claims: { given_name: 'Emmy', family_name: 'Noether' } },
          'get',
          lms,
        ),
      );
      expect(teacherLaunch.status, JSON.stringify(teacherLaunch.body)).toBe(302);
      const faculty = data<{ items: Array<{ full_name: string }> }>(await api.get('/faculty?limit=100'), 'faculty');
      expect(faculty.items.map((item) => item.full_name)).toContain('Emmy Noether');

      // The platform the CLI registered (provisioning off) still refuses the unknown.
      expect((await postLaunch(await authorize(learnerPlan('lms-user-mary', 'mary@family.example')))).status).toBe(404);
    });

    it('turned on later, in place: links and LMS subjects stay, the unknown learner is then created; the CLI turns it off again', async () => {
      const later = await LtiPlatform.start();
      later.toolJwksUrl = tool.jwks_url;
      try {
        const added = await portal.post('/lti/platforms', {
          name: 'Later LMS',
          issuer: later.issuer,
          client_id: later.clientId,
          deployment_ids: [later.deploymentId],
          auth_url: later.authUrl,
          token_url: later.tokenUrl,
          jwks_url: later.jwksUrl,
        });
        expect(added.status, JSON.stringify(added.body)).toBe(200);
        const platformId = added.body.data.id as string;
        expect((await portal.post('/lti/links', { platform_id: platformId, resource_link_id: 'rl-provisioned', exam_id: examId })).status).toBe(200);
        const launchAs = (sub: string) => authorize(learnerPlan(sub, `${sub}@family.example`), 'get', later).then(postLaunch);
        expect((await launchAs('lms-user-caroline')).status).toBe(404);

        const turnedOn = await portal.patch(`/lti/platforms/${platformId}`, { provision_users: true, name: 'Later LMS (provisioning)' });
        expect(turnedOn.status, JSON.stringify(turnedOn.body)).toBe(200);
        expect(turnedOn.body.data).toMatchObject({ id: platformId, name: 'Later LMS (provisioning)', provision_users: true, jwks_url: later.jwksUrl });
        expect((await launchAs('lms-user-caroline')).status).toBe(302);
        const subjects = () => app.ctx.db.models.LtiSubject.count({ where: { platform_id: platformId } });
        expect(await subjects()).toBe(1);

        // A change that does not hold is refused whole; the platform stays as it was.
        const noDeployment = await portal.patch(`/lti/platforms/${platformId}`, { deployment_ids: [] });
        expect([noDeployment.status, noDeployment.body.details?.[0]?.path]).toEqual([422, 'deployment_ids']);
        const badKey = await portal.patch(`/lti/platforms/${platformId}`, { public_key: 'not a key', provision_users: false });
        expect([badKey.status, badKey.body.details?.map((detail: { path: string }) => detail.path)]).toEqual([422, ['public_key']]);
        const unchanged = await app.ctx.db.models.LtiPlatform.findByPk(platformId);
        expect([unchanged?.jwks_url, unchanged?.public_key_pem, unchanged?.provision_users]).toEqual([later.jwksUrl, null, true]);
        expect((await portal.patch('/lti/platforms/ltp_doesnotexist0000000000000', { name: 'x' })).status).toBe(404);
        expect((await portal.patch(`/lti/platforms/${platformId}`, { issuer: 'https://elsewhere.example' })).status).toBe(422);

        const off = cliOk<{ provision_users: boolean; deployment_ids: string[] }>(
          await runCliCaptured(app, 'lti', 'platform', 'update', platformId, '--no-provision', '--deployment-id', `${later.deploymentId},dep-2`),
        );
        expect(off).toMatchObject({ provision_users: false, deployment_ids: [later.deploymentId, 'dep-2'] });
        expect((await launchAs('lms-user-sophie')).status).toBe(404);
        // Caroline, known by her subject now, still gets in; her link and subject survived every change.
        expect((await launchAs('lms-user-caroline')).status).toBe(302);
        expect(await subjects()).toBe(1);
        expect(await app.ctx.db.models.LtiResourceLink.count({ where: { platform_id: platformId } })).toBe(1);
      } finally {
        await later.close();
      }
    });
  });
  describe('dynamic registration', () => {
    let lms: LtiPlatform;
    let portal: ReturnType<typeof portalRequests>;
    beforeAll(async () => {
      lms = await LtiPlatform.start();
      lms.toolJwksUrl = tool.jwks_url;
      const admin = await signedInMember(app, institutionId, 'admin');
      portal = portalRequests(
        () => admin,
        () => institutionApi(institutionId),
      );
    });
    afterAll(async () => {
      await lms?.close();
    });
    async function registrationUrl(): Promise<string> {
      const made = await portal.post('/lti/registrations');
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const { url, expires_at: expiresAt } = made.body.data as { url: string; expires_at: string };
      expect(url).toMatch(new RegExp(`^${app.origin}/lti/register\\?token=`));
      expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
      return url;
    }
    const open = (url: string, params: Record<string, string>) => app.http.get(url.slice(app.origin.length)).query(params);

    it('the LMS opens the URL: the tool registers at its registration endpoint, the platform is stored, and a launch with the new client id works', async () => {
      const url = await registrationUrl();
      const res = await open(url, { openid_configuration: lms.openidConfigurationUrl, registration_token: lms.registrationToken });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toContain('CampusBridge is registered');
      const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers['content-security-policy'] as string)?.[1];
      expect(res.text).toContain(
        `<script nonce="${nonce}">(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');</script>`,
      );

      expect(lms.registrations).toHaveLength(1);
      const [registration] = lms.registrations;
      expect(registration!.authorization).toBe(`Bearer ${lms.registrationToken}`);
      expect(registration!.contentType).toBe('application/json');
      expect(registration!.body).toEqual({
        application_type: 'web',
        response_types: ['id_token'],
        grant_types: ['implicit', 'client_credentials'],
        initiate_login_uri: tool.login_url,
        redirect_uris: [tool.launch_url],
        client_name: expect.stringMatching(/^CampusBridge/),
        jwks_uri: tool.jwks_url,
        token_endpoint_auth_method: 'private_key_jwt',
        scope:
          'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem https://purl.imsglobal.org/spec/lti-ags/scope/score https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
        'https://purl.imsglobal.org/spec/lti-tool-configuration': {
          domain: new URL(app.origin).host,
          target_link_uri: tool.launch_url,
          claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
          messages: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest', target_link_uri: tool.deep_linking_url }],
        },
      });

      const overview = await portal.get('/lti');
      const stored = (overview.body.data.platforms as Array<Record<string, unknown>>).find((row) => row.issuer === lms.issuer);
      expect(stored).toMatchObject({
        client_id: 'registered-client-1',
        deployment_ids: [lms.deploymentId],
        auth_url: lms.authUrl,
        token_url: lms.tokenUrl,
        jwks_url: lms.jwksUrl,
        provision_users: false,
      });
      const linked = await portal.post('/lti/links', { platform_id: stored!.id, resource_link_id: 'rl-dyn', exam_id: examId });
      expect(linked.status, JSON.stringify(linked.body)).toBe(200);
      const launched = await postLaunch(await authorize({ ...studentPlan(), sub: 'lms-dyn-ada', resourceLinkId: 'rl-dyn', lineItem: undefined }, 'get', lms));
      expect(launched.status, JSON.stringify(launched.body)).toBe(302);
      expect((await learnerOpens(launched.headers.location as string)).redirect).toBe(`exam:${examId}`);

      // The URL worked once.
      const again = await open(url, { openid_configuration: lms.openidConfigurationUrl, registration_token: lms.registrationToken });
      expect(again.status).toBe(403);
      expect(again.text).toContain('already used or expired');
      expect(lms.registrations).toHaveLength(1);
    });

    it('an expired URL, a made-up token, a foreign issuer and a refused registration answer a page with a 4xx, registering nothing', async () => {
      const platforms = await app.ctx.db.models.LtiPlatform.count();
      const expired = await registrationUrl();
      await app.ctx.db.models.LtiRegistration.update({ expires_at: new Date(Date.now() - 1000) }, { where: { used_at: null } });
      const late = await open(expired, { openid_configuration: lms.openidConfigurationUrl, registration_token: lms.registrationToken });
      expect(late.status).toBe(403);
      expect(late.headers['content-type']).toMatch(/text\/html/);
      expect(late.text).toContain('Registration failed');
      expect((await open(`${app.origin}/lti/register?token=made-up`, { openid_configuration: lms.openidConfigurationUrl })).status).toBe(403);

      lms.configurationOverrides = { issuer: 'https://elsewhere.example/lms' };
      const foreign = await open(await registrationUrl(), { openid_configuration: lms.openidConfigurationUrl, registration_token: lms.registrationToken });
      expect(foreign.status).toBe(422);
      expect(foreign.text).toContain('issuer');
      lms.configurationOverrides = { registration_endpoint: undefined };
      const noEndpoint = await open(await registrationUrl(), { openid_configuration: lms.openidConfigurationUrl });
      expect(noEndpoint.status).toBe(422);
      expect(noEndpoint.text).toContain('registration_endpoint');
      lms.configurationOverrides = {};

      const refused = await open(await registrationUrl(), { openid_configuration: lms.openidConfigurationUrl, registration_token: 'wrong-token' });
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('refused the registration (HTTP 401)');
      expect(lms.registrations.at(-1)!.authorization).toBe('Bearer wrong-token');
      expect(await app.ctx.db.models.LtiPlatform.count()).toBe(platforms);
    });
  });
});
