/**
 * The LTI set-up page in Chromium (issue 20): an admin finds the tool's side to paste into the LMS
 * (URLs on public_url, the public key as PEM and JWK, Canvas's JSON), registers an LMS with a
 * pasted public key (a wrong key refused in words under the field) and another by its key set URL,
 * removes one, and retries a grade the LMS never accepted. Screenshots go to tests/artifacts/lti/.
 */
import { exportSPKI, generateKeyPair } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addPlatform } from '../../server/commands/lti/platforms.js';
import { newId } from '../../server/ids.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
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
    context.setDefaultTimeout(15_000);
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

  it("shows the tool's side to paste into the LMS", async () => {
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    await page.getByRole('link', { name: 'LTI' }).click();
    await main().getByRole('heading', { name: 'LTI 1.3' }).waitFor();
    await main().getByText(`${app.origin}/lti/login`, { exact: true }).waitFor();
    await main().getByText(`${app.origin}/lti/jwks`, { exact: true }).waitFor();
    await main().getByText('-----BEGIN PUBLIC KEY-----').waitFor();
    await main().getByText('"oidc_initiation_url"').waitFor();
    await main().getByText('No LMS is registered yet.').waitFor();
    // The JWK shown is the one the key set serves.
    const jwks = (await app.http.get('/lti/jwks')).body as { keys: Array<{ kid: string }> };
    await main().getByText(`"kid": "${jwks.keys[0]!.kid}"`).waitFor();
    await shot(page, 'tool-side');
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
    expect((await tenant.ltiScorePosts.findById(post.id))?.status).toBe('pending');
    await shot(page, 'grade-retried');
  });
});
