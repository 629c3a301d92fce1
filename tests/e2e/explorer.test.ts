// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The API explorer (`/v1/docs`) in Chromium: before anyone authorizes a key and presses "Try it
 * out", the page says to try with a sandbox key; a change sent with a live key asks first (and is
 * not sent when refused), one sent with a sandbox key goes; and axe finds nothing serious.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_DATA_NOTICE } from '../../server/http/openapi.js';
import { makeKey, makeSchool, startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { seriousViolations } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter } from '../helpers/browser.js';

describe.skipIf(!chromiumAvailable())('The API explorer in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  const shot = screenshotter('explorer');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('tells the reader to try with a sandbox key, at the top', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${app.origin}/v1/docs/`);
    const notice = page.getByText('Try it out with a sandbox key.');
    await notice.waitFor();
    const description = await page.locator('.info .markdown, .info .renderedMarkdown').first().textContent();
    expect(description).toContain('Requests sent from this page are real');
    expect(LIVE_DATA_NOTICE).toContain('Try it out with a sandbox key.');
    // Above the operations: the notice comes before the first "Try it out" the page offers.
    const noticeTop = (await notice.boundingBox())!.y;
    const firstOperation = (await page.locator('.opblock').first().boundingBox())!.y;
    expect(noticeTop).toBeLessThan(firstOperation);
    await shot(page, 'explorer');
    expect(errors).toEqual([]);
  });

  it('asks before a change with a live key, sends nothing when refused, and sends a sandbox change at once', async () => {
    const school = await makeSchool(app);
    const sandbox = await makeKey(app, school.inst, { scopes: ['all'], environment: 'sandbox' });
    const { page } = await openPage(browser);
    await page.goto(`${app.origin}/v1/docs/#/Students/createStudent`);
    const operation = page.locator('#operations-Students-createStudent');
    await operation.waitFor();
    if (!(await operation.locator('.opblock-body').isVisible())) await operation.locator('.opblock-summary-control').click();

    const authorize = async (secret: string) => {
      await page.locator('.auth-wrapper .authorize').click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      const logout = dialog.getByRole('button', { name: 'Remove authorization' });
      if (await logout.count()) await logout.first().click();
      await dialog.locator('input').first().fill(secret);
      await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
      await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
    };
    const send = async (name: string) => {
      const tryIt = operation.getByRole('button', { name: 'Try it out' });
      if (await tryIt.count()) await tryIt.click();
      await operation.locator('textarea.body-param__text').fill(JSON.stringify({ full_name: name }));
      await operation.getByRole('button', { name: 'Execute' }).click();
    };
    const named = async (name: string, key: typeof school.key) =>
      ((await app.http.get('/v1/students').query({ limit: 200 }).set('Authorization', key.auth)).body.data.items as Array<{ full_name: string }>).filter(
        (student) => student.full_name === name,
      ).length;

    // A live key: the page asks; refused, nothing reaches the appliance.
    await authorize(school.key.key);
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await send('Refused Live');
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain('This is a live key');
    expect(await named('Refused Live', school.key)).toBe(0);

    // A sandbox key: no question, the student is made in the sandbox.
    await authorize(sandbox.key);
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await send('Sandbox Student');
    await expect.poll(() => named('Sandbox Student', sandbox)).toBe(1);
    expect(asked).toHaveLength(1);
    expect(await named('Sandbox Student', school.key)).toBe(0);
    await shot(page, 'sandbox-change-sent');
  });

  it('has no serious or critical accessibility finding, folded or open', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${app.origin}/v1/docs/`);
    await page.locator('.opblock').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('.opblock-summary-control').first().click();
    await page.getByRole('button', { name: 'Try it out' }).first().click();
    expect(await seriousViolations(page)).toEqual([]);
    // The Authorize dialog: its buttons named by what they show.
    await page.locator('.auth-wrapper .authorize').click();
    await page.getByRole('button', { name: 'Close', exact: true }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
