// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The operator's Jobs page in Chromium: every periodic job with its schedule and next run, a job
 * never run says so, "Run now" runs it and the row shows its outcome and when it finished.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../server/jobs/registry.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, signInOnPage, screenshotter } from '../helpers/browser.js';
import { setUpPortal } from '../helpers/portal.js';

const OPERATOR = { institution: 'Lakeside College', admin_email: 'admin@lakeside.test', admin_password: 'lakeside admin pw' };

describe.skipIf(!chromiumAvailable())('The Jobs page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  const shot = screenshotter('jobs');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    await setUpPortal(app, OPERATOR);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedIn(): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(browser);
    await signInOnPage(opened.page, app.origin, OPERATOR.admin_email, OPERATOR.admin_password);
    return opened;
  }

  it('lists the jobs with their schedules, and runs one now', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/operator/jobs`);
    await page.getByRole('main').getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('button', { name: 'Run now: prune-events' }).waitFor();
    for (const job of jobs) await expect(page.getByRole('main').getByText(job.name, { exact: true }).count()).resolves.toBe(1);

    const row = page.getByRole('row').filter({ hasText: 'prune-events' });
    await expect(row.textContent()).resolves.toContain('17 3 * * *');
    await expect(row.textContent()).resolves.toContain('Not run yet');

    await page.getByRole('button', { name: 'Run now: prune-events' }).click();
    await row.getByText('OK', { exact: true }).waitFor();
    await expect(row.textContent()).resolves.not.toContain('Not run yet');
    await shot(page, 'ran');
    expect(await app.ctx.db.models.JobRun.count({ where: { job: 'prune-events', outcome: 'ok' } })).toBe(1);
    expect(errors).toEqual([]);
  });
});
