// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The portal's sandbox view in Chromium (docs/decisions/sandbox.md): the admin switches to the sandbox, sees its
 * banner, adds a student there, finds that student absent from live, resets the sandbox and finds
 * it empty; the keys page makes a sandbox key (`cb_test_…`) and lists each key's environment.
 * Screenshots go to tests/artifacts/sandbox/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { setUpPortal } from '../helpers/portal.js';

const ADMIN = { institution: 'Harbour College', admin_email: 'it@harbour.test', admin_password: 'harbour admin pw' };

describe.skipIf(!chromiumAvailable())('the sandbox in the portal, in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let institutionId = '';
  const shot = screenshotter('sandbox');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    institutionId = (await setUpPortal(app, ADMIN)).institutionId;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await app?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const banner = () => page.getByRole('status', { name: 'Sandbox' });
  const environment = () => page.getByRole('radiogroup', { name: 'Environment' });

  async function studentsPage() {
    await page.getByRole('main').getByRole('heading', { name: 'Students' }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  }

  it('switches to the sandbox, adds a student there that live does not show, and resets it', async () => {
    await page.goto(`${app.origin}/#/i/${institutionId}/students`);
    await studentsPage();
    expect(await banner().count()).toBe(0);

    await environment().getByText('Sandbox').click();
    await banner().waitFor();
    const sandboxId = /#\/i\/([^/]+)\/students/.exec(page.url())?.[1];
    expect(sandboxId).toBeTruthy();
    expect(sandboxId).not.toBe(institutionId);
    await studentsPage();

    await page.getByRole('button', { name: 'Add student' }).first().click();
    await page.getByLabel('Full name').fill('Sandra Sandbox');
    await page.getByRole('dialog').getByRole('button', { name: /^Add/ }).click();
    await page.getByRole('cell', { name: 'Sandra Sandbox' }).waitFor();
    await shot(page, 'sandbox-student-added');

    // The student is the sandbox's only: live lists no one.
    const rows = await app.ctx.db.models.Person.findAll({ where: { full_name: 'Sandra Sandbox' } });
    expect(rows.map((row) => row.institution_id)).toEqual([sandboxId]);
    await environment().getByText('Live').click();
    await page.waitForURL((url) => url.hash === `#/i/${institutionId}/students`);
    await banner().waitFor({ state: 'detached' });
    await studentsPage();
    await page.getByText('No students yet').waitFor();
    expect(await page.getByRole('main').getByText('Sandra Sandbox').count()).toBe(0);
    await shot(page, 'live-without-the-sandbox-student');

    await environment().getByText('Sandbox').click();
    await banner().waitFor();
    await page.getByRole('cell', { name: 'Sandra Sandbox' }).waitFor();
    await banner().getByRole('button', { name: 'Reset sandbox' }).click();
    await page.getByRole('dialog', { name: 'Reset the sandbox?' }).waitFor();
    await shot(page, 'reset-confirmation');
    await page.getByRole('button', { name: 'Delete all sandbox data' }).click();
    await page.getByText('No students yet').waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: sandboxId! } })).toBe(0);
    await shot(page, 'sandbox-after-reset');
  });

  it('the keys page makes a sandbox key and lists each key with its environment', async () => {
    await page.goto(`${app.origin}/#/i/${institutionId}/keys`);
    await page.getByRole('main').getByRole('heading', { name: 'API keys' }).waitFor();
    await page
      .getByRole('button', { name: /Create (a |an )?(API )?key/i })
      .first()
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Sandbox').check();
    await dialog.getByLabel('Name').fill('Moodle staging');
    await dialog.getByRole('checkbox').first().check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByText(/cb_test_[A-Za-z0-9]{32}/).waitFor();
    await shot(page, 'sandbox-key-created');
    await dialog
      .getByRole('button', { name: /Done|Close/ })
      .first()
      .click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: 'Moodle staging' });
    await row.getByText('Sandbox').waitFor();
    await shot(page, 'keys-with-environment');
  });
});
