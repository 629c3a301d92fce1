// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The portal end to end in Chromium: setup wizard → sign in → a key with two scopes →
 * /v1/me with it → a webhook endpoint → its delivery in the log → replay → invite a developer →
 * sign in as them → they cannot manage licenses. Real appliance, real SMTP and webhook receiver,
 * all on 127.0.0.1. Screenshots go to tests/artifacts/portal-e2e/.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setSmtpSettings } from '../../server/mail/smtp-settings.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';

const OPERATOR = { email: 'it@lakeside.test', password: 'lakeside operator pw' };
const DEVELOPER = { email: 'dev@lakeside.test', password: 'developer password 1' };
const INSTITUTION = 'Lakeside School';
const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { received, url: `http://127.0.0.1:${port}/campusbridge`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe.skipIf(!chromiumAvailable())('Portal in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const shot = screenshotter('portal-e2e');
  let institutionId = '';
  let apiKey = '';
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, smtp, receiver, browser] = await Promise.all([
      startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } }),
      startSmtpServer(),
      startReceiver(),
      launchChromium(),
    ]);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, secure: false, from: 'CampusBridge <noreply@lakeside.test>' });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Fail with the locator's name instead of hanging until the test times out.
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), smtp?.close(), receiver?.close()]);
  });

  afterEach(async (context) => {
    // What the page showed when a step failed, beside the step's own screenshots.
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  /** A password field by its label (Mantine's show/hide button is labelled after it too). */
  const passwordField = (label: string | RegExp) => page.getByLabel(label).and(page.locator('input'));
  const nav = (label: string) => page.getByRole('navigation', { name: 'Portal navigation' }).getByRole('link', { name: label, exact: true });

  it('runs the setup wizard on an empty data folder', async () => {
    await page.goto(app.origin);
    await page.getByRole('heading', { name: 'Set up CampusBridge' }).waitFor();
    await shot(page, 'setup-wizard');
    await page.getByLabel('Email').fill(OPERATOR.email);
    await passwordField(/^Password/).fill(OPERATOR.password);
    await passwordField('Repeat the password').fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Institution name').fill(INSTITUTION);
    await page.getByRole('button', { name: 'Next' }).click();
    // The address step: this computer only keeps the default (the listening address).
    await page.getByRole('radio', { name: /^This computer only/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.getByRole('heading', { name: INSTITUTION }).waitFor();
    institutionId = /#\/i\/([^/]+)/.exec(page.url())?.[1] ?? '';
    expect(institutionId).toMatch(/^inst_/);
    await shot(page, 'overview-after-setup');
    // The wizard did what `cli setup` does: one operator who is the institution's admin.
    const accounts = await app.ctx.db.models.PortalAccount.findAll();
    expect(accounts.map((account) => [account.email, account.is_operator])).toEqual([[OPERATOR.email, true]]);
  });

  it('signs out and signs back in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(OPERATOR.email);
    await passwordField(/^Password/).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
    await shot(page, 'sign-in-refused');
    await passwordField(/^Password/).fill(OPERATOR.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: INSTITUTION }).waitFor();
  });

  it('creates a key with two scopes that works against /v1/me', async () => {
    await nav('API keys').click();
    await page.getByText('No API keys yet').waitFor();
    await page.getByRole('button', { name: 'Create key' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Moodle production');
    await dialog.getByLabel('Rate limit (requests per minute)').fill('120');
    await dialog.getByRole('checkbox', { name: 'students:write' }).check();
    await dialog.getByRole('checkbox', { name: 'webhooks:read' }).check();
    await shot(page, 'create-key');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await dialog.getByTestId('secret-value').textContent()) ?? '';
    expect(apiKey.length).toBeGreaterThan(30);
    await shot(page, 'key-shown-once');
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Moodle production' });
    await row.waitFor();
    expect(await row.textContent()).toContain(apiKey.slice(-4));
    expect(await page.content()).not.toContain(apiKey);

    const me = await fetch(`${app.origin}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { data: { institution: { id: string }; scopes: string[]; rate_limit_per_min: number } };
    expect(body.data.institution.id).toBe(institutionId);
    expect([...body.data.scopes].sort()).toEqual(['students:write', 'webhooks:read']);
    expect(body.data.rate_limit_per_min).toBe(120);
  });

  it('adds a webhook endpoint, shows a delivery in the log and replays it', async () => {
    await nav('Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^URL/).fill(receiver.url);
    await dialog.getByRole('combobox', { name: 'Events' }).click();
    await page.getByRole('option', { name: /^student\.created/ }).click();
    await page.keyboard.press('Escape');
    await shot(page, 'add-endpoint');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await dialog.getByTestId('secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await shot(page, 'endpoint-secret');
    await page.keyboard.press('Escape');

    // A change through the API with the portal's key → an event → a delivery to the receiver.
    const created = await fetch(`${app.origin}/v1/students`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ full_name: 'Ada Lovelace', student_id: 'S-1' }),
    });
    expect(created.status).toBe(200);
    await waitFor(() => receiver.received.find((request) => request.body.includes('student.created')), 'the first delivery', 15_000);

    await nav('Deliveries').click();
    // The row of the Deliveries table: the endpoints table of the page being left names the same
    // event, and a click on it while the Deliveries page loads opened a wrong address.
    const deliveryRow = page.getByRole('table', { name: 'Deliveries' }).getByRole('row').filter({ hasText: 'student.created' }).first();
    await deliveryRow.waitFor();
    await shot(page, 'delivery-log');
    await deliveryRow.click();
    // Where the click took the page, should the detail not show.
    await expect.poll(() => page.url(), { timeout: 15_000 }).toMatch(/\/webhooks\/deliveries\/[^/?#]+$/);
    await page.getByRole('button', { name: 'Replay' }).waitFor();
    await shot(page, 'delivery-detail');
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Replay' }).click();
    await waitFor(() => receiver.received.length > before, 'the replayed delivery', 15_000);
    const replayed = receiver.received.at(-1)!;
    expect(replayed.body).toContain('student.created');
    // The page opens the new delivery once the replay is answered, which on a busy machine can come
    // after the receiver already has it: wait for it, or that navigation lands on the next step's page.
    await page.getByText('Replay of').waitFor();
    await shot(page, 'delivery-replayed');
  });

  it('invites a developer, who signs in and cannot manage licenses', async () => {
    // Twice in CI (never alone) the Team page did not open after this click: the navigation can move
    // while the delivery page settles. Click until the address is the Team page's, then go on.
    await expect
      .poll(
        async () => {
          if (!/\/developers$/.test(page.url())) await nav('Team').click();
          return page.url();
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toMatch(/\/developers$/);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Email').fill(DEVELOPER.email);
    await page.getByRole('dialog').getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('row').filter({ hasText: DEVELOPER.email }).waitFor();
    await shot(page, 'invitation-sent');

    const mail = await waitFor(() => smtp.received.find((message) => message.to.includes(DEVELOPER.email)), 'the invitation mail', 15_000);
    // The mail is quoted-printable: undo soft line breaks and =XX escapes before reading the link.
    const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const link = /https?:\/\/[^\s"<>]+#\/accept-invite\?token=[A-Za-z0-9]+/.exec(text)?.[0];
    expect(link).toBeDefined();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Join your institution' }).waitFor();
    await passwordField(/^Password/).fill(DEVELOPER.password);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByRole('heading', { name: INSTITUTION }).waitFor();
    await page.getByText('signed in as a developer').waitFor();
    await shot(page, 'developer-overview');

    // Sign out and in again with the new password, as a developer would the next day.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(DEVELOPER.email);
    await passwordField(/^Password/).fill(DEVELOPER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: INSTITUTION }).waitFor();

    // Keys, webhooks and deliveries are theirs; licenses and the team are not, in the menu or by URL.
    await expect(nav('API keys').isVisible()).resolves.toBe(true);
    await expect(nav('Webhooks').isVisible()).resolves.toBe(true);
    await expect(nav('Licenses').count()).resolves.toBe(0);
    await expect(nav('Team').count()).resolves.toBe(0);
    await page.goto(`${app.origin}/#/i/${institutionId}/licenses`);
    await page.getByText('Not available to your role').waitFor();
    await shot(page, 'developer-licenses-refused');

    // And the server refuses them whatever the page shows.
    const answers = await page.evaluate(async (id) => {
      const session = (await (await fetch('/portal/api/session')).json()) as { data: { csrf_token: string } };
      const list = await fetch(`/portal/api/institutions/${id}/licenses`);
      const invite = await fetch(`/portal/api/institutions/${id}/developers/invitations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.data.csrf_token },
        body: JSON.stringify({ email: 'friend@lakeside.test' }),
      });
      return [list.status, ((await list.json()) as { error: string }).error, invite.status];
    }, institutionId);
    expect(answers).toEqual([403, 'forbidden', 403]);

    // The scope picker shows the admin-only scopes but will not let a developer pick them.
    await page.goto(`${app.origin}/#/i/${institutionId}/keys`);
    await page.getByRole('button', { name: 'Create key' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('can be granted only by an admin').waitFor();
    await expect(dialog.getByRole('checkbox', { name: 'licenses:write (admins only)' }).isDisabled()).resolves.toBe(true);
    await expect(dialog.getByRole('checkbox', { name: 'institution:write (admins only)' }).isDisabled()).resolves.toBe(true);
    await expect(dialog.getByRole('checkbox', { name: 'students:write' }).isDisabled()).resolves.toBe(false);
    await dialog.getByRole('button', { name: 'Everything' }).click();
    await expect(dialog.getByRole('checkbox', { name: 'licenses:write (admins only)' }).isChecked()).resolves.toBe(false);
    await shot(page, 'developer-scope-picker');
  });
});
