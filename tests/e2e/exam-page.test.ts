// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The portal's exam page in Chromium, on the demo institution: the instructions read as the
 * students read them (Markdown, raw HTML shown as text), and a coding exam lists the archives its
 * students download, with links that serve exactly the listed bytes, and says whether the
 * hidden-tests key is held.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { seriousViolations } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { setUpPortal } from '../helpers/portal.js';

interface Archive {
  name: string;
  size: number;
  sha256: string;
}

describe.skipIf(!chromiumAvailable())('The portal’s exam page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  const shot = screenshotter('exam-page');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    // The portal signs people in once its first run (the operator) is done.
    await setUpPortal(app, { institution: 'Lakeside School', admin_email: 'operator@lakeside.test', admin_password: 'lakeside operator pw' });
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const v1 = (method: 'get' | 'post', path: string) => app.http[method](`/v1${path}`).set('Authorization', `Bearer ${demo.key}`);

  /**
   * Signed in as the demo's admin. The page's CSP is bypassed so axe can run, and so a script let
   * through by the Markdown would run and be caught, not only blocked by the CSP.
   */
  async function signedIn(width = 1280) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    return { page, errors };
  }

  it('a coding exam: instructions as Markdown, its three archives with links serving the listed bytes, the hidden-tests key held', async () => {
    const exams = (await v1('get', '/exams')).body.data.items as Array<{ id: string; app: string }>;
    const examId = exams.find((exam) => exam.app === 'code')!.id;
    const detail = (await v1('get', `/exams/${examId}`)).body.data as { files: Archive[]; stats: { attempts: number } };

    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/exams/${examId}`);
    await page.getByRole('heading', { name: 'Python Basics: Lists and Loops' }).waitFor();

    // The teacher's "## Task" sits under the page's "Instructions" (h4): an h6, with inline code as code.
    await page.getByRole('heading', { name: 'Instructions', level: 4 }).waitFor();
    await page.getByRole('heading', { name: 'Task', level: 6 }).waitFor();
    expect(await page.locator('code', { hasText: 'running_total(values)' }).count()).toBeGreaterThan(0);

    const table = page.getByRole('table', { name: 'Coding exam files' });
    const rows = table.getByRole('row');
    await rows.nth(3).waitFor();
    for (const file of detail.files) {
      const row = rows.filter({ hasText: file.name });
      await row.getByText(file.sha256).waitFor();
      const href = await row.getByRole('link', { name: file.name }).getAttribute('href');
      const res = await fetch(new URL(href!, app.origin));
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([file.name, res.status, bytes.length]).toEqual([file.name, 200, file.size]);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    }
    const status = page.getByTestId('hidden-key-status');
    await status.getByText(/^Hidden-tests key: stored /).waitFor();
    expect(await status.textContent()).toContain(`received by ${detail.stats.attempts} attempts so far`);
    await shot(page, 'coding-exam');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('raw HTML in a description is shown as text, never run; at 390 px nothing scrolls sideways', async () => {
    const teacher = (await v1('get', '/faculty')).body.data.items[0] as { id: string };
    const created = await v1('post', '/exams').send({
      faculty_id: teacher.id,
      title: 'Instructions with HTML',
      description: '# Read first\n\n<img src="x" onerror="window.__ran = true"> and <script>window.__ran = true</script>\n\n- one\n- two',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const { page, errors } = await signedIn(390);
    await page.goto(`${app.origin}/#/i/${demo.institution.id}/exams/${created.body.data.id}`);
    await page.getByRole('heading', { name: 'Read first', level: 5 }).waitFor();
    await page.getByText('<img src="x" onerror="window.__ran = true">', { exact: false }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __ran?: boolean }).__ran)).toBeUndefined();
    expect(await page.getByRole('listitem').filter({ hasText: /^two$/ }).count()).toBe(1);
    // Not a coding exam: no files section.
    expect(await page.getByRole('table', { name: 'Coding exam files' }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(page, 'html-as-text-phone');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
