// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The portal's charts (docs/decisions/portal-charts.md) in Chromium: with the demo institution's data every chart is
 * drawn, with a caption and a table that give its numbers in words; on an empty institution each
 * says it has nothing to show. At a laptop's width and a phone's, without pushing the page sideways.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { examAnalytics, examScores } from '../../server/commands/exams/results.js';
import { createExam } from '../../server/commands/exams/exams.js';
import { summarizeLicenses } from '../../server/commands/people/licenses.js';
import { licenseExpiry } from '../../server/commands/stats/licenses.js';
import { createEndpoint } from '../../server/commands/webhooks/endpoints.js';
import { EXPIRY_MONTHS } from '../../server/routes/stats/schema.js';
import { Tenant } from '../../server/db/tenant.js';
import { makeInstitution, startTestAppliance, type TestAppliance, type TestInstitution } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';
import { createAccount, setUpPortal } from '../helpers/portal.js';

const EMPTY_ADMIN = { email: 'admin@empty-charts.test', password: 'empty charts admin pw' };
/** Answer times given to the demo's finished deliveries, in ms: six succeeded, then one failed and one dead. */
const TIMES = [120, 80, 200, 160, 40, 100, 900, null];

describe.skipIf(!chromiumAvailable())('Charts in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  let tenant: Tenant;
  let empty: TestInstitution;
  let endpointId = '';
  let emptyEndpointId = '';
  let gradedExamId = '';
  let blankExamId = '';
  const shot = screenshotter('charts');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    // First run done (the portal shows its setup until then); the operator's own school stays aside.
    await setUpPortal(app, { institution: 'Operator School', admin_email: 'operator@charts.test', admin_password: 'charts operator pw' });
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    tenant = new Tenant(app.ctx.db, demo.institution.id);
    // The demo's receiver is paused, so its deliveries wait; eight of them get an outcome here.
    const endpoint = (await tenant.webhookEndpoints.findOne())!;
    endpointId = endpoint.id;
    const deliveries = await tenant.webhookDeliveries.findAll({ where: { endpoint_id: endpointId }, order: [['created_at', 'ASC']], limit: TIMES.length });
    for (const [i, delivery] of deliveries.entries()) {
      const status = i < 6 ? 'succeeded' : i === 6 ? 'failed' : 'dead';
      await delivery.update({ status, attempt_count: 1, next_attempt_at: null, last_attempt_at: new Date(), response_time_ms: TIMES[i]! });
    }
    gradedExamId = (await tenant.submissions.findOne({ where: { status: 'graded' } }))!.exam_id;
    const teacher = (await tenant.people.findOne({ where: { role: 'faculty' } }))!;
    blankExamId = (
      await createExam(tenant, { faculty_id: teacher.id, title: 'Not yet taken', description: '', exam_type: 'quiz', app: 'learning', publish: false })
    ).id;

    empty = await makeInstitution(app, { name: 'Empty Charts School' });
    await createAccount(app, empty.id, 'admin', EMPTY_ADMIN);
    const { endpoint: quiet } = await createEndpoint(
      empty.tenant,
      { url: 'http://127.0.0.1:9/hooks', description: 'Quiet', events: ['*'] },
      { privateHosts: 'all' },
    );
    await quiet.update({ status: 'paused' });
    emptyEndpointId = quiet.id;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const figure = (page: Page, title: string | RegExp) => page.getByRole('figure', { name: title });

  /** A drawn chart: its SVG, its caption, and the rows of its table (opened). */
  async function drawn(chart: Locator): Promise<{ caption: string; rows: string[][] }> {
    await chart.locator('[data-testid="chart"] svg.recharts-surface').first().waitFor();
    expect(await chart.getByTestId('chart-empty').count()).toBe(0);
    // The drawing is hidden from assistive technology, so nothing in it may take focus.
    expect(await chart.locator('[data-testid="chart"] [tabindex]:not([tabindex="-1"])').count()).toBe(0);
    await chart.getByText('Show as table').click();
    const rows = await chart
      .getByRole('table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const caption = (await chart.locator('figcaption > p').first().textContent()) ?? '';
    return { caption, rows };
  }

  /** An empty chart: no drawing, its words instead. */
  async function emptyState(chart: Locator): Promise<string> {
    await chart.getByTestId('chart-empty').waitFor();
    expect(await chart.getByTestId('chart').count()).toBe(0);
    return (await chart.getByTestId('chart-empty').textContent()) ?? '';
  }

  /** Opens `hash`, waits until nothing is loading, and checks the page has no error and fits `width`. */
  async function visit(page: Page, hash: string) {
    await page.goto(`${app.origin}/#${hash}`);
    await page.getByRole('main').getByRole('heading').first().waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    expect(await page.getByRole('main').getByRole('alert').allTextContents()).toEqual([]);
  }

  /** Screenshots at 1280 and 390 px; at 390 every chart keeps within the screen, and within its card. */
  async function atBothWidths(page: Page, name: string) {
    await shot(page, `${name}-1280`);
    await page.setViewportSize({ width: 390, height: 800 });
    const overflowingNow = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('figure')]
          .filter((figure) => figure.getBoundingClientRect().right > window.innerWidth || figure.scrollWidth > figure.clientWidth + 1)
          .map((figure) => figure.getAttribute('aria-labelledby') && document.getElementById(figure.getAttribute('aria-labelledby')!)?.textContent),
      );
    // The charts redraw for the new width when their resize observers fire, later on a busy machine:
    // what counts is where they settle, within a bound only a chart that never fits reaches.
    let overflowing = await overflowingNow();
    for (const settleBy = Date.now() + 10_000; overflowing.length > 0 && Date.now() < settleBy; overflowing = await overflowingNow()) {
      await page.waitForTimeout(200);
    }
    await shot(page, `${name}-390`);
    expect({ name, overflowing }).toEqual({ name, overflowing: [] });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('with the demo data, each chart is drawn and says its numbers in words', async () => {
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, demo.admin.account.email, demo.admin.password);
    const base = `/i/${demo.institution.id}`;

    // The overview: counts, the week's deliveries (six succeeded, two failed, all today) and new students.
    const students = await tenant.people.count({ where: { role: 'student' } });
    await visit(page, base);
    await expect.poll(() => page.getByRole('main').getByText('Active licenses').count()).toBe(1);
    const deliveries = await drawn(figure(page, /^Webhook deliveries, last 7 days$/));
    expect(deliveries.caption).toMatch(/^6 deliveries succeeded and 2 failed in the last 7 days/);
    expect(deliveries.rows).toHaveLength(7);
    expect(deliveries.rows.at(-1)!.slice(1)).toEqual(['6', '2']);
    const added = await drawn(figure(page, /^Students added, last 7 days$/));
    expect(added.caption).toMatch(new RegExp(`^${students} students added in the last 7 days \\(UTC\\), ${students} of them today\\.$`));
    await atBothWidths(page, 'overview');

    // The endpoint, opened from its row; its menu stays a menu.
    await visit(page, `${base}/webhooks`);
    await page.getByRole('button', { name: /^Actions for / }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).waitFor();
    await page.keyboard.press('Escape');
    expect(page.url()).toMatch(/\/webhooks$/);
    await page.getByRole('table', { name: 'Webhook endpoints' }).locator('tbody tr').first().click();
    await page.waitForURL(new RegExp(`/webhooks/endpoints/${endpointId}$`));
    await visit(page, `${base}/webhooks/endpoints/${endpointId}`);
    const rate = await drawn(figure(page, /^Success rate/));
    expect(rate.caption).toMatch(/^75% of 8 finished deliveries succeeded \(2 failed\)/);
    expect(rate.rows.at(-1)!.slice(1)).toEqual(['6', '2', '75%']);
    const timed = TIMES.filter((ms): ms is number => ms !== null);
    const average = Math.round(timed.reduce((sum, ms) => sum + ms, 0) / timed.length);
    const times = await drawn(figure(page, /^Response times/));
    expect(times.caption).toBe(`The receiver answered in ${average} ms on average; the slowest answer took 900 ms.`);
    await atBothWidths(page, 'endpoint');

    // An exam with graded submissions: the histogram and where each student stands.
    const [analytics, scores] = await Promise.all([examAnalytics(tenant, gradedExamId), examScores(tenant, gradedExamId)]);
    await visit(page, `${base}/exams/${gradedExamId}`);
    const histogram = await drawn(figure(page, 'Score histogram'));
    expect(histogram.caption).toContain(`${analytics.count} graded submission`);
    expect(histogram.rows.map((row) => Number(row[1]))).toEqual(analytics.histogram.map((bucket) => bucket.count));
    const status = await drawn(figure(page, 'Attempt status'));
    expect(status.caption).toMatch(new RegExp(`^Of ${scores.length} students: ${scores.filter((row) => row.status === 'graded').length} graded,`));
    expect(status.rows.find((row) => row[0] === 'Not submitted')).toEqual(['Not submitted', String(scores.filter((row) => row.status === null).length)]);
    await atBothWidths(page, 'exam');

    // Licenses: usage by type and the active ones by expiry month.
    const [summary, expiry] = await Promise.all([summarizeLicenses(tenant), licenseExpiry(tenant, EXPIRY_MONTHS)]);
    await visit(page, `${base}/licenses`);
    const byType = await drawn(figure(page, 'Licenses by type'));
    expect(byType.caption).toMatch(
      new RegExp(`^${summary.by_type.student.active} student licenses and ${summary.by_type.faculty.active} faculty licenses? (is|are) active`),
    );
    expect(byType.rows).toEqual([
      ['Student', ...Object.values(summary.by_type.student).map(String)],
      ['Faculty', ...Object.values(summary.by_type.faculty).map(String)],
    ]);
    const byMonth = await drawn(figure(page, 'Active licenses by expiry month'));
    expect(byMonth.rows.map((row) => row.slice(1).map(Number))).toEqual(expiry.months.map((month) => [month.student, month.faculty]));
    await atBothWidths(page, 'licenses');

    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('on an empty institution, and for an exam nobody took, each chart says there is nothing to show', async () => {
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, EMPTY_ADMIN.email, EMPTY_ADMIN.password);
    const base = `/i/${empty.id}`;
    await visit(page, base);
    expect(await emptyState(figure(page, /^Webhook deliveries/))).toBe('No webhook deliveries finished in the last 7 days.');
    expect(await emptyState(figure(page, /^Students added/))).toBe('No students were added in the last 7 days.');
    await atBothWidths(page, 'empty-overview');

    await visit(page, `${base}/webhooks/endpoints/${emptyEndpointId}`);
    expect(await emptyState(figure(page, /^Success rate/))).toBe('No deliveries to this endpoint finished in the last 7 days.');
    expect(await emptyState(figure(page, /^Response times/))).toBe('No timed answers from this endpoint in the last 7 days.');
    await atBothWidths(page, 'empty-endpoint');

    await visit(page, `${base}/licenses`);
    expect(await emptyState(figure(page, 'Licenses by type'))).toMatch(/^No licenses yet/);
    expect(await emptyState(figure(page, 'Active licenses by expiry month'))).toBe('No active licenses.');
    await atBothWidths(page, 'empty-licenses');
    expect(errors).toEqual([]);
    await page.context().close();

    const demoPage = await openPage(browser);
    await signInOnPage(demoPage.page, app.origin, demo.admin.account.email, demo.admin.password);
    await visit(demoPage.page, `/i/${demo.institution.id}/exams/${blankExamId}`);
    expect(await emptyState(figure(demoPage.page, 'Score histogram'))).toMatch(/^No graded submissions yet/);
    expect(await emptyState(figure(demoPage.page, 'Attempt status'))).toMatch(/^No students yet/);
    await atBothWidths(demoPage.page, 'empty-exam');
    expect(demoPage.errors).toEqual([]);
    await demoPage.page.context().close();
  }, 120_000);

  it('leaves out what the role may not read: a developer sees no license count', async () => {
    const developer = { email: 'dev@charts.test', password: 'charts developer pw' };
    await createAccount(app, demo.institution.id, 'developer', developer);
    const { page, errors } = await openPage(browser);
    await signInOnPage(page, app.origin, developer.email, developer.password);
    await visit(page, `/i/${demo.institution.id}`);
    await drawn(figure(page, /^Webhook deliveries/));
    expect(await page.getByRole('main').getByText('Active licenses').count()).toBe(0);
    expect(await page.getByRole('main').getByText('Students', { exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
