// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Webhook debugging in the portal (docs/decisions/webhook-debugging.md) in Chromium, against a receiver on 127.0.0.1:
 * copy as curl on a delivery, the signature checker telling "re-serialized body" for a pasted
 * pretty-printed body, replay-since with its count confirmed first, and send an example.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/ids.js';
import { makeKey, startTestAppliance, type TestAppliance, type TestKey } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, screenshotter, signInOnPage } from '../helpers/browser.js';
import { setUpPortal, type FirstRun } from '../helpers/portal.js';
import { waitFor } from '../helpers/wait.js';

const ADMIN = { email: 'admin@webhook-debugging.test', password: 'webhook debugging pw' };
const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const HOUR = 3_600_000;

interface Received {
  headerLines: string;
  body: string;
}

describe.skipIf(!chromiumAvailable())('Webhook debugging in the portal', () => {
  let app: TestAppliance;
  let browser: Browser;
  let first: FirstRun;
  let key: TestKey;
  let receiver: http.Server;
  let receiverUrl = '';
  const received: Received[] = [];
  let endpointId = '';
  let secret = '';
  const shot = screenshotter('webhook-debugging');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } }), launchChromium()]);
    first = await setUpPortal(app, { institution: 'Debugging School', admin_email: ADMIN.email, admin_password: ADMIN.password });
    key = await makeKey(app, first.institution);
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        received.push({ headerLines: lines.join('\n'), body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const created = await app.http
      .post('/v1/webhooks/endpoints')
      .set('Authorization', key.auth)
      .send({ url: receiverUrl, events: ['student.*'], description: 'LMS receiver' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    endpointId = created.body.data.id;
    secret = created.body.data.secret;
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  async function signedInPage(): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(browser);
    await signInOnPage(opened.page, app.origin, ADMIN.email, ADMIN.password);
    return opened;
  }

  it('copy as curl on a delivery, then the checker finds the pasted pretty-printed body re-serialized', async () => {
    const student = await app.http.post('/v1/students').set('Authorization', key.auth).send({ full_name: 'Ada Lovelace' });
    expect(student.status).toBe(200);
    await waitFor(() => received.length >= 1, 'the delivery');
    const delivered = received[0]!;
    const deliveryId = delivered.headerLines.match(/X-Service-Delivery-Id: (\S+)/)![1]!;

    const { page, errors } = await signedInPage();
    await page.goto(`${app.origin}/#/i/${first.institutionId}/webhooks/deliveries/${deliveryId}`);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const command = page.getByRole('region', { name: 'curl command' });
    await command.waitFor();
    const text = await command.innerText();
    expect(text).toContain(`curl -sS -X POST \\\n  '${receiverUrl}'`);
    expect(text).toContain(`-H 'X-Service-Delivery-Id: ${deliveryId}'`);
    expect(text).toMatch(/-H 'X-Service-Signature: t=\d+,v1=[0-9a-f]{64}'/);
    expect(text).toContain(`--data-binary '${delivered.body}'`);
    await page.getByText(/signatures made now/).waitFor();
    await shot(page, 'copy-as-curl');
    await page.getByRole('button', { name: 'Close' }).last().click();

    await page.getByRole('link', { name: 'Check a signature' }).click();
    await page.getByRole('heading', { name: 'Signature checker' }).waitFor();
    const pretty = JSON.stringify(JSON.parse(delivered.body), null, 2);
    await page.getByLabel('Raw body').fill(pretty);
    await page.getByLabel('Headers').fill(delivered.headerLines);
    await page.getByLabel('Your secret (optional)').fill(secret);
    await page.getByRole('button', { name: 'Check signature' }).click();
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor();
    expect(await verdict.innerText()).toMatch(/Re-serialized body[\s\S]*re-serialized: it holds the same JSON/);
    await page.getByText(`Compared with delivery`).waitFor();
    await shot(page, 'signature-checker-reserialized');

    // The same request as received verifies.
    await page.getByLabel('Raw body').fill(delivered.body);
    await page.getByRole('button', { name: 'Check signature' }).click();
    await page.getByTestId('verdict').getByText('Valid signature').waitFor();
    // The secret is in the field the user typed it in, and nowhere in the answer.
    expect(await page.getByLabel('Verdict').innerText()).not.toContain(secret.slice(6));
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('replay everything that failed since a time, count confirmed first; then send an example', async () => {
    // Two deliveries that failed for good a few hours ago, one of them of yesterday's week.
    const failed: string[] = [];
    for (const hoursAgo of [3, 2]) {
      const id = newId('dlv');
      const eventId = newId('evt');
      const at = new Date(Date.now() - hoursAgo * HOUR);
      await app.ctx.db.models.WebhookDelivery.create({
        id,
        institution_id: first.institutionId,
        endpoint_id: endpointId,
        event_id: eventId,
        event_type: 'student.created',
        payload: {
          id: eventId,
          type: 'student.created',
          created_at: at.toISOString(),
          institution_id: first.institutionId,
          data: { student_id: newId('stu') },
        },
        status: 'dead',
        attempt_count: 6,
        next_attempt_at: null,
        last_attempt_at: at,
        response_status: 503,
        response_time_ms: 12,
        response_body: 'down for maintenance',
        replay_of: null,
      });
      await app.ctx.db.sequelize.query('UPDATE webhook_deliveries SET created_at = ? WHERE id = ?', { replacements: [at, id] });
      failed.push(id);
    }

    const { page, errors } = await signedInPage();
    await page.goto(`${app.origin}/#/i/${first.institutionId}/webhooks/endpoints/${endpointId}`);
    await page.getByRole('heading', { name: 'Replay what failed since…' }).waitFor();
    const since = new Date(Date.now() - 6 * HOUR);
    const local = new Date(since.getTime() - since.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Since').fill(local);
    await page.getByRole('button', { name: 'Replay…' }).click();
    const count = page.getByTestId('replay-count');
    await count.waitFor();
    expect(await count.innerText()).toMatch(/^2 dead deliveries since .* will be sent again to http:\/\/127\.0\.0\.1/);
    await shot(page, 'replay-since-confirm');
    const before = received.length;
    await page.getByRole('button', { name: 'Replay 2' }).click();
    await page.getByText('2 deliveries replayed.').waitFor();
    await waitFor(() => received.length >= before + 2, 'the two replays');
    const replays = await app.ctx.db.models.WebhookDelivery.findAll({ where: { replay_of: failed } });
    expect(replays).toHaveLength(2);

    // Again: nothing left to replay.
    await page.getByRole('button', { name: 'Replay…' }).click();
    expect(await page.getByTestId('replay-count').innerText()).toMatch(/^No dead delivery/);
    await page.getByText('Skipped: 2 replayed before.').waitFor();
    await page.getByRole('button', { name: 'Nothing to replay' }).click();

    // Send an example of another type than the endpoint subscribes to.
    await page.getByRole('combobox', { name: 'Event type' }).click();
    await page.getByRole('option', { name: 'exam.graded' }).click();
    const sentBefore = received.length;
    await page.getByRole('button', { name: 'Send example' }).click();
    const result = page.getByRole('status', { name: 'Example delivery' });
    await result.getByText(/answered 200 in \d+ ms/).waitFor();
    expect(await result.innerText()).toMatch(/succeeded[\s\S]*exam\.graded/i);
    await waitFor(() => received.length > sentBefore, 'the example');
    const example = JSON.parse(received.at(-1)!.body);
    expect(example).toMatchObject({ type: 'exam.graded', example: true, data: { score: 87, max_score: 100 } });
    await shot(page, 'send-an-example');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a delivery waiting for its next try says "retrying" and when, in the log and on its page; a dead one says it failed for good', async () => {
    // Straight in the database: a delivery whose attempt failed with a retry 10 minutes away
    // (the sweep leaves it until then), and one past its last retry.
    const at = new Date();
    const made: Record<'failed' | 'dead', string> = { failed: newId('dlv'), dead: newId('dlv') };
    for (const status of ['failed', 'dead'] as const) {
      const eventId = newId('evt');
      await app.ctx.db.models.WebhookDelivery.create({
        id: made[status],
        institution_id: first.institutionId,
        endpoint_id: endpointId,
        event_id: eventId,
        event_type: 'student.updated',
        payload: {
          id: eventId,
          type: 'student.updated',
          created_at: at.toISOString(),
          institution_id: first.institutionId,
          data: { student_id: newId('stu') },
        },
        status,
        attempt_count: status === 'failed' ? 2 : 6,
        next_attempt_at: status === 'failed' ? new Date(at.getTime() + 10 * 60_000) : null,
        last_attempt_at: at,
        response_status: 503,
        response_time_ms: 9,
        response_body: 'busy',
        replay_of: null,
      });
    }

    const { page, errors } = await signedInPage();
    await page.goto(`${app.origin}/#/i/${first.institutionId}/webhooks/deliveries?event_type=student.updated`);
    const table = page.getByRole('table', { name: 'Deliveries' });
    const retrying = table.getByRole('row').filter({ hasText: 'retrying' });
    await retrying.waitFor();
    expect(await retrying.innerText()).toMatch(/in (9|10) minutes/);
    // The row's first cell is a real link to the delivery, so it opens in a new tab too.
    expect(await retrying.getByRole('link').first().getAttribute('href')).toBe(`#/i/${first.institutionId}/webhooks/deliveries/${made.failed}`);
    expect(await table.getByRole('row').filter({ hasText: 'failed for good' }).count()).toBe(1);
    // The API's word for a retrying delivery, `failed`, is not what the log shows.
    expect(await table.getByText(/^failed$/i).count()).toBe(0);
    await shot(page, 'delivery-retrying');

    await page.goto(`${app.origin}/#/i/${first.institutionId}/webhooks/deliveries/${made.failed}`);
    await page.getByRole('heading', { name: 'Attempts' }).waitFor();
    const facts = page.getByRole('main').locator('.mantine-Card-root').first();
    await facts.getByText('retrying', { exact: true }).waitFor();
    await facts.getByText(/^in (9|10) minutes$/).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
