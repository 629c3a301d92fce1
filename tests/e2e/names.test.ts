// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Names, not ids, in Chromium (docs/decisions/names-not-ids.md), on the demo institution's data: deliveries, a delivery,
 * the institution's and the operator's audit logs, a group and a submission show names where ids
 * were, keep the id in the title attribute, and ask for names once per page, not once per row.
 * A submission's long answers read whole as text, and a refused form names the field's label.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurriculum } from '../../server/commands/alpha/curricula.js';
import { createBatch } from '../../server/commands/wallet/coupons.js';
import { seedDemo, type DemoSeed } from '../../server/commands/demo/seed.js';
import { Tenant } from '../../server/db/tenant.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { cliOk, runCliCaptured } from '../helpers/cli.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';
import { institutionApi, portalRequests, setUpPortal, signIn, type FirstRun } from '../helpers/portal.js';

const OPERATOR = { institution: 'Lakeside School', admin_email: 'operator@lakeside.test', admin_password: 'lakeside operator pw' };
/** An id as the server makes them (server/ids.ts): a prefix, `_`, 24 letters and digits. */
const ANY_ID = /\b(stu|fac|grp|exm|sub|lic|whe|dlv|evt|key|acc|inv|inst|cpb|cur)_[A-Za-z0-9]{24}\b/;
const LONG_ESSAY = Array.from(
  { length: 30 },
  (_, i) => `Paragraph ${i + 1}. Coal near the surface and canals to carry it made steam power cheap in Britain before anywhere else.`,
).join('\n\n');
const LONG_LINE = `print("${'x'.repeat(400)}")`;

