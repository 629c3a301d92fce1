// @tier browser
// @databases sqlite: a browser's frame and storage rules; the routes behind them run on both databases in tests/lti-grading.test.ts
/**
 * The LMS frame and grading sessions (docs/decisions/lti-frame-and-grading-sessions.md) in
 * Chromium: an LMS course page on another site (`lms.test`, resolved to 127.0.0.1) frames the tool,
 * with third-party cookies and storage blocked. The platform's sign-in is this LMS's (its id_tokens
 * signed by tests/helpers/lti-platform.ts), and it answers LTI Platform Storage
 * (`lti.put_data`/`lti.get_data`) to the tool's frame. A student's launch lands signed in on the
 * exam, survives a reload of the frame, and keeps one device seat over two launches; a teacher's
 * launch grades a submission without a portal account; and a page on a site that is not a
 * registered platform (`evil.test`) cannot frame the learner page. Screenshots:
 * tests/artifacts/lti-frame/.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { learnerSession, makePerson, makeSchool, startTestAppliance, type TestAppliance, type TestKey, type TestPerson } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';
import { cliOk, runCliCaptured } from '../helpers/cli.js';
import { LTI, LtiPlatform, type LaunchPlan } from '../helpers/lti-platform.js';

type Person = TestPerson & { login_email: string };

/**
 * The LMS's pages, on one port reached by two host names: `lms.test` (the registered platform) and
 * `evil.test` (anyone else). `/course` frames the tool's login initiation and answers Platform
 * Storage for it; `/auth` is the platform's sign-in (OIDC authorization endpoint, form_post);
 * `/evil` frames the learner page directly.
 */
function startLms(platform: LtiPlatform, tool: () => { origin: string; platformId: string }) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://lms.test');
    const html = (body: string) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>${body}</body></html>`);
    const { origin, platformId } = tool();
    if (url.pathname === '/course') {
      const login = new URL(`${origin}/lti/login`);
      const params = {
        iss: platform.issuer,
        login_hint: platform.plan?.sub ?? '',
        target_link_uri: `${origin}/lti/launch`,
        client_id: platform.clientId,
        lti_deployment_id: platform.deploymentId,
        lti_storage_target: '_parent',
      };
      for (const [name, value] of Object.entries(params)) login.searchParams.set(name, value);
      return html(`<h1>CS 101</h1>
<iframe id="tool" title="CampusBridge" src="${login.toString()}" width="1000" height="760"></iframe>
<script>
  // LTI Platform Storage, platform side: values kept in the LMS's own (first-party) storage per tool origin, answered to the asking frame.
  const slot = (origin, key) => 'lti-storage:' + origin + ':' + key;
  window.storageLog = [];
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.origin !== ${JSON.stringify(origin)} || !message || typeof message !== 'object') return;
    window.storageLog.push(message.subject + ':' + message.key);
    if (message.subject === 'lti.put_data') {
      localStorage.setItem(slot(event.origin, message.key), message.value);
      event.source.postMessage({ subject: 'lti.put_data.response', message_id: message.message_id, key: message.key, value: message.value }, event.origin);
    } else if (message.subject === 'lti.get_data') {
      event.source.postMessage({ subject: 'lti.get_data.response', message_id: message.message_id, key: message.key, value: localStorage.getItem(slot(event.origin, message.key)) }, event.origin);
    }
  });
