// Debian's Chromium driven by playwright-core (Playwright's own browser download is not
// available here). CI installs it with apt; elsewhere CHROMIUM_PATH can point to another build.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/** The browsers this worker launched, by their flags: each suite borrows one instead of starting its own. */
const launched = new Map<string, Promise<Browser>>();

/**
 * A Chromium for a suite: one per worker process and set of flags, shared by the suites the worker
 * runs one after the other (the browser project shares its modules between files). What a suite
 * gets is a lease: its `close()` closes the contexts the suite opened, and leaves the browser to
 * the next suite; Playwright ends the browser when the worker exits.
 */
export async function launchChromium(options: { fakeMedia?: 'allow' | 'deny'; extraArgs?: readonly string[] } = {}): Promise<Browser> {
  const args = [...FLAGS, ...(options.fakeMedia ? fakeMediaFlags(options.fakeMedia) : []), ...(options.extraArgs ?? [])];
  const key = args.join(' ');
  let browser = launched.get(key);
  if (!browser) {
    browser = chromium.launch({ executablePath: CHROMIUM_PATH, args, headless: true });
    launched.set(key, browser);
    // A browser that crashed or failed to start is launched again by the next suite.
    browser.then(
      (started) => started.on('disconnected', () => launched.delete(key)),
      () => launched.delete(key),
    );
  }
  return lease(await browser);
}

/** The browser, with `close()` closing only the contexts opened through this lease. */
function lease(browser: Browser): Browser {
  const contexts = new Set<BrowserContext>();
  const track = (context: BrowserContext) => {
    contexts.add(context);
    context.on('close', () => contexts.delete(context));
    return context;
  };
  return new Proxy(browser, {
    get(target, property) {
      if (property === 'close') return async () => void (await Promise.all([...contexts].map((context) => context.close().catch(() => undefined))));
      if (property === 'newContext') return async (...args: Parameters<Browser['newContext']>) => track(await target.newContext(...args));
      if (property === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args);
          track(page.context());
          return page;
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * With SCREENSHOTS=1, screenshots land in tests/artifacts/ (ignored by git), one folder per suite,
 * for a person to look at. Otherwise none is taken: a full-page PNG costs the machine more than
 * most steps of a test, and nothing in a run reads it.
 */
export function screenshotter(suite: string) {
  if (process.env.SCREENSHOTS !== '1') return async (_page: Page, _name: string) => undefined;
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
  context.setDefaultTimeout(30_000);
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
