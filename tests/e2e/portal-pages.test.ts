// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Every portal page renders in Chromium for the roles that may see it, with no script error and no
 * error alert, at a laptop's size and at a narrow one; roles that may not see a page are told so.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../server/commands/demo/seed.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage, truncatedBadges } from '../helpers/browser.js';
import { createAccount, institutionApi, setUpPortal, signIn } from '../helpers/portal.js';

const ADMIN = { institution: 'Hillcrest Academy', admin_email: 'admin@hillcrest.test', admin_password: 'hillcrest admin pw' };
const DEVELOPER = { email: 'dev@hillcrest.test', password: 'hillcrest developer pw' };

/** Institution pages by path, and whether a developer may open them. */
const INSTITUTION_PAGES: Array<[path: string, heading: RegExp, developer: boolean]> = [
  ['', /Hillcrest Academy/, true],
  ['keys', /API keys/, true],
  ['scopes', /Scopes/, true],
  ['webhooks', /Webhooks|endpoints/i, true],
  ['webhooks/deliveries', /Deliveries/, true],
  ['students', /Students/, false],
  ['faculty', /Faculty/, false],
  ['groups', /Groups/, false],
  ['licenses', /Licenses/, false],
  ['exams', /Exams/, false],
  ['submissions', /Submissions/, false],
  ['settings', /settings/i, false],
  ['developers', /Team/, false],
  ['outbox', /outbox/i, false],
  ['audit-log', /Audit log/, false],
];
const OPERATOR_PAGES = ['institutions', 'coupon-batches', 'allowances', 'curricula', 'mail-server', 'audit-log', 'backups', 'jobs'];

