// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Lists sort by their columns in the portal: a paged list asks the server (`sort` in the URL, the
 * order of the whole list, not of one page), a list held whole sorts in the browser; both say
 * their direction in `aria-sort` and both are reached by keyboard.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/commands/institutions/api-keys.js';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { Tenant } from '../../server/db/tenant.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { setUpPortal } from '../helpers/portal.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';

describe.skipIf(!chromiumAvailable())('Sorting lists in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  const shot = screenshotter('sorting');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    // The portal offers sign-in once the appliance is set up.
    await setUpPortal(app, { institution: 'Sorting Academy', admin_email: 'admin@sorting.test', admin_password: 'sorting admin pw' });
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The first cell's main text of every body row of the main table. */
  const firstColumn = (page: Page) =>
    page
      .getByRole('main')
      .locator('tbody tr td:first-child')
      .evaluateAll((cells) => cells.map((cell) => (cell.querySelector('p, span')?.textContent ?? cell.textContent ?? '').trim()));

  /** The whole list's names in order, as the API sorts them: what page 1 must start with. */
  async function apiNames(sort: string): Promise<string[]> {
    const res = await app.http.get('/v1/students').query({ sort, limit: 25 }).set('Authorization', `Bearer ${demo.key}`);
    expect(res.status).toBe(200);
    return (res.body.data.items as Array<{ full_name: string }>).map((student) => student.full_name);
  }

  it('students: the Name header sorts the whole list on the server, ascending then descending, and the URL keeps it', async () => {
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students`);
    const header = page.getByRole('columnheader', { name: /Name/ });
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('none');

    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    expect(page.url()).toMatch(/sort=full_name/);
    const ascending = await apiNames('full_name');
    await expect.poll(() => firstColumn(page)).toEqual(ascending);
    // Each row's name is a link to the student (a new tab works), not only a clickable row.
    const firstLink = page.getByRole('main').locator('tbody tr').first().getByRole('link');
    expect(await firstLink.getAttribute('href')).toMatch(new RegExp(`^#/i/${demo.institution.id}/students/stu_`));
    await shot(page, 'students-by-name');

    // The keyboard reaches the same button; Enter presses it.
    await header.getByRole('button').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    expect(page.url()).toMatch(/sort=-full_name/);
    const descending = await apiNames('-full_name');
    expect(descending).not.toEqual(ascending);
    await expect.poll(() => firstColumn(page)).toEqual(descending);

    // A reload keeps the order; a third press returns to the usual one.
    await page.reload();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('none');
    expect(page.url()).not.toMatch(/sort=/);
    await expect.poll(() => firstColumn(page)).toEqual(await apiNames('created_at'));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('students and faculty: the search box finds part of a name without its accents, keeps the sort, and says what a one-letter search lacks', async () => {
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/students?sort=-full_name`);
    const box = page.getByRole('search', { name: 'Find a student' });
    await box.getByRole('textbox').fill('CHLOE dub');
    await box.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstColumn(page), { timeout: 10_000 }).toEqual(['Chloé Dubois']);
    expect(page.url()).toMatch(/q=CHLOE(\+|%20)dub/);
    expect(page.url()).toMatch(/sort=-full_name/);
    await shot(page, 'students-search');

    // Two matches ("ia" starts no word of the others), in the sort's order.
    await box.getByRole('textbox').fill('garc');
    await box.getByRole('button', { name: 'Search' }).click();
    const garcias = (await apiNames('-full_name')).filter((name) => /garc[ií]a/i.test(name));
    expect(garcias.length).toBeGreaterThan(0);
    await expect.poll(() => firstColumn(page), { timeout: 10_000 }).toEqual(garcias);

    // A whole e-mail address is matched exactly: the personal one too.
    await box.getByRole('textbox').fill('chloe.dubois@example.org');
    await box.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstColumn(page), { timeout: 10_000 }).toEqual(['Chloé Dubois']);
    expect(page.url()).toMatch(/email=chloe\.dubois%40example\.org/);

    await box.getByRole('textbox').fill('c');
    await box.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/at least 2 letters or digits of a name, student ID or login e-mail/i).waitFor();

    await page.goto(`${app.origin}/#/i/${demo.institution.id}/faculty`);
    const facultyBox = page.getByRole('search', { name: 'Find a faculty member' });
    await facultyBox.getByRole('textbox').fill('okaf');
    await facultyBox.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => firstColumn(page), { timeout: 10_000 }).toEqual(['Miriam Okafor']);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('deliveries: newest first by default; the Created header flips to oldest first', async () => {
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/webhooks/deliveries`);
    const header = page.getByRole('columnheader', { name: /Created/ });
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    expect(page.url()).toMatch(/sort=created_at/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keys, a list held whole, sort in the browser by name', async () => {
    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    for (const name of ['Moodle sync', 'Attendance export', 'Zoom roster']) {
      await createApiKey(tenant, { name, scopes: ['groups:read'], rate_limit_per_min: 600 });
    }
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/keys`);
    await page.getByRole('row').filter({ hasText: 'Zoom roster' }).waitFor();
    const header = page.getByRole('columnheader', { name: /^Name/ });
    const names = () => page.getByRole('main').locator('tbody tr td:first-child').allTextContents();
    const before = await names();

    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    const sorted = [...before].sort((a, b) => a.localeCompare(b));
    await expect.poll(names).toEqual(sorted);
    await header.getByRole('button').click();
    await expect.poll(names).toEqual([...sorted].reverse());
    await header.getByRole('button').click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('none');
    await expect.poll(names).toEqual(before);
    await shot(page, 'keys-unsorted');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
