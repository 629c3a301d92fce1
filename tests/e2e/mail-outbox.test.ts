// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Mail that tells the truth, in Chromium (docs/decisions/portal-settings-and-operator-pages.md): the institution's outbox says in words where
 * each message stands (waiting for a mail server, waiting for its next try and why the last one
 * failed, sent, or not sent and why), and the operator's mail server page sends a test message and
 * says what happened. Real appliance and SMTP server on 127.0.0.1. Screenshots go to
 * tests/artifacts/mail-outbox/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setSmtpSettings } from '../../server/mail/smtp-settings.js';
import { makeKey, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter } from '../helpers/browser.js';
import { closedPort } from '../helpers/net.js';
import { setUpPortal } from '../helpers/portal.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';

const ADMIN = { institution: 'Brookfield School', admin_email: 'it@brookfield.test', admin_password: 'brookfield admin pw' };
const FROM = 'Brookfield <noreply@brookfield.test>';

describe.skipIf(!chromiumAvailable())('Mail outbox and mail server pages in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let institutionId = '';
  let key: TestKey;
  const shot = screenshotter('mail-outbox');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, browser, smtp] = await Promise.all([startTestAppliance(), launchChromium(), startSmtpServer()]);
    const firstRun = await setUpPortal(app, ADMIN);
    institutionId = firstRun.institutionId;
    key = await makeKey(app, firstRun.institution);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), smtp?.close()]);
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  async function created(path: string, body: unknown): Promise<{ id: string }> {
    const res = await app.http
      .post(`/v1${path}`)
      .set('Authorization', key.auth)
      .send(body as object);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  }

  const outboxRow = (masked: string) => page.getByRole('row').filter({ hasText: masked });

  /** Opens the outbox freshly loaded (not the answer the page already holds). */
  async function openOutbox() {
    await page.goto(`${app.origin}/#/i/${institutionId}/outbox`);
    await page.reload();
    await page.getByRole('main').getByRole('heading', { name: 'Mail outbox' }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  }

  it('without a mail server: waiting mail says so, stale mail says why it was not sent', async () => {
    const teacher = await created('/faculty', { full_name: 'Alan Turing' });
    const ada = await created('/students', { full_name: 'Ada Lovelace', personal_email: 'ada.home@family.example' });
    const group = await created('/groups', { name: 'Year 10', faculty_id: teacher.id, student_ids: [ada.id] });
    const exam = await created('/exams', { faculty_id: teacher.id, title: 'Closed quiz', publish: true, group_ids: [group.id] });
    expect((await app.http.post(`/v1/exams/${exam.id}/close`).set('Authorization', key.auth)).status).toBe(200);
    const expiring = await created('/guardians', { student_id: ada.id, guardian_email: 'expiring@parents.example', guardian_type: 'mother' });
    await app.ctx.db.models.GuardianLink.update({ invite_expires_at: new Date(Date.now() - 1000) }, { where: { id: expiring.id } });
    await created('/guardians', { student_id: ada.id, guardian_email: 'waiting@parents.example', guardian_type: 'father' });
    await app.scheduler.runNow('send-mail');

    await page.goto(app.origin);
    await page.getByLabel('Email').fill(ADMIN.admin_email);
    await page
      .getByLabel(/^Password/)
      .and(page.locator('input'))
      .fill(ADMIN.admin_password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await openOutbox();

    await page.getByRole('status').filter({ hasText: 'No mail server is set up' }).waitFor();
    await outboxRow('w•••@parents.example').getByText('Waiting: no mail server is set up').waitFor();
    await outboxRow('e•••@parents.example').getByText('Not sent: the invitation expired').waitFor();
    await outboxRow('a•••@family.example').getByText('Not sent: the exam has closed').waitFor();
    await shot(page, 'outbox-without-mail-server');
  });

  it('with a failing server: the attempt, its error and the next try; then sent, with the time', async () => {
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: await closedPort(), from: FROM });
    const [waiting] = await app.ctx.db.models.MailOutbox.findAll({ where: { status: 'queued' } });
    await waitFor(async () => (await waiting!.reload()).attempts >= 1, 'the first attempt');
    await openOutbox();
    expect(await page.getByRole('status').filter({ hasText: 'No mail server is set up' }).count()).toBe(0);
    await outboxRow('w•••@parents.example')
      .getByText(/^Waiting to be sent \(attempt \d failed: .*ECONNREFUSED.*, next try at .+\)$/)
      .waitFor();
    await shot(page, 'outbox-failing-server');

    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await app.scheduler.runNow('send-mail');
    expect(smtp.received.flatMap((message) => message.to)).toEqual(['waiting@parents.example']);
    await openOutbox();
    await outboxRow('w•••@parents.example')
      .getByText(/^Sent at .+/)
      .waitFor();
    await shot(page, 'outbox-sent');
  });

  it('the operator sends a test message from the mail server page and is told it was accepted', async () => {
    await page.goto(`${app.origin}/#/operator/mail-server`);
    await page.getByRole('main').getByRole('heading', { name: 'Mail server' }).waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('status').filter({ hasText: 'The server accepted the message' }).waitFor();
    expect(smtp.received.at(-1)!.to).toEqual([ADMIN.admin_email]);
    await shot(page, 'mail-server-test-sent');
  });
});
