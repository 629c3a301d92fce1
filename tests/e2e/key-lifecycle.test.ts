// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The key lifecycle in Chromium (docs/decisions/api-key-lifecycle.md): a key made with an expiry day, rolled with a
 * chosen overlap; the new key is shown once, both keys answer /v1/me, and the list shows both
 * with the old one's end and its replacement; the last use's address; an expired key shown as
 * expired. Real appliance on 127.0.0.1. Screenshots go to tests/artifacts/key-lifecycle/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';
import { institutionApi, ok, portalRequests, setUpPortal, type FirstRun } from '../helpers/portal.js';
import { waitFor } from '../helpers/wait.js';

const OPERATOR = { institution: 'Harbour College', admin_email: 'it@harbour.test', admin_password: 'harbour operator pw' };
const HOUR_MS = 3_600_000;

interface ListedKey {
  key_id: string;
  name: string;
  prefix: string;
  last4: string;
  expires_at: string | null;
  replaced_by: string | null;
  replaces: string | null;
  last_used_at: string | null;
}

describe.skipIf(!chromiumAvailable())('Key lifecycle in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let admin: FirstRun;
  let page: Page;
  let errors: string[];
  const shot = screenshotter('key-lifecycle');
  const portal = portalRequests(
    () => admin,
    () => institutionApi(admin.institutionId),
  );
  const listKeys = async () => ok<ListedKey[]>(await portal.get('/keys'));
  const me = (key: string) => fetch(`${app.origin}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    admin = await setUpPortal(app, OPERATOR);
    ({ page, errors } = await openPage(browser));
    await page.setViewportSize({ width: 1440, height: 900 });
    await signInOnPage(page, app.origin, OPERATOR.admin_email, OPERATOR.admin_password);
  }, 180_000);
  afterAll(async () => {
    expect(errors).toEqual([]);
    await browser?.close();
    await app?.close();
  });

  let oldKey = '';
  let newKey = '';

  it('creates a key that expires at the end of a chosen day', async () => {
    await page.goto(`${app.origin}/#/i/${admin.institutionId}/keys`);
    await page.getByText('No API keys yet').waitFor();
    await page.getByRole('button', { name: 'Create key' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Moodle production');
    await dialog.getByLabel('Rate limit (requests per minute)').fill('240');
    await dialog.getByLabel('Expires (optional)').fill('2027-06-30');
    await dialog.getByRole('checkbox', { name: 'students:read' }).check();
    await shot(page, 'create-with-expiry');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    oldKey = (await dialog.getByTestId('secret-value').textContent()) ?? '';
    expect(oldKey).toMatch(/^cb_live_/);
    await expect(dialog.textContent()).resolves.toContain('expires');
    await dialog.getByRole('button', { name: 'Done' }).click();

    const [created] = await listKeys();
    // The last moment of 30 June in the browser's time zone.
    expect(created!.expires_at).toBe(await page.evaluate(() => new Date('2027-06-30T23:59:59.999').toISOString()));
    const row = page.getByRole('row').filter({ hasText: 'Moodle production' });
    await expect(row.textContent()).resolves.toMatch(/ends .*2027/);
  });

  it('shows the last use and the address it came from', async () => {
    expect((await me(oldKey)).status).toBe(200);
    await waitFor(async () => (await listKeys())[0]?.last_used_at, 'the use to be recorded');
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'Moodle production' });
    await expect.poll(() => row.textContent()).toMatch(/from (::ffff:)?127\.0\.0\.1/);
  });

  it('rolls the key with a 3-day overlap: the new key shown once, both keys work, the list shows both and when the old one ends', async () => {
    await page.getByRole('button', { name: 'Actions for Moodle production' }).click();
    await page.getByRole('menuitem', { name: 'Roll key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Overlap', { exact: true }).click();
    await page.getByRole('option', { name: '3 days' }).click();
    await shot(page, 'roll-choose-overlap');
    const rolledAt = Date.now();
    await dialog.getByRole('button', { name: 'Roll key' }).click();
    newKey = (await dialog.getByTestId('secret-value').textContent()) ?? '';
    expect(newKey).toMatch(/^cb_live_/);
    expect(newKey).not.toBe(oldKey);
    await expect(dialog.textContent()).resolves.toContain('keeps working until');
    await shot(page, 'rolled-key-shown-once');
    await dialog.getByRole('button', { name: 'Done' }).click();

    expect((await me(oldKey)).status).toBe(200);
    const fresh = await me(newKey);
    expect(fresh.status).toBe(200);
    expect(((await fresh.json()) as { data: { rate_limit_per_min: number } }).data.rate_limit_per_min).toBe(240);

    const keys = await listKeys();
    const old = keys.find((key) => key.replaced_by)!;
    const replacement = keys.find((key) => key.replaces === old.key_id)!;
    expect(replacement).toBeDefined();
    expect(Math.abs(new Date(old.expires_at!).getTime() - (rolledAt + 72 * HOUR_MS))).toBeLessThan(30_000);

    const rows = page.getByRole('row').filter({ hasText: 'Moodle production' });
    await expect.poll(() => rows.count()).toBe(2);
    // Each row names the other: the old one its replacement, the new one the key it replaces.
    const oldRow = rows.filter({ hasText: 'replaced by' });
    await expect(rows.filter({ hasText: `replaces ${old.prefix}…${old.last4}` }).count()).resolves.toBe(1);
    const oldText = (await oldRow.textContent()) ?? '';
    expect(oldText).toContain(`replaced by ${replacement.prefix}…${replacement.last4}`);
    // The old key's end as the page formats dates, three days from now.
    const endShown = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
      old.expires_at!,
    );
    expect(oldText).toContain(`ends ${endShown}`);
    // The old key can no longer be rolled; the new one can.
    await page.getByRole('button', { name: 'Actions for Moodle production' }).first().waitFor();
    await oldRow.getByRole('button', { name: 'Actions for Moodle production' }).click();
    await expect(page.getByRole('menuitem', { name: 'Roll key' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    expect(await page.content()).not.toContain(newKey);
    await shot(page, 'both-keys-listed');
  });

  it('shows a key past its expiry as expired', async () => {
    const ending = ok<{ key_id: string }>(
      await portal.post('/keys', { name: 'Short-lived', scopes: ['students:read'], expires_at: new Date(Date.now() + 1_500).toISOString() }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'Short-lived' });
    await expect.poll(() => row.textContent()).toContain('expired');
    await expect(row.textContent()).resolves.toMatch(/ended /);
    expect(ending.key_id).toMatch(/^key_/);
    await shot(page, 'expired-key');
  });
});