</script>`);
    }
    if (url.pathname === '/auth') {
      const request = Object.fromEntries(url.searchParams.entries());
      void platform
        .idToken(request, platform.plan!)
        .then((idToken) =>
          html(
            `<form method="post" action="${request.redirect_uri}"><input type="hidden" name="id_token" value="${idToken}">` +
              `<input type="hidden" name="state" value="${request.state}"></form><script>document.forms[0].submit()</script>`,
          ),
        );
      return;
    }
    if (url.pathname === '/evil')
      return html(`<h1>Not the LMS</h1><iframe id="tool" title="framed" src="${origin}/launch?lti=${platformId}" width="800" height="400"></iframe>`);
    res.writeHead(404).end();
  });
  return new Promise<http.Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!chromiumAvailable())('LTI inside the LMS frame, in Chromium with third-party cookies blocked', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let platform: LtiPlatform;
  let lms: http.Server;
  let lmsPort: number;
  let key: TestKey;
  let ada: Person;
  let alan: Person;
  let teacher: Person;
  let examId: string;
  let alanSubmission: string;
  let platformId = '';
  const shot = screenshotter('lti-frame');
  const pageErrors: string[] = [];

  const api = (path: string, init: { method?: string; body?: object; auth?: string } = {}) => {
    const request = init.method === 'POST' ? app.http.post(`/v1${path}`).send(init.body ?? {}) : app.http.get(`/v1${path}`);
    return request.set('Authorization', init.auth ?? key.auth);
  };
  const data = <T>(res: { status: number; body: { data: T } }, what: string): T => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    [app, browser, platform] = await Promise.all([
      // The LMS's key set is on 127.0.0.1: allowed the way webhook tests allow their receivers.
      startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1], sweepSeconds: 1, timeoutMs: 3000 } } }),
      launchChromium({ extraArgs: ['--host-resolver-rules=MAP lms.test 127.0.0.1, MAP evil.test 127.0.0.1', '--test-third-party-cookie-phaseout'] }),
      LtiPlatform.start(),
    ]);
    lms = await startLms(platform, () => ({ origin: app.origin, platformId }));
    lmsPort = (lms.address() as AddressInfo).port;
    // The LMS as its users' browsers see it; its key set stays where the appliance fetches it (127.0.0.1).
    platform.issuer = `http://lms.test:${lmsPort}/lms`;

    const school = await makeSchool(app, { scopes: ['all'] });
    key = school.key;
    teacher = (await makePerson(app, key, 'faculty', 'Grace Hopper')) as Person;
    ada = (await makePerson(app, key, 'students', 'Ada Lovelace')) as Person;
    alan = (await makePerson(app, key, 'students', 'Alan Turing')) as Person;
    const group = data<{ id: string }>(
      await api('/groups', { method: 'POST', body: { name: 'CS 101', faculty_id: teacher.id, student_ids: [ada.id, alan.id] } }),
      'group',
    );
    examId = data<{ id: string }>(
      await api('/exams', { method: 'POST', body: { faculty_id: teacher.id, title: 'Loops quiz', app: 'learning', max_score: 10, time_limit_minutes: 30 } }),
      'exam',
    ).id;
    data(await api(`/exams/${examId}/publish`, { method: 'POST' }), 'publish');
    data(await api(`/exams/${examId}/assignments`, { method: 'POST', body: { group_ids: [group.id] } }), 'assign');
    const session = `Bearer ${await learnerSession(app, key, alan)}`;
    const attempt = data<{ id: string }>(await api(`/app/exams/${examId}/attempts`, { method: 'POST', auth: session }), 'attempt');
    alanSubmission = data<{ id: string }>(
      await api(`/app/attempts/${attempt.id}/submit`, { method: 'POST', auth: session, body: { answers: { text: 'for (let i = 0; i < n; i++) sum += i;' } } }),
      'submit',
    ).id;

    cliOk(await runCliCaptured(app, 'settings', 'set', 'public_url', app.origin));
    const tool = cliOk<{ jwks_url: string }>(await runCliCaptured(app, 'lti', 'tool-config', '--institution', school.inst.id));
    platform.toolJwksUrl = tool.jwks_url;
    const lmsOrigin = `http://lms.test:${lmsPort}`;
    const added = cliOk<{ id: string }>(
      await runCliCaptured(
        app,
        ...['lti', 'platform', 'add', '--institution', school.inst.id, '--name', 'Course LMS', '--issuer', platform.issuer, '--client-id', platform.clientId],
        ...['--deployment-id', platform.deploymentId, '--auth-url', `${lmsOrigin}/auth`, '--token-url', platform.tokenUrl, '--jwks-url', platform.jwksUrl],
      ),
    );
    platformId = added.id;
    cliOk(await runCliCaptured(app, 'lti', 'link', '--platform', platformId, '--resource-link-id', 'rl-loops', '--exam', examId));

    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await new Promise((resolve) => lms?.close(resolve));
    await platform?.close();
    await app?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const tool = () => page.frameLocator('#tool');
  const toolFrame = (): Frame => {
    const frame = page.frames().find((candidate) => candidate.url().startsWith(`${app.origin}/launch`));
    if (!frame)
      throw new Error(
        `no tool frame on ${page.url()}: ${page
          .frames()
          .map((f) => f.url())
          .join(', ')}`,
      );
    return frame;
  };
  const openCourse = async (plan: LaunchPlan) => {
    platform.plan = plan;
    await page.goto(`http://lms.test:${lmsPort}/course`);
  };
  const adaPlan: LaunchPlan = { sub: 'lms-ada', email: '', roles: [LTI.learner], resourceLinkId: 'rl-loops' };

  it('a student launched in the frame lands signed in on the exam, though the frame may keep no cookie or storage of its own', async () => {
    await openCourse({ ...adaPlan, email: ada.login_email });
    await tool().getByText('Signed in as').waitFor();
    await tool().getByText('Ada Lovelace', { exact: true }).waitFor();
    await tool().getByText('Loops quiz').first().waitFor();
    // The browser really refuses the frame its own storage: what the page had to do without.
    expect(
      await toolFrame().evaluate(() => {
        try {
          window.localStorage.setItem('probe', '1');
          return 'stored';
        } catch {
          return 'blocked';
        }
      }),
    ).toBe('blocked');
    const log = (await page.evaluate(() => (window as unknown as { storageLog: string[] }).storageLog)) as string[];
    expect(log).toEqual(expect.arrayContaining(['lti.get_data:campusbridge_device', 'lti.put_data:campusbridge_device', 'lti.put_data:campusbridge_session']));
    await shot(page, 'student-framed');
  });

  it('a reload of the frame stays signed in: the platform kept the session', async () => {
    await toolFrame().evaluate(() => window.location.reload());
    await tool().getByText('Signed in as').waitFor();
    await tool().getByText('Loops quiz').first().waitFor();
    const log = (await page.evaluate(() => (window as unknown as { storageLog: string[] }).storageLog)) as string[];
    expect(log).toContain('lti.get_data:campusbridge_session');
  });

  it('a second launch keeps the one device seat: the platform kept the device id', async () => {
    await openCourse({ ...adaPlan, email: ada.login_email });
    await tool().getByText('Signed in as').waitFor();
    const license = await app.ctx.db.models.License.findOne({ where: { user_id: ada.id } });
    expect(await app.ctx.db.models.DeviceSeat.count({ where: { license_id: license!.id, status: 'active' } })).toBe(1);
  });

  it("a teacher launched in the frame grades a submission without a portal account, and the grade is the school's", async () => {
    await openCourse({ sub: 'lms-grace', email: teacher.login_email, roles: [LTI.instructor], resourceLinkId: 'rl-loops' });
    await tool().getByRole('heading', { name: 'Grading: Loops quiz' }).waitFor();
    await tool().getByRole('button', { name: 'Open the submission of Alan Turing' }).click();
    await tool().getByText('for (let i = 0; i < n; i++) sum += i;').waitFor();
    await tool().getByLabel('Score (0 to 10)').fill('7');
    await tool().getByLabel('Comment for the student').fill('Good loop; name the bound.');
    await tool().getByRole('button', { name: 'Save grade' }).click();
    await tool().getByRole('status').getByText('Saved: 7 out of 10.').waitFor();
    // The list follows: the row now says graded, with the score.
    await tool()
      .getByRole('row', { name: /Alan Turing .* Graded 7 \/ 10/ })
      .waitFor();
    await shot(page, 'teacher-graded');
    const graded = data<{ status: string; score: number; feedback: string; graded_by: string }>(await api(`/submissions/${alanSubmission}`), 'read back');
    expect(graded).toMatchObject({ status: 'graded', score: 7, feedback: 'Good loop; name the bound.', graded_by: 'Grace Hopper (LMS instructor)' });
  });

  it('a page on a site that is not a registered platform cannot frame the learner page', async () => {
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    await page.goto(`http://evil.test:${lmsPort}/evil`);
    await expect.poll(() => refusals.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(refusals[0]).toMatch(/violates the following Content Security Policy directive: "frame-ancestors 'self' http:\/\/lms\.test:\d+"/);
    // Nothing of the page rendered in the frame.
    expect(await page.frameLocator('#tool').locator('.learner').count()).toBe(0);
    await shot(page, 'foreign-site-refused');
  });
});
