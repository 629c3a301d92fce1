// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The LTI set-up page in Chromium (docs/lms.md#lti-13): an admin finds the tool's side to paste into the LMS
 * (URLs on public_url, the public key as PEM and JWK, Canvas's JSON), registers an LMS with a
 * pasted public key (a wrong key refused in words under the field) and another by its key set URL,
 * removes one, and retries a grade the LMS never accepted; and a student's browser, sent by the LMS
 * to the login initiation URL, goes through the platform's sign-in (tests/helpers/lti-platform.ts,
 * its auto-posting form) and lands signed in on the linked exam. Screenshots go to tests/artifacts/lti/.
 */
import { exportSPKI, generateKeyPair } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addPlatform, linkResourceLink } from '../../server/commands/lti/platforms.js';
import { newId } from '../../server/ids.js';
import { writeApplianceSetting } from '../../server/settings/appliance-settings.js';
import { makeKey, startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { LTI, LtiPlatform } from '../helpers/lti-platform.js';
import { setUpPortal, type FirstRun } from '../helpers/portal.js';

const ADMIN = { institution: 'Hillcrest Academy', admin_email: 'it@hillcrest.test', admin_password: 'hillcrest admin pw' };

describe.skipIf(!chromiumAvailable())('LTI set-up page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let firstRun: FirstRun;
  const shot = screenshotter('lti');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    firstRun = await setUpPortal(app, ADMIN);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await app?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const main = () => page.getByRole('main');

  it("leads with Dynamic Registration, then the tool's side in each LMS's own field names", async () => {
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    await page.getByRole('link', { name: 'LTI' }).click();
    await main().getByRole('heading', { name: 'LTI 1.3' }).waitFor();
    // The easy path comes before anything to copy by hand.
    const easy = main().getByText('The easy way: Dynamic Registration');
    const moodleTab = main().getByRole('tab', { name: 'Moodle' });
    await easy.waitFor();
    expect((await easy.boundingBox())!.y).toBeLessThan((await moodleTab.boundingBox())!.y);
    // Moodle's form, field by field, as Moodle names its fields.
    await main().getByRole('button', { name: 'Copy Initiate login URL' }).waitFor();
    await main().getByText(`${app.origin}/lti/login`, { exact: true }).waitFor();
    await main().getByRole('button', { name: 'Copy Public keyset' }).waitFor();
    await main().getByText(`${app.origin}/lti/jwks`, { exact: true }).waitFor();
    await main().getByRole('button', { name: 'Copy Tool URL' }).waitFor();
    await main().getByRole('button', { name: 'Copy Content Selection URL' }).waitFor();
    await main().getByText('No LMS is registered yet.').waitFor();
    // On 127.0.0.1 nothing is said about HTTPS.
    expect(await main().getByText('Your LMS will expect this tool on HTTPS').count()).toBe(0);
    await shot(page, 'tool-side');

    await main().getByRole('tab', { name: 'Canvas' }).click();
    await main().getByText('"oidc_initiation_url"').waitFor();
    await main().getByRole('button', { name: 'Copy OpenID Connect Initiation Url' }).waitFor();
    await main().getByRole('tab', { name: 'Another LMS' }).click();
    await main().getByText('-----BEGIN PUBLIC KEY-----').waitFor();
    // The JWK shown is the one the key set serves.
    const jwks = (await app.http.get('/lti/jwks')).body as { keys: Array<{ kid: string }> };
    await main().getByText(`"kid": "${jwks.keys[0]!.kid}"`).waitFor();
  });

  it('says the LMS will expect HTTPS when the public address is plain http:// on the network', async () => {
    await writeApplianceSetting(app.ctx.db, 'public_url', 'http://campusbridge.hillcrest.test');
    try {
      await page.reload();
      const note = main().getByRole('alert').filter({ hasText: 'Your LMS will expect this tool on HTTPS' });
      await note.waitFor();
      await note.getByText(/Put the appliance behind your school.s HTTPS/).waitFor();
      await main().getByText('http://campusbridge.hillcrest.test/lti/login', { exact: true }).waitFor();
      await shot(page, 'https-note');
    } finally {
      await writeApplianceSetting(app.ctx.db, 'public_url', 'default');
    }
    await page.reload();
    await main().getByText(`${app.origin}/lti/login`, { exact: true }).waitFor();
    expect(await main().getByText('Your LMS will expect this tool on HTTPS').count()).toBe(0);
  });

  it('makes a single-use Dynamic Registration URL, shown with Copy', async () => {
    await main().getByRole('button', { name: 'Make a registration URL' }).click();
    const shown = main().getByText(new RegExp(`^${app.origin}/lti/register\\?token=`));
    await shown.waitFor();
    await main().getByRole('button', { name: 'Copy Registration URL' }).waitFor();
    expect(await app.ctx.db.models.LtiRegistration.count({ where: { used_at: null } })).toBe(1);
    await shot(page, 'registration-url');
  });

  it('registers an LMS with a pasted public key, refusing a wrong key in words under the field', async () => {
    const form = main().getByRole('form', { name: 'Register a platform' });
    await form.getByLabel('Name').fill('Canvas Cloud');
    await form.getByLabel('Issuer').fill('https://canvas.instructure.com');
    await form.getByLabel('Client ID').fill('10000000000042');
    await form.getByLabel('Deployment IDs').fill('7:abc, 8:def');
    await form.getByLabel('Authorization URL').fill('https://sso.canvaslms.com/api/lti/authorize_redirect');
    await form.getByLabel('Token URL').fill('https://sso.canvaslms.com/login/oauth2/token');
    await form.getByText('Paste a public key', { exact: true }).click();
    await form.getByRole('textbox', { name: 'Public key' }).fill('not a key');
    await form.getByRole('button', { name: 'Register platform' }).click();
    await form.getByText(/RSA public key/).waitFor();
    await shot(page, 'bad-key');

    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    await form.getByRole('textbox', { name: 'Public key' }).fill(await exportSPKI(publicKey));
    await form.getByRole('button', { name: 'Register platform' }).click();
    const row = main().getByRole('table', { name: 'Platforms' }).getByRole('row').filter({ hasText: 'Canvas Cloud' });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('7:abc, 8:def');
    await expect(row.textContent()).resolves.toContain('Pasted public key');
    await shot(page, 'registered-pasted-key');
  });

  it('edits a platform in place: deployments and creating users at launch, a refusal worded under its field', async () => {
    const row = main().getByRole('table', { name: 'Platforms' }).getByRole('row').filter({ hasText: 'Canvas Cloud' });
    await row.getByRole('button', { name: 'Edit Canvas Cloud' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Deployment IDs').fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog
      .getByText(/Deployment IDs/)
      .nth(1)
      .waitFor();
    await dialog.getByLabel('Deployment IDs').fill('7:abc');
    await dialog.getByLabel('Create unknown users at launch').check();
    await shot(page, 'edit-platform');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('Creates users').waitFor();
    await expect(row.textContent()).resolves.not.toContain('8:def');
    const [stored] = await firstRun.institution.tenant.ltiPlatforms.findAll();
    expect([stored?.deployment_ids, stored?.provision_users, stored?.public_key_pem?.startsWith('-----BEGIN PUBLIC KEY-----')]).toEqual([
      ['7:abc'],
      true,
      true,
    ]);
  });

  it('registers an LMS by its key set URL and removes it after asking', async () => {
    const form = main().getByRole('form', { name: 'Register a platform' });
    await form.getByLabel('Name').fill('Moodle');
    await form.getByLabel('Issuer').fill('https://moodle.hillcrest.test');
    await form.getByLabel('Client ID').fill('moodle-client-1');
    await form.getByLabel('Deployment IDs').fill('1');
    await form.getByLabel('Authorization URL').fill('https://moodle.hillcrest.test/mod/lti/auth.php');
    await form.getByLabel('Token URL').fill('https://moodle.hillcrest.test/mod/lti/token.php');
    await form.getByText('Key set URL', { exact: true }).click();
    await form.getByRole('textbox', { name: 'Key set URL' }).fill('https://moodle.hillcrest.test/mod/lti/certs.php');
    await form.getByRole('button', { name: 'Register platform' }).click();
    const row = main().getByRole('table', { name: 'Platforms' }).getByRole('row').filter({ hasText: 'Moodle' });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('https://moodle.hillcrest.test/mod/lti/certs.php');

    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove platform' }).click();
    await row.waitFor({ state: 'detached' });
    const platforms = await firstRun.institution.tenant.ltiPlatforms.findAll();
    expect(platforms.map((platform) => platform.name)).toEqual(['Canvas Cloud']);
  });

  it('lists a grade the LMS never accepted with its attempts, and sends it again', async () => {
    const tenant = firstRun.institution.tenant;
    const platform = await addPlatform(tenant, {
      name: 'Schoology',
      issuer: 'https://schoology.hillcrest.test',
      client_id: 'sgy-1',
      deployment_ids: ['1'],
      auth_url: 'https://schoology.hillcrest.test/auth',
      token_url: 'https://schoology.hillcrest.test/token',
      jwks_url: 'https://schoology.hillcrest.test/jwks',
    });
    const post = await tenant.ltiScorePosts.create({
      id: newId('lsp'),
      platform_id: platform.id,
      submission_id: 'sub_example',
      line_item_url: 'https://schoology.hillcrest.test/lineitems/9',
      payload: { userId: 'lms-user-77', scoreGiven: 42, scoreMaximum: 50 },
      status: 'dead',
      attempt_count: 1,
      next_attempt_at: null,
      last_attempt_at: new Date(),
      response_status: 503,
      error: 'http_503',
    });
    await tenant.ltiScoreAttempts.create({
      id: newId('lsa'),
      score_post_id: post.id,
      at: new Date(),
      response_status: 503,
      response_body: 'busy',
      error: 'http_503',
    });
    await page.reload();
    const row = main().getByRole('table', { name: 'Grades sent to the LMS' }).getByRole('row').filter({ hasText: 'lms-user-77' });
    await row.waitFor();
    await expect(row.textContent()).resolves.toMatch(/42 \/ 50.*Gave up.*503 \(http_503\)/);
    await shot(page, 'grade-gave-up');
    await row.getByRole('button', { name: 'Retry' }).click();
    await row.getByText('Waiting').waitFor();
    // Queued again: still waiting, or already taken up by the sender (which a busy machine lets it reach first).
    expect(['pending', 'delivering']).toContain((await tenant.ltiScorePosts.findById(post.id))?.status);
    await shot(page, 'grade-retried');
  });
  it("a student's launch from the LMS goes through the platform's sign-in and opens the linked exam in the learner page", async () => {
    const platform = await LtiPlatform.start();
    try {
      // The platform is on 127.0.0.1: allowed as webhook tests allow their receivers.
      await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
      const key = await makeKey(app, firstRun.institution, { scopes: ['all'] });
      const post = async (path: string, body: object) => {
        const res = await app.http.post(`/v1${path}`).set('Authorization', key.auth).send(body);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.data as { id: string; login_email: string };
      };
      const teacher = await post('/faculty', { full_name: 'Grace Hopper' });
      const student = await post('/students', { full_name: 'Ada Lovelace' });
      const group = await post('/groups', { name: 'CS 101', faculty_id: teacher.id, student_ids: [student.id] });
      const exam = await post('/exams', { faculty_id: teacher.id, title: 'Loops quiz', max_score: 10 });
      await post(`/exams/${exam.id}/publish`, {});
      await post(`/exams/${exam.id}/assignments`, { group_ids: [group.id] });
      const registered = await addPlatform(firstRun.institution.tenant, {
        issuer: platform.issuer,
        client_id: platform.clientId,
        deployment_ids: [platform.deploymentId],
        auth_url: platform.authUrl,
        token_url: platform.tokenUrl,
        jwks_url: platform.jwksUrl,
      });
      await linkResourceLink(firstRun.institution.tenant, registered.id, 'rl-browser', exam.id);
      platform.plan = { sub: 'lms-ada', email: student.login_email, roles: [LTI.learner], resourceLinkId: 'rl-browser' };

      // The student's own browser, signed in nowhere: the LMS sends it to the login initiation URL.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      context.setDefaultTimeout(30_000);
      const learnerPage = await context.newPage();
      learnerPage.on('pageerror', (error) => pageErrors.push(error.message));
      const login = new URL(`${app.origin}/lti/login`);
      for (const [name, value] of Object.entries({
        iss: platform.issuer,
        login_hint: 'lms-ada',
        target_link_uri: `${app.origin}/lti/launch`,
        client_id: platform.clientId,
      })) {
        login.searchParams.set(name, value);
      }
      await learnerPage.goto(login.toString());
      // Signed in as the student, on the exam the LMS link names (the learner page's "sent you to this exam").
      await learnerPage.getByText('Signed in as').waitFor();
      const card = learnerPage.getByRole('listitem').filter({ hasText: 'Your school sent you to this exam.' });
      await card.getByRole('heading', { name: 'Loops quiz' }).waitFor();
      await expect(learnerPage.getByText('Ada Lovelace', { exact: true }).count()).resolves.toBe(1);
      expect(new URL(learnerPage.url()).pathname).toBe('/launch');
      expect(learnerPage.url()).not.toContain('token=');
      await shot(learnerPage, 'student-launched-into-exam');
      await context.close();
    } finally {
      await platform.close();
    }
  });
});
