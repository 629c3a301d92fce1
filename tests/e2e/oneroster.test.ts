// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The OneRoster set-up pages in Chromium (issue 20): an admin connects the institution to a SIS
 * (the provider written from the 1EdTech specifications, on 127.0.0.1), tests the connection,
 * dry-runs, syncs, is held back by the guard and applies the sync after confirming, and reads the
 * runs. Screenshots go to tests/artifacts/oneroster/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeApplianceSetting } from '../../server/settings/appliance-settings.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage, truncatedBadges } from '../helpers/browser.js';
import { OneRosterProvider, seedSchool } from '../helpers/oneroster-provider.js';
import { setUpPortal } from '../helpers/portal.js';

const ADMIN = { institution: 'Riverside High', admin_email: 'it@riverside.test', admin_password: 'riverside admin pw' };

describe.skipIf(!chromiumAvailable())('OneRoster pages in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let provider: OneRosterProvider;
  let institutionId = '';
  const shot = screenshotter('oneroster');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, browser, provider] = await Promise.all([startTestAppliance(), launchChromium(), new OneRosterProvider().start()]);
    await writeApplianceSetting(app.ctx.db, 'webhook_private_hosts', 'all');
    seedSchool(provider, { students: 48, teachers: 2, classes: 2 });
    institutionId = (await setUpPortal(app, ADMIN)).institutionId;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), provider?.close()]);
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const main = () => page.getByRole('main');

  it('connects from the navigation, and refuses a bad URL in words under the field', async () => {
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    await page.getByRole('link', { name: 'OneRoster' }).click();
    await main().getByRole('heading', { name: 'OneRoster' }).waitFor();
    await main().getByText('No sync has run yet.').waitFor();
    await shot(page, 'empty');

    await main().getByLabel('Base URL').fill('not a url');
    await main().getByLabel('Client ID').fill(provider.clientId);
    await main().getByLabel('Client secret').fill(provider.clientSecret);
    await main().getByRole('button', { name: 'Connect', exact: true }).click();
    await main()
      .getByText(/Base URL.*valid absolute URL/)
      .waitFor();

    await main().getByLabel('Base URL').fill(provider.url);
    await main().getByLabel('Token URL').fill(provider.tokenUrl);
    await main().getByText('In the form body').click();
    await main().getByLabel('Sync every (hours)').fill('12');
    await main().getByRole('button', { name: 'Connect', exact: true }).click();
    await main().getByRole('button', { name: 'Save connection' }).waitFor();
    await main().getByText('A secret is stored; leave empty to keep it.').waitFor();
    expect(await main().getByLabel('Client secret').inputValue()).toBe('');
    const row = await app.ctx.db.models.OneRosterConnection.findOne({ where: { institution_id: institutionId } });
    expect(row).toMatchObject({ url: provider.url, auth_method: 'form', schedule_hours: 12 });
    await shot(page, 'connected');
  });

  it('tests the connection, dry-runs without changing anything, then syncs', async () => {
    await main().getByRole('button', { name: 'Test connection' }).click();
    await main().getByRole('status').filter({ hasText: 'The SIS answered' }).filter({ hasText: '51 in all' }).waitFor();
    expect(provider.tokenAuth).toContain('form');

    await main().getByRole('button', { name: 'Dry run' }).click();
    await main()
      .getByRole('status')
      .filter({ hasText: 'Dry run: nothing was changed' })
      .filter({ hasText: '48 students, 2 faculty, 2 groups created' })
      .waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId } })).toBe(0);
    await shot(page, 'dry-run');

    await main().getByRole('button', { name: 'Sync now' }).click();
    await main().getByRole('status').filter({ hasText: 'Applied' }).filter({ hasText: '48 memberships added' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, role: 'student' } })).toBe(48);
    await shot(page, 'synced');
  });

  it('a sync that would suspend a quarter of the school (half of one class) is held back until the admin confirms it', async () => {
    for (const user of provider.users.filter((row) => row.role === 'student' && Number(row.sourcedId.slice(2)) % 2 === 0).slice(0, 12)) {
      Object.assign(user, { status: 'tobedeleted', dateLastModified: '2026-06-01T00:00:00.000Z' });
    }
    await main().getByRole('button', { name: 'Sync now' }).click();
    const held = main().getByRole('status').filter({ hasText: 'Held back: nothing was changed' });
    // 12 of 48 students is past the school's 10% before any class's 25%: the reason names the first rule broken.
    await held.filter({ hasText: "It would suspend 12 of the school's 48 active students, more than 10%." }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, status: 'suspended' } })).toBe(0);
    await page.getByRole('alert').filter({ hasText: 'The last sync was held back' }).waitFor();
    await shot(page, 'held-back');

    await held.getByRole('button', { name: 'Review and apply…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Apply the held-back sync?' });
    await dialog.waitFor();
    await shot(page, 'confirm');
    await dialog.getByRole('button', { name: 'Apply the sync' }).click();
    await main().getByRole('status').filter({ hasText: 'Applied' }).filter({ hasText: '12 students, 0 faculty suspended' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, status: 'suspended' } })).toBe(12);

    const runs = main().getByRole('table', { name: 'Sync runs' });
    await expect.poll(() => runs.getByRole('row').count()).toBe(5);
    await runs.getByRole('row').nth(1).getByText('Applied').waitFor();
    await runs.getByRole('row').nth(2).getByText('Held back').waitFor();
    await runs.getByRole('row').nth(4).getByText('Dry run').waitFor();
    expect(await truncatedBadges(page)).toEqual([]);
    await shot(page, 'runs');
  });

  it('disconnects after a confirmation; the people stay', async () => {
    await main().getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect from the SIS?' });
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await main().getByRole('button', { name: 'Connect', exact: true }).waitFor();
    await main().getByText('No sync has run yet.').waitFor();
    expect(await main().getByLabel('Base URL').inputValue()).toBe('');
    expect(await app.ctx.db.models.OneRosterConnection.count({ where: { institution_id: institutionId } })).toBe(0);
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, role: 'student' } })).toBe(48);
  });
});
