// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Every page of the portal, signed out and signed in, lists and details, with the demo
 * institution's data, at a laptop's width (1280 px) and a phone's (390 px): axe-core finds no
 * serious or critical violation, nothing scrolls sideways, and a screenshot of each lands in
 * tests/artifacts/every-page/ for a person to look at.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { sandboxIdsOf } from '../../server/commands/institutions/sandbox.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { horizontalOverflow, seriousViolations, type SeriousViolation } from '../helpers/axe.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage } from '../helpers/browser.js';
import { setUpPortal } from '../helpers/portal.js';

const OPERATOR = { institution: 'Hillcrest Academy', admin_email: 'admin@hillcrest.test', admin_password: 'hillcrest admin pw' };
const WIDTHS = [1280, 390] as const;

/** One line per thing wrong with a page, so a failure reads as a list of what to fix. */
const described = (problems: Problem[]) =>
  problems.flatMap(({ page, width, violations = [], overflow = 0, errors = [] }) => [
    ...violations.map((violation) => `${page} @${width}: ${violation.impact} ${violation.rule} (${violation.help}) at ${violation.targets.join(' | ')}`),
    ...(overflow > 0 ? [`${page} @${width}: scrolls ${overflow} px sideways`] : []),
    ...errors.map((error) => `${page} @${width}: script error ${error}`),
  ]);

interface Problem {
  page: string;
  width: number;
  violations?: SeriousViolation[];
  overflow?: number;
  errors?: string[];
}

