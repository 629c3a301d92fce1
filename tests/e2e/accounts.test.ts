// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Accounts in Chromium (docs/decisions/accounts-and-passwords.md): inviting a second admin with no mail server (copy the link),
 * joining with it, changing the password, the operator inviting a new institution's admin, and
 * pages you may not open saying why inside the navigation.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { createAccount, setUpPortal } from '../helpers/portal.js';

const ADMIN = { institution: 'Brookside College', admin_email: 'admin@brookside.test', admin_password: 'brookside admin pw' };
const DEVELOPER = { email: 'dev@brookside.test', password: 'brookside developer pw' };

describe.skipIf(!chromiumAvailable())('Accounts in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let institutionId = '';
  const shot = screenshotter('accounts');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    ({ institutionId } = await setUpPortal(app, ADMIN));
    await createAccount(app, institutionId, 'developer', DEVELOPER);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function fresh(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    return { context, page, errors };
  }

  const signIn = (page: Page, email: string, password: string) => signInOnPage(page, app.origin, email, password);

  it('an admin invites a second admin without a mail server: copy the link, join with it, change the password', async () => {
    const { context, page, errors } = await fresh();
    await signIn(page, ADMIN.admin_email, ADMIN.admin_password);
    await page.goto(`${app.origin}/#/i/${institutionId}/developers`);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Email').fill('second@brookside.test');
    await dialog.getByLabel('Admin').check();
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await dialog.getByText('waits in the outbox').waitFor();
    await dialog.getByRole('button', { name: 'Copy invitation link' }).waitFor();
    const link = (await dialog.getByTestId('invite-url').textContent())!;
    expect(link).toMatch(/\/#\/accept-invite\?token=[A-Za-z0-9]{40}$/);
    expect(await page.getByText('Invitation mailed').count()).toBe(0);
    await shot(page, 'copy-link');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await context.close();

    const second = await fresh();
    await second.page.goto(link);
    await second.page.getByLabel('Password').and(second.page.locator('input')).fill('second admin password');
    await second.page.getByRole('button', { name: 'Accept invitation' }).click();
    await second.page.getByRole('button', { name: 'Sign out' }).waitFor();
    await second.page.getByRole('navigation').getByRole('link', { name: 'Team', exact: true }).waitFor();

    await second.page.getByRole('link', { name: 'Your account' }).click();
    const form = second.page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').and(form.locator('input')).fill('second admin password');
    await form
      .getByLabel(/^New password\W*$/)
      .and(form.locator('input'))
      .fill('changed admin password');
    await form.getByLabel('New password again').and(form.locator('input')).fill('changed admin password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await second.page.getByText('Password changed.').waitFor();
    await shot(second.page, 'password-changed');
    await second.context.close();

    const again = await fresh();
    await signIn(again.page, 'second@brookside.test', 'changed admin password');
    expect([...errors, ...second.errors, ...again.errors]).toEqual([]);
    await again.context.close();
  });

  it('the operator invites the admin of a new institution from Institutions; opening it before is explained', async () => {
    const other = await makeInstitution(app, { name: 'Meadow School' });
    const { context, page, errors } = await fresh();
    await signIn(page, ADMIN.admin_email, ADMIN.admin_password);
    await page.goto(`${app.origin}/#/i/${other.id}`);
    await page.getByRole('alert').filter({ hasText: 'You are not a member of this institution' }).waitFor();
    // The navigation stays around it.
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await shot(page, 'not-a-member');

    await page.goto(`${app.origin}/#/operator/institutions`);
    await page.getByRole('button', { name: 'Admins of Meadow School' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('has no admin yet').waitFor();
    await dialog.getByLabel('Invite an admin by email').fill('head@meadow.test');
    await dialog.getByRole('button', { name: 'Invite admin' }).click();
    const link = (await dialog.getByTestId('invite-url').textContent())!;
    expect(link).toMatch(/\/#\/accept-invite\?token=[A-Za-z0-9]{40}$/);
    await dialog.getByText('Open invitations: head@meadow.test').waitFor();
    await shot(page, 'operator-invite-admin');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a developer is told why Team is closed; the sign-in page says whom to ask without a mail server', async () => {
    const { context, page, errors } = await fresh();
    await signIn(page, DEVELOPER.email, DEVELOPER.password);
    await page.goto(`${app.origin}/#/i/${institutionId}/developers`);
    await page.getByRole('alert').filter({ hasText: 'Only admins of Brookside College can open Team; you are a developer' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByText('ask the person who runs it', { exact: false }).waitFor();
    await shot(page, 'forgot-without-mail');
    expect(errors).toEqual([]);
    await context.close();
  });
});