describe.skipIf(!chromiumAvailable())('Names instead of ids in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let demo: DemoSeed;
  let operator: FirstRun;
  let tenant: Tenant;
  const shot = screenshotter('names');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    operator = await setUpPortal(app, OPERATOR);
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    tenant = new Tenant(app.ctx.db, demo.institution.id);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A page signed in as the demo's admin or the operator, at `width`, logging the path of every request it makes. */
  async function openAs(who: 'admin' | 'operator', width = 1280): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const { page, errors } = await openPage(browser);
    await page.setViewportSize({ width, height: 800 });
    const [email, password] = who === 'admin' ? [demo.admin.account.email, demo.admin.password] : [OPERATOR.admin_email, OPERATOR.admin_password];
    await signInOnPage(page, app.origin, email, password);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname + new URL(request.url()).search));
    return { page, errors, requests };
  }

  /** Opens `hash` with the request log emptied first, and waits until nothing is loading. */
  async function visit(page: Page, requests: string[], hash: string) {
    requests.length = 0;
    await page.goto(`${app.origin}/#${hash}`);
    await page.getByRole('main').getByRole('heading').first().waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  }

  const namesRequests = (requests: string[]) => requests.filter((url) => url.includes('/names?'));
  // Names arrive after the rows: each check below waits for its name (expect.poll) rather than read the first render.

  it('deliveries: each endpoint by its URL and each event by its type, the ids on hover, without a names request per row', async () => {
    const { page, errors, requests } = await openAs('admin');
    await visit(page, requests, `/i/${demo.institution.id}/webhooks/deliveries`);
    const table = page.getByRole('table', { name: 'Deliveries' });
    await table.getByRole('row').nth(5).waitFor();
    const endpoint = (await tenant.webhookEndpoints.findAll())[0]!;
    const endpointCells = table.getByText(endpoint.url, { exact: true });
    await expect.poll(() => endpointCells.count()).toBeGreaterThan(4);
    await expect(endpointCells.first().getAttribute('title')).resolves.toContain(endpoint.id);
    const delivery = (await tenant.webhookDeliveries.findAll({ order: [['created_at', 'DESC']], limit: 1 }))[0]!;
    await expect.poll(() => table.getByTitle(delivery.event_id, { exact: true }).textContent()).toBe(delivery.event_type);
    // The table names endpoints and events: no endpoint or event id is shown as text.
    await expect(table.textContent()).resolves.not.toMatch(/\b(whe|evt)_[A-Za-z0-9]{24}\b/);
    // One list of endpoints names every row; no request per row.
    expect(requests.filter((url) => url.includes('/webhooks/endpoints'))).toHaveLength(1);
    expect(namesRequests(requests)).toHaveLength(0);
    await shot(page, 'deliveries');

    await table.getByRole('row').nth(1).click();
    await page.getByRole('heading', { name: 'Attempts' }).waitFor();
    const opened = (await tenant.webhookDeliveries.findById(page.url().split('/').pop()!))!;
    const main = page.getByRole('main');
    await expect(main.getByRole('link', { name: endpoint.url }).getAttribute('title')).resolves.toBe(endpoint.id);
    await expect.poll(() => main.getByTitle(opened.event_id, { exact: true }).textContent()).toBe(opened.event_type);
    await main.getByText(endpoint.description, { exact: true }).waitFor();
    const facts = await page.locator('.mantine-Card-root').first().textContent();
    const header = await main.getByText(/^Delivery dlv_/).textContent();
    expect(`${facts} ${header}`).not.toMatch(/\b(whe|evt)_[A-Za-z0-9]{24}\b/);
    await shot(page, 'delivery-detail');
    expect(errors).toEqual([]);
  });

  it('audit log: every target by kind and name, the id on hover, with one names request for the page', async () => {
    const admin = await signIn(app, demo.admin.account.email, demo.admin.password);
    const portal = portalRequests(
      () => admin,
      () => institutionApi(demo.institution.id),
    );
    const group = (await tenant.groups.findAll({ limit: 1 }))[0]!;
    const submission = (await tenant.submissions.findAll({ where: { status: 'submitted' }, limit: 1 }))[0]!;
    const endpoint = (await tenant.webhookEndpoints.findAll())[0]!;
    const changes = [
      await portal.post('/students', { full_name: 'Audited Pupil' }),
      await portal.patch(`/groups/${group.id}`, { description: 'Renamed in the audit test' }),
      await portal.post(`/submissions/${submission.id}/grade`, { score: 1 }),
      await portal.post('/keys', { name: 'Audit test key', scopes: ['students:read'] }),
      await portal.patch(`/webhooks/endpoints/${endpoint.id}`, { description: 'Audited receiver' }),
    ];
    for (const change of changes) expect(change.body.success, change.text).toBe(true);
    const student = (await tenant.people.findOne({ where: { full_name: 'Audited Pupil' } }))!;
    const key = (await tenant.apiKeys.findOne({ where: { name: 'Audit test key' } }))!;
    const grader = (await tenant.people.findById(submission.student_id))!;

    const { page, errors, requests } = await openAs('admin');
    await visit(page, requests, `/i/${demo.institution.id}/audit-log`);
    const table = page.getByRole('table', { name: 'Audit log' });
    await table.getByRole('row').nth(changes.length).waitFor();
    for (const [id, words] of [
      [student.id, 'Student Audited Pupil'],
      [group.id, `Group ${group.name}`],
      [submission.id, `Submission by ${grader.full_name}`],
      [key.id, 'Key Audit test key'],
      [endpoint.id, `Endpoint ${endpoint.url}`],
    ] as const) {
      await expect.poll(() => table.getByTitle(id, { exact: true }).first().textContent()).toBe(words);
    }
    await expect(table.textContent()).resolves.not.toMatch(ANY_ID);
    expect(namesRequests(requests)).toHaveLength(1);
    await shot(page, 'audit-log');
    expect(errors).toEqual([]);
  });

  it('a key made at the command line is in the audit log, by the command line, and so is its revocation', async () => {
    const created = cliOk<{ key_id: string }>(
      await runCliCaptured(app, 'key', 'create', '--institution', demo.institution.id, '--name', 'Made at the console', '--scopes', 'students:read'),
    );
    cliOk(await runCliCaptured(app, 'key', 'revoke', created.key_id));

    const { page, errors, requests } = await openAs('admin');
    await visit(page, requests, `/i/${demo.institution.id}/audit-log`);
    const table = page.getByRole('table', { name: 'Audit log' });
    const rows = table.getByRole('row').filter({ has: page.getByTitle(created.key_id, { exact: true }) });
    await expect.poll(() => rows.count()).toBe(2);
    for (const words of ['Create an API key', 'Revoke an API key']) {
      const row = rows.filter({ hasText: words });
      await expect.poll(() => row.textContent()).toContain('command line (operator)');
      await expect.poll(() => row.getByTitle(created.key_id, { exact: true }).textContent()).toBe('Key Made at the console');
    }
    await shot(page, 'audit-log-cli-key');
    expect(errors).toEqual([]);
  });

  it("the operator's audit log names institutions, batches and curricula in one request; another institution's data stays an id", async () => {
    const ops = portalRequests(
      () => operator,
      () => '/portal/api/operator',
    );
    const batch = await createBatch(tenant, {
      name: 'Spring prizes',
      description: '',
      total_coupons: 3,
      value_cents: 100,
      expiry_date: new Date(Date.now() + 86_400_000),
    });
    const { curriculum } = await createCurriculum(app.ctx.db, { name: 'Fractions', description: '', concepts: ['Halves'], institution_id: null });
    for (const change of [await ops.post(`/coupon-batches/${batch.id}/approve`), await ops.post(`/curricula/${curriculum.id}/publish`)]) {
      expect(change.body.success, change.text).toBe(true);
    }
    const { page, errors, requests } = await openAs('operator');
    await visit(page, requests, '/operator/audit-log');
    const table = page.getByRole('table', { name: 'Audit log' });
    await table.getByRole('row').nth(2).waitFor();
    await expect.poll(() => table.getByTitle(batch.id, { exact: true }).first().textContent()).toBe('Coupon batch Spring prizes');
    await expect.poll(() => table.getByTitle(curriculum.id, { exact: true }).first().textContent()).toBe('Curriculum Fractions');
    await expect.poll(() => table.getByTitle(demo.institution.id, { exact: true }).first().textContent()).toBe(demo.institution.name);
    expect(namesRequests(requests)).toHaveLength(1);
    // The institution list is not read just to name the column.
    expect(requests.filter((url) => url.endsWith('/operator/institutions'))).toHaveLength(0);
    await shot(page, 'operator-audit-log');
    expect(errors).toEqual([]);
  });

  it('group: owner and members by name, their ids on hover, one names request', async () => {
    const group = (await tenant.groups.findAll({ limit: 1 }))[0]!;
    const owner = (await tenant.people.findById(group.faculty_id))!;
    const { page, errors, requests } = await openAs('admin');
    await visit(page, requests, `/i/${demo.institution.id}/groups/${group.id}`);
    const main = page.getByRole('main');
    await expect(main.getByRole('link', { name: owner.full_name }).getAttribute('title')).resolves.toBe(owner.id);
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('row').nth(1).waitFor();
    const first = members.getByRole('row').nth(1).getByRole('link').first();
    await expect(first.getAttribute('title')).resolves.toMatch(/^stu_/);
    await expect(members.textContent()).resolves.not.toMatch(ANY_ID);
    expect(namesRequests(requests)).toHaveLength(1);
    await shot(page, 'group');
    expect(errors).toEqual([]);
  });

  it("a refused form says what is wrong under the field, with the field's label, and so do the browser's own checks", async () => {
    const { page, errors, requests } = await openAs('admin');
    await visit(page, requests, `/i/${demo.institution.id}/students`);
    await page.getByRole('main').getByRole('button', { name: 'Add student' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Full name/).fill('Refused Pupil');
    // The browser takes "ada@localhost" as an e-mail address; the appliance does not.
    await dialog.getByLabel('Personal email').fill('ada@localhost');
    await dialog.getByRole('button', { name: 'Add student' }).click();
    const words = 'Personal email: that is not an e-mail address';
    await dialog.getByText(words, { exact: true }).waitFor();
    // Under the field: the message is the input's own description, for screen readers too.
    const describedBy = (await dialog.getByLabel('Personal email').getAttribute('aria-describedby')) ?? '';
    const described = await Promise.all(
      describedBy
        .split(/\s+/)
        .filter(Boolean)
        .map((id) => page.locator(`[id="${id}"]`).textContent()),
    );
    expect(described).toContain(words);
    await expect(dialog.getByLabel('Personal email').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(dialog.textContent()).resolves.not.toMatch(/personal_email|Invalid email address/);
    await shot(page, 'form-error');
    await page.keyboard.press('Escape');

    // A check made in the browser before anything is sent speaks the same way.
    await visit(page, requests, '/account');
    await page.getByLabel('Current password', { exact: false }).first().fill(demo.admin.password);
    await page
      .getByLabel(/^New password(?! again)/)
      .and(page.locator('input'))
      .fill('short');
    await page
      .getByLabel(/^New password again/)
      .and(page.locator('input'))
      .fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('New password: use at least 10 characters', { exact: true }).waitFor();
    expect(requests.filter((url) => url.includes('/account/password'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('submission: student and exam by name, ids on hover; long answers whole, as text, and no sideways scroll at 390 px', async () => {
    const submission = (await tenant.submissions.findAll({ limit: 1 }))[0]!;
    await tenant.submissions.update(
      { answers: { q1: 'B', essay: LONG_ESSAY, files: { 'solution.py': `def main():\n    ${LONG_LINE}\n` }, tests: { passed: 9, total: 12 } } },
      { id: submission.id },
    );
    const student = (await tenant.people.findById(submission.student_id))!;
    const exam = (await tenant.exams.findById(submission.exam_id))!;
    for (const width of [1280, 390]) {
      const { page, errors, requests } = await openAs('admin', width);
      await visit(page, requests, `/i/${demo.institution.id}/submissions/${submission.id}`);
      const main = page.getByRole('main');
      await expect(main.getByRole('link', { name: student.full_name }).first().getAttribute('title')).resolves.toBe(student.id);
      await expect(main.getByRole('link', { name: exam.title }).first().getAttribute('title')).resolves.toBe(exam.id);
      expect(namesRequests(requests)).toHaveLength(1);
      const answers = page.getByRole('region', { name: 'Answers' });
      // Labelled questions, the essay whole with its paragraphs, the program in a monospaced block.
      await answers.getByText('Question 1:', { exact: true }).waitFor();
      const text = (await answers.innerText()).replace(/\r/g, '');
      expect(text).toContain(LONG_ESSAY);
      expect(text).toContain(LONG_LINE);
      expect(text).toContain('Passed: 9');
      expect(text).not.toContain('{');
      const code = answers.getByLabel('solution.py (code)');
      await expect(code.evaluate((element) => getComputedStyle(element).fontFamily)).resolves.toMatch(/mono/i);
      // Nothing cut off: no box inside the answers scrolls or clips, and the page does not scroll sideways.
      const clipped = await answers.evaluate(
        (root) =>
          [root, ...root.querySelectorAll('*')].filter(
            (element) => element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1,
          ).length,
      );
      expect(clipped).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await shot(page, `submission-${width}`);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});