describe.skipIf(!chromiumAvailable())('Every portal page: accessible, no sideways scroll, a screenshot at each width', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  const shot = screenshotter('every-page');

  /** What the first-run wizard showed, checked before the appliance is set up (it is the only page then). */
  const wizardProblems: Problem[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    try {
      const signedOut = await checker(null);
      await signedOut.check(wizardProblems, 'setup-wizard', '/');
      await signedOut.close();
    } finally {
      await setUpPortal(app, OPERATOR);
      demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    }
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The first item of a /v1 list of the demo institution. */
  async function firstOf(path: string, query: Record<string, string | number> = {}): Promise<Record<string, string>> {
    const res = await app.http
      .get(`/v1${path}`)
      .query({ limit: 1, ...query })
      .set('Authorization', `Bearer ${demo.key}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const item = res.body.data.items[0] as Record<string, string> | undefined;
    expect(item, `the demo institution has no ${path}`).toBeDefined();
    return item!;
  }

  /**
   * A checker for pages seen by `who` (or signed out): one browser context per width, signed in
   * once; each page is opened at both widths, checked, and photographed.
   */
  async function checker(who: { email: string; password: string } | null) {
    const tabs = await Promise.all(
      WIDTHS.map(async (width) => {
        // axe is injected as an inline script, which the portal's Content-Security-Policy rightly refuses.
        const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
        context.setDefaultTimeout(30_000);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        if (who) await signInOnPage(page, app.origin, who.email, who.password);
        return { width, page, errors };
      }),
    );
    return {
      /** Opens the page at each width, does `act` there (a toast, an open tab), and checks what is on screen. */
      async check(problems: Problem[], name: string, hash: string, act?: (page: Page) => Promise<void>) {
        for (const tab of tabs) {
          tab.errors.length = 0;
          await tab.page.goto(`${app.origin}/#${hash}`);
          await settle(tab.page);
          if (act) await act(tab.page);
          const violations = await seriousViolations(tab.page);
          const overflow = await horizontalOverflow(tab.page);
          if (violations.length > 0 || overflow > 0 || tab.errors.length > 0)
            problems.push({ page: name, width: tab.width, violations, overflow, errors: [...tab.errors] });
          await shot(tab.page, `${name}-${tab.width}`);
        }
      },
      close: () => Promise.all(tabs.map((tab) => tab.page.context().close())),
    };
  }

  /** Waits for the toasts to finish fading in: axe judges the colours on screen, and a fading toast's are faint. */
  function toastShown(page: Page) {
    return page.waitForFunction(() =>
      [...document.querySelectorAll('.mantine-Notification-root')].every((toast) => {
        for (let node: Element | null = toast; node; node = node.parentElement) if (getComputedStyle(node).opacity !== '1') return false;
        return true;
      }),
    );
  }

  /** Waits for the page's heading, for every list and chart to finish loading, and for the network to go quiet. */
  async function settle(page: Page) {
    await page.locator('h1, h2').first().waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    await page.waitForLoadState('networkidle');
  }

  it('signed out: the first-run wizard, sign-in, forgotten and reset password, an invitation', async () => {
    const problems: Problem[] = [...wizardProblems];
    const signedOut = await checker(null);
    await signedOut.check(problems, 'sign-in', '/');
    await signedOut.check(problems, 'forgot-password', '/forgot-password');
    await signedOut.check(problems, 'reset-password', '/reset-password?token=not-a-real-token');
    await signedOut.check(problems, 'accept-invite', '/accept-invite?token=not-a-real-token');
    await signedOut.close();
    expect(described(problems)).toEqual([]);
  }, 120_000);

  it("an institution's admin: every list and every detail page, with the demo data", async () => {
    const problems: Problem[] = [];
    const admin = { email: demo.admin.account.email, password: demo.admin.password };
    const base = `/i/${demo.institution.id}`;
    const submission = await firstOf('/submissions', { status: 'graded' });
    const delivery = await firstOf('/webhooks/deliveries');
    const pages: Array<[name: string, hash: string]> = [
      ['overview', base],
      ['keys', `${base}/keys`],
      ['scopes', `${base}/scopes`],
      ['webhooks', `${base}/webhooks`],
      ['endpoint', `${base}/webhooks/endpoints/${delivery.endpoint_id}`],
      ['deliveries', `${base}/webhooks/deliveries`],
      ['delivery', `${base}/webhooks/deliveries/${delivery.id}`],
      ['signature-checker', `${base}/webhooks/signature-check?endpoint_id=${delivery.endpoint_id}`],
      ['students', `${base}/students`],
      ['student', `${base}/students/${(await firstOf('/students')).id}`],
      ['faculty', `${base}/faculty`],
      ['faculty-member', `${base}/faculty/${(await firstOf('/faculty')).id}`],
      ['groups', `${base}/groups`],
      ['group', `${base}/groups/${(await firstOf('/groups')).id}`],
      ['licenses', `${base}/licenses`],
      ['license', `${base}/licenses/${(await firstOf('/licenses')).id}`],
      ['exams', `${base}/exams`],
      ['exam', `${base}/exams/${submission.exam_id}`],
      ['submissions', `${base}/submissions`],
      ['submission', `${base}/submissions/${submission.id}`],
      ['settings', `${base}/settings`],
      ['oneroster', `${base}/oneroster`],
      ['lti', `${base}/lti`],
      ['team', `${base}/developers`],
      ['outbox', `${base}/outbox`],
      ['audit-log', `${base}/audit-log`],
      ['account', '/account'],
      ['not-found', `${base}/no-such-page`],
    ];
    const asAdmin = await checker(admin);
    for (const [name, hash] of pages) await asAdmin.check(problems, name, hash);
    // The sandbox view: the same pages under its orange banner, reached by the header's switch.
    await asAdmin.check(problems, 'sandbox-overview', base, async (page) => {
      await page.getByRole('radio', { name: 'Sandbox' }).evaluate((radio: HTMLInputElement) => radio.click());
      await page.getByRole('status', { name: 'Sandbox' }).waitFor();
      await settle(page);
    });
    const sandboxId = (await sandboxIdsOf(app.ctx.db, [demo.institution.id])).get(demo.institution.id)!;
    await asAdmin.check(problems, 'sandbox-keys', `/i/${sandboxId}/keys`);
    // Toasts: a refusal and a success, each checked while it is on screen.
    await asAdmin.check(problems, 'toast-refusal', `${base}/oneroster`, async (page) => {
      const form = page.getByRole('form', { name: 'OneRoster connection' });
      await form.getByLabel('Base URL').fill('not a url');
      await form.getByLabel('Client ID').fill('campusbridge');
      await form.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText('That did not work').waitFor();
      await toastShown(page);
    });
    const student = await firstOf('/students');
    await asAdmin.check(problems, 'toast-success', `${base}/students/${student.id}`, async (page) => {
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await page.getByText('Student updated.').waitFor();
      await toastShown(page);
    });
    await asAdmin.close();
    expect(described(problems)).toEqual([]);
  }, 300_000);

  it("the appliance operator's pages", async () => {
    const problems: Problem[] = [];
    const asOperator = await checker({ email: OPERATOR.admin_email, password: OPERATOR.admin_password });
    for (const path of ['institutions', 'coupon-batches', 'allowances', 'curricula', 'settings', 'mail-server', 'accounts', 'backups', 'jobs', 'audit-log']) {
      await asOperator.check(problems, `operator-${path}`, `/operator/${path}`);
    }
    await asOperator.close();
    expect(described(problems)).toEqual([]);
  }, 180_000);
});
