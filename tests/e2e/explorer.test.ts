// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The API explorer (`/v1/docs`) in Chromium: before anyone authorizes a key and presses "Try it
 * out", the page says that its requests act on live data.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_DATA_NOTICE } from '../../server/http/openapi.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
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

  it('warns at the top that Try it out acts on live data', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${app.origin}/v1/docs/`);
    const notice = page.getByText('Try it out acts on live data.');
    await notice.waitFor();
    const description = await page.locator('.info .markdown, .info .renderedMarkdown').first().textContent();
    expect(description).toContain('Requests sent from this page are real');
    expect(LIVE_DATA_NOTICE).toContain('Try it out acts on live data.');
    // Above the operations: the notice comes before the first "Try it out" the page offers.
    const noticeTop = (await notice.boundingBox())!.y;
    const firstOperation = (await page.locator('.opblock').first().boundingBox())!.y;
    expect(noticeTop).toBeLessThan(firstOperation);
    await shot(page, 'explorer');
    expect(errors).toEqual([]);
  });
});