describe.skipIf(!chromiumAvailable())('Every portal page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let institutionId = '';
  const shot = screenshotter('portal-pages');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    ({ institutionId } = await setUpPortal(app, ADMIN));
    await createAccount(app, institutionId, 'developer', DEVELOPER);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A signed-in browser context for `email`, at `width`, collecting script errors. */
  async function signedIn(email: string, password: string, width = 1280): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signInOnPage(page, app.origin, email, password);
    return { context, page, errors };
  }

  /** Opens `hash`, waits for its heading and for loading to finish, and checks nothing failed. */
  async function visit(page: Page, hash: string, heading: RegExp) {
    await page.goto(`${app.origin}/#${hash}`);
    await page.getByRole('main').getByRole('heading', { name: heading }).first().waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    const alerts = await page.getByRole('main').getByRole('alert').allTextContents();
    return alerts;
  }

  it('as the admin (who is also the operator), every page loads without an error', async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password);
    for (const [path, heading] of INSTITUTION_PAGES) {
      const alerts = await visit(page, `/i/${institutionId}${path ? `/${path}` : ''}`, heading);
      expect({ path, alerts }).toEqual({ path, alerts: [] });
      expect({ path, truncated: await truncatedBadges(page) }).toEqual({ path, truncated: [] });
      await shot(page, `admin-${path || 'overview'}`.replaceAll('/', '-'));
    }
    for (const path of OPERATOR_PAGES) {
      await page.goto(`${app.origin}/#/operator/${path}`);
      await page.getByRole('main').getByRole('heading').first().waitFor();
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      expect({ path, alerts: await page.getByRole('main').getByRole('alert').allTextContents() }).toEqual({ path, alerts: [] });
      await shot(page, `operator-${path}`);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it("with the demo institution's data at 1280 px, no status badge on any page is cut short", async () => {
    const demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    const { context, page, errors } = await signedIn(demo.admin.account.email, demo.admin.password);
    const cut: Array<{ path: string; truncated: string[] }> = [];
    for (const [path, heading] of INSTITUTION_PAGES) {
      const hash = `/i/${demo.institution.id}${path ? `/${path}` : ''}`;
      await visit(page, hash, path === '' ? new RegExp(demo.institution.name) : heading);
      const truncated = await truncatedBadges(page);
      if (truncated.length > 0) cut.push({ path, truncated });
    }
    await visit(page, `/i/${demo.institution.id}/webhooks/deliveries`, /Deliveries/);
    await shot(page, 'demo-deliveries');
    expect(cut).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('as a developer: their pages load, the others say the role does not allow them', async () => {
    const { context, page, errors } = await signedIn(DEVELOPER.email, DEVELOPER.password);
    for (const [path, heading, allowed] of INSTITUTION_PAGES) {
      const hash = `/i/${institutionId}${path ? `/${path}` : ''}`;
      if (allowed) {
        expect({ path, alerts: await visit(page, hash, heading) }).toEqual({ path, alerts: [] });
      } else {
        await page.goto(`${app.origin}/#${hash}`);
        await page.getByRole('alert').filter({ hasText: 'Not available to your role' }).waitFor();
      }
    }
    await page.goto(`${app.origin}/#/operator/institutions`);
    await page.getByRole('alert').filter({ hasText: 'Not available to your account' }).waitFor();
    await shot(page, 'developer-operator-refused');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('adds a student and a faculty member through their forms', async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password);
    for (const [area, button, idLabel, name, externalId] of [
      ['students', 'Add student', 'Student ID', 'Ada Lovelace', 'S-100'],
      ['faculty', 'Add faculty member', 'Faculty ID', 'Grace Hopper', 'F-100'],
    ] as const) {
      await visit(page, `/i/${institutionId}/${area}`, area === 'students' ? /Students/ : /Faculty/);
      await page.getByRole('main').getByRole('button', { name: button }).first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Full name/).fill(name);
      await dialog.getByLabel(idLabel).fill(externalId);
      await dialog.getByRole('button', { name: button }).click();
      await page.getByRole('row').filter({ hasText: name }).waitFor();
    }
    // Made in the portal, stored as the API stores them.
    const people = await app.ctx.db.models.Person.findAll({ where: { institution_id: institutionId }, order: [['role', 'ASC']] });
    expect(people.map((person) => [person.role, person.full_name, person.external_id])).toEqual([
      ['faculty', 'Grace Hopper', 'F-100'],
      ['student', 'Ada Lovelace', 'S-100'],
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('makes a key with the keyboard alone', async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password);
    await visit(page, `/i/${institutionId}/keys`, /API keys/);
    const focusedLabel = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLInputElement | null;
        return element?.labels?.[0]?.textContent?.trim() ?? element?.textContent?.trim() ?? '';
      });
    /** Presses `key` until the focused element's label starts with `label` (a form a mouse never touches). */
    const moveFocusTo = async (label: string, key: 'Tab' | 'Shift+Tab') => {
      for (let presses = 0; presses < 60; presses += 1) {
        if ((await focusedLabel()).startsWith(label)) return;
        await page.keyboard.press(key);
      }
      throw new Error(`focus never reached "${label}"`);
    };

    await moveFocusTo('Create key', 'Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect(await focusedLabel()).toMatch(/^Name/);
    await page.keyboard.type('Keyboard key');
    await moveFocusTo('groups:read', 'Tab');
    await page.keyboard.press('Space');
    await moveFocusTo('Name', 'Shift+Tab');
    await page.keyboard.press('Enter');
    const secret = await page.getByRole('dialog').getByTestId('secret-value').textContent();
    expect(secret).toMatch(/^cb_live_/);
    await shot(page, 'keyboard-key-created');
    await page.keyboard.press('Escape');
    await page.getByRole('row').filter({ hasText: 'Keyboard key' }).filter({ hasText: 'groups:read' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("fits a phone's width (390 px): no institution page scrolls sideways", async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password, 390);
    const wide: Array<{ path: string; overflow: number }> = [];
    for (const [path, heading] of INSTITUTION_PAGES) {
      await visit(page, `/i/${institutionId}${path ? `/${path}` : ''}`, heading);
      // The page does not scroll sideways, and nothing in the fixed header is cut off at its edge.
      const overflow = await page.evaluate(() => {
        const header = [...document.querySelectorAll('header *')].filter((element) => element.getClientRects().length > 0);
        const headerRight = Math.max(0, ...header.map((element) => element.getBoundingClientRect().right));
        return Math.max(document.documentElement.scrollWidth - document.documentElement.clientWidth, headerRight - window.innerWidth);
      });
      if (overflow > 0) wide.push({ path, overflow });
      await shot(page, `phone-${path || 'overview'}`.replaceAll('/', '-'));
    }
    expect(wide).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fits a narrow window: the navigation folds behind a menu button', async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password, 760);
    await visit(page, `/i/${institutionId}/keys`, /API keys/);
    const navigation = page.getByRole('navigation', { name: 'Portal navigation' });
    // Folded away means moved off the left edge of the window.
    const scopesLink = navigation.getByRole('link', { name: 'Scopes' });
    const folded = await scopesLink.boundingBox();
    expect(folded ? folded.x + folded.width : 0).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.waitForFunction(() => {
      const link = [...document.querySelectorAll('nav a')].find((element) => element.textContent === 'Scopes');
      return link !== undefined && link.getBoundingClientRect().left >= 0;
    });
    await navigation.getByRole('link', { name: 'Scopes' }).click();
    await page.getByRole('main').getByRole('heading', { name: 'Scopes' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'narrow-scopes');
    expect(errors).toEqual([]);
    await context.close();
  });
  it("the operator's audit log names each entry's institution and keeps times and addresses on one line", async () => {
    const { context, page, errors } = await signedIn(ADMIN.admin_email, ADMIN.admin_password);
    // Something audited for the institution: a student added through the portal (last in this file: the forms test counts people).
    const admin = await signIn(app, ADMIN.admin_email, ADMIN.admin_password);
    const added = await admin.agent
      .post(`${institutionApi(institutionId)}/students`)
      .set('X-CSRF-Token', admin.csrf)
      .send({ full_name: 'Audited Pupil' });
    expect(added.body.success, added.text).toBe(true);
    await page.goto(`${app.origin}/#/operator/audit-log`);
    const table = page.getByRole('table', { name: 'Audit log' });
    await table.getByRole('row').nth(1).waitFor();
    // Without the sort arrow (aria-hidden) that a sortable header carries.
    const headers = (await table.getByRole('columnheader').allTextContents()).map((text) => text.replace(/[▲▼↕]/g, '').trim());
    expect(headers).toEqual(['When', 'Institution', 'Who', 'What', 'On', 'From']);
    // Names come from their own query: the id shows until it answers.
    await table.getByText('Hillcrest Academy').first().waitFor();
    const lines = await page.evaluate(() =>
      [...document.querySelectorAll('table[aria-label="Audit log"] tbody tr')].map((row) => {
        const cells = row.querySelectorAll('td');
        const height = (cell: Element | undefined) => (cell ? cell.getBoundingClientRect().height : 0);
        const lineHeight = parseFloat(getComputedStyle(cells[0]!).lineHeight) || 20;
        const span = (cell: Element | undefined) => (cell?.firstElementChild ? cell.firstElementChild.getBoundingClientRect().height : height(cell));
        return { when: Math.round(span(cells[0]) / lineHeight), from: Math.round(span(cells[5]) / lineHeight) };
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toEqual({ when: 1, from: 1 });
    // Every column in sight at 1280 px: the table does not scroll sideways.
    const scrolls = await page.evaluate(() => {
      const table = document.querySelector('table[aria-label="Audit log"]')!;
      const container = table.parentElement!;
      return container.scrollWidth - container.clientWidth;
    });
    expect(scrolls).toBeLessThanOrEqual(0);
    await shot(page, 'operator-audit-log-columns');
    expect(errors).toEqual([]);
    await context.close();
  });
});
