// Debian's Chromium driven by playwright-core (Playwright's own browser download is not
// available here). CI installs it with apt; elsewhere CHROMIUM_PATH can point to another build.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Whether the browser tests can run. In CI they must: a missing browser fails there, not skips. */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true') throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}; .ci/run installs it with apt`);
  return false;
}

/**
 * Chromium's fake camera and screen for proctoring tests, every permission prompt answered `allow`
 * (or `deny`, as a student who refuses would).
 */
const fakeMediaFlags = (answer: 'allow' | 'deny') => [
  '--use-fake-device-for-media-stream',
  answer === 'allow' ? '--use-fake-ui-for-media-stream' : '--use-fake-ui-for-media-stream=deny',
];

export function launchChromium(options: { fakeMedia?: 'allow' | 'deny' } = {}): Promise<Browser> {
  const args = options.fakeMedia ? [...FLAGS, ...fakeMediaFlags(options.fakeMedia)] : FLAGS;
  return chromium.launch({ executablePath: CHROMIUM_PATH, args, headless: true });
}

/** Screenshots land in tests/artifacts/ (ignored by git), one folder per suite. */
export function screenshotter(suite: string) {
  const dir = path.join(import.meta.dirname, '..', 'artifacts', suite);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  return async (page: Page, name: string) => {
    count += 1;
    await page.screenshot({ path: path.join(dir, `${String(count).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
}

/** A page in a fresh browser context (its own cookies) at desktop size, collecting script errors. */
export async function openPage(browser: Browser, options: { acceptDownloads?: boolean } = {}): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: options.acceptDownloads ?? false });
  // Fail with the locator's name instead of hanging until the test times out.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

/** Signs in on the portal's sign-in page and waits for the signed-in header. */
export async function signInOnPage(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(origin);
  await page.getByLabel('Email').fill(email);
  await page
    .getByLabel(/^Password/)
    .and(page.locator('input'))
    .fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The words of badges on the page that are cut short (their label wider than the room it has). */
export function truncatedBadges(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.mantine-Badge-label')].filter((label) => label.scrollWidth > label.clientWidth + 1).map((label) => label.textContent ?? ''),
  );
}
