// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * A school's first week with the appliance in Chromium, as a new admin would walk it:
 * setup with the campus address → invite a second admin with no mail server (copy the link) →
 * sign in as them → change the password → the operator creates an institution and invites its
 * admin → that admin signs in; and a webhook to a receiver on 127.0.0.1 is refused, then accepted
 * once the operator allows this computer in Settings. Screenshots: tests/artifacts/appliance-life/.
 */
import http from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { listenOnLoopback, type LoopbackReceiver } from '../helpers/bundle.js';
import { waitFor } from '../helpers/wait.js';

const OPERATOR = { email: 'it@hillcrest.test', password: 'hillcrest operator pw' };
const SECOND_ADMIN = { email: 'office@hillcrest.test', first: 'first password of office', changed: 'changed password of office' };
const NEW_ADMIN = { email: 'head@valley.test', password: 'valley head password' };
/** The address other computers use, as a school would type it: nothing is ever sent to it. */
const CAMPUS_ADDRESS = 'http://campusbridge.hillcrest.lan:4780';

describe.skipIf(!chromiumAvailable())('A school lives with the appliance', () => {
  let app: TestAppliance;
  let browser: Browser;
  let receiver: LoopbackReceiver;
  const received: string[] = [];
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const shot = screenshotter('appliance-life');
  let page: Page;
  let institutionId = '';

  beforeAll(async () => {
    // No webhook setting from the environment: the school's own setting decides.
    [app, browser, receiver] = await Promise.all([
      startTestAppliance({
        config: { outbound: { privateHosts: null }, webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 } },
      }),
      launchChromium(),
      listenOnLoopback(
        http.createServer((req, res) => {
          let body = '';
          req.on('data', (chunk: Buffer) => (body += chunk.toString()));
          req.on('end', () => {
            received.push(body);
            res.end('ok');
          });
        }),
      ),
    ]);
    page = await fresh();
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), receiver?.close()]);
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  async function fresh(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    const opened = await context.newPage();
    opened.on('pageerror', (error) => pageErrors.push(error.message));
    return opened;
  }

  const passwordField = (on: Page, label: string | RegExp) => on.getByLabel(label).and(on.locator('input'));

  const signIn = (on: Page, email: string, password: string) => signInOnPage(on, app.origin, email, password);

  /** Links carry the campus address; in this test the browser reaches the appliance on 127.0.0.1. */
  const onThisComputer = (link: string) => {
    expect(link.startsWith(`${CAMPUS_ADDRESS}/`), link).toBe(true);
    return `${app.origin}${link.slice(CAMPUS_ADDRESS.length)}`;
  };

  it('sets up with the address other computers use', async () => {
    await page.goto(app.origin);
    await page.getByRole('heading', { name: 'Set up CampusBridge' }).waitFor();
    await page.getByLabel('Email').fill(OPERATOR.email);
    await passwordField(page, /^Password/).fill(OPERATOR.password);
    await passwordField(page, 'Repeat the password').fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Institution name').fill('Hillcrest School');
    await page.getByRole('button', { name: 'Next' }).click();
    // Listening on 127.0.0.1, no LAN address is offered: the step says how to serve the network.
    await page.getByText('Only this computer can reach CampusBridge now').waitFor();
    expect(await page.getByRole('radio', { name: /This computer's name/ }).count()).toBe(0);
    await shot(page, 'setup-address');
    await page.getByRole('radio', { name: /^Another address/ }).check();
    await page.getByLabel('Other address', { exact: true }).fill('http://0.0.0.0:4780');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('alert').filter({ hasText: 'other computers can open' }).waitFor();
    await page.getByLabel('Other address', { exact: true }).fill(`${CAMPUS_ADDRESS}/`);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(`Address: ${CAMPUS_ADDRESS}`).waitFor();
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.getByRole('heading', { name: 'Hillcrest School' }).waitFor();
    institutionId = /#\/i\/([^/]+)/.exec(page.url())?.[1] ?? '';
    expect(institutionId).toMatch(/^inst_/);
    await waitFor(async () => (await app.ctx.publicUrl()) === CAMPUS_ADDRESS || undefined, 'the address saved', 5_000);
    // Saved while the listener is on 127.0.0.1: every page warns that nothing answers there.
    await page.getByRole('status').filter({ hasText: 'nothing answers there' }).waitFor();
    await shot(page, 'address-warning');
  });

  it('invites a second admin with no mail server: the link is copied, they join and change their password', async () => {
    await page.goto(`${app.origin}/#/i/${institutionId}/developers`);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Email').fill(SECOND_ADMIN.email);
    await dialog.getByLabel('Admin').check();
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await dialog.getByRole('button', { name: 'Copy invitation link' }).waitFor();
    const link = (await dialog.getByTestId('invite-url').textContent()) ?? '';
    await shot(page, 'copy-invitation-link');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const second = await fresh();
    await second.goto(onThisComputer(link));
    await passwordField(second, 'Password').fill(SECOND_ADMIN.first);
    await second.getByRole('button', { name: 'Accept invitation' }).click();
    await second.getByRole('button', { name: 'Sign out' }).waitFor();
    await second.getByRole('link', { name: 'Your account' }).click();
    const form = second.getByRole('form', { name: 'Change password' });
    await passwordField(second, 'Current password').fill(SECOND_ADMIN.first);
    await form
      .getByLabel(/^New password\W*$/)
      .and(form.locator('input'))
      .fill(SECOND_ADMIN.changed);
    await form.getByLabel('New password again').and(form.locator('input')).fill(SECOND_ADMIN.changed);
    await form.getByRole('button', { name: 'Change password' }).click();
    await second.getByText('Password changed.').waitFor();
    await second.getByRole('button', { name: 'Sign out' }).click();
    // Signed out for sure before the sign-in page is loaded again: a reload while signing out can
    // cut the request short and leave the session alive (this failed once under load).
    await second.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(second, SECOND_ADMIN.email, SECOND_ADMIN.changed);
    await second.getByRole('navigation').getByRole('link', { name: 'Team', exact: true }).waitFor();
    await shot(second, 'second-admin-signed-in');
  });

  it('the operator creates an institution and invites its admin, who signs in to it', async () => {
    await page.goto(`${app.origin}/#/operator/institutions`);
    await page.getByRole('button', { name: 'New institution' }).first().click();
    const create = page.getByRole('dialog');
    await create.getByLabel('Name').fill('Valley Academy');
    await create.getByLabel('Approve now').check();
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Admins of Valley Academy' }).click();
    const admins = page.getByRole('dialog');
    await admins.getByText('has no admin yet').waitFor();
    await admins.getByLabel('Invite an admin by email').fill(NEW_ADMIN.email);
    await admins.getByRole('button', { name: 'Invite admin' }).click();
    const link = (await admins.getByTestId('invite-url').textContent()) ?? '';
    await shot(page, 'operator-invites-admin');
    await page.keyboard.press('Escape');

    const head = await fresh();
    await head.goto(onThisComputer(link));
    await passwordField(head, 'Password').fill(NEW_ADMIN.password);
    await head.getByRole('button', { name: 'Accept invitation' }).click();
    await head.getByRole('heading', { name: 'Valley Academy' }).waitFor();
    await head.getByRole('button', { name: 'Sign out' }).click();
    await head.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(head, NEW_ADMIN.email, NEW_ADMIN.password);
    await head.getByRole('heading', { name: 'Valley Academy' }).waitFor();
    await shot(head, 'new-admin-signed-in');
  });

  it('refuses a webhook to this computer, then accepts it once the operator allows this computer', async () => {
    const addEndpoint = async () => {
      await page.goto(`${app.origin}/#/i/${institutionId}/webhooks`);
      await page.getByRole('button', { name: 'Add endpoint' }).first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^URL/).fill(receiver.url);
      await dialog.getByRole('combobox', { name: 'Events' }).click();
      await page.getByRole('option', { name: /^student\.created/ }).click();
      await page.keyboard.press('Escape');
      await dialog.getByRole('button', { name: 'Create endpoint' }).click();
      return dialog;
    };
    const refused = await addEndpoint();
    await refused.getByText('outbound_private_hosts', { exact: false }).waitFor();
    await shot(page, 'webhook-refused');
    await page.keyboard.press('Escape');

    await page.goto(`${app.origin}/#/operator/settings`);
    const targets = page.getByRole('form', { name: 'Requests to this computer or the campus network' });
    await targets.getByRole('radio', { name: /^This computer/ }).check();
    await targets.getByRole('button', { name: 'Save' }).click();
    // The saved value, shown as "Now:"; the radio's label holds the same words, so match the whole text.
    await targets.getByText('localhost, 127.0.0.1, ::1', { exact: true }).waitFor();
    await shot(page, 'settings-this-computer');

    const accepted = await addEndpoint();
    expect(((await accepted.getByTestId('secret-value').textContent()) ?? '').startsWith('whsec_')).toBe(true);
    await page.keyboard.press('Escape');

    // A student made in the portal reaches the receiver on this computer.
    await page.goto(`${app.origin}/#/i/${institutionId}/students`);
    await page.getByRole('button', { name: 'Add student' }).first().click();
    const form = page.getByRole('dialog');
    await form.getByLabel(/^Full name/).fill('Ada Lovelace');
    await form.getByRole('button', { name: 'Add student' }).click();
    await waitFor(() => received.find((body) => body.includes('student.created')), 'the delivery to this computer', 15_000);
  });
});
