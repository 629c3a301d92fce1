// @tier integration
// @databases sqlite, postgres
/**
 * Portal webhooks: endpoints, the delivery log, replay and the event catalog
 * under /portal/api, as an admin and as a developer, against real receivers on 127.0.0.1 and a
 * real appliance (port 0, real SQLite file).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../../commands/webhooks/endpoints.js';
import { EVENT_TYPES } from '../../events/catalog.js';
import { newId } from '../../ids.js';
import { makeInstitution, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { expectError, institutionApi, ok, setUpPortal, signedInMember, type FirstRun, type SignedIn } from '../../../tests/helpers/portal.js';
import { waitFor } from '../../../tests/helpers/wait.js';

const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const ADMIN = { institution: 'Harbour Academy', admin_email: 'admin@harbour.test', admin_password: 'correct horse battery' };
const DEV = { email: 'dev@harbour.test', password: 'developer password 1' };
/** Retries here are a second apart; receivers and the log are polled this long for their effect. */
const DELIVERY_WAIT = { timeoutMs: 6_000, intervalMs: 30 };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// A receiver on 127.0.0.1 that records what it gets and answers as told.

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  requests: Received[];
  status: number;
  reply: string;
  close: () => Promise<void>;
}

async function startReceiver(status = 200, reply = 'thanks'): Promise<Receiver> {
  const receiver = { requests: [] as Received[], status, reply } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiver.status, { 'Content-Type': 'text/plain' });
      res.end(receiver.reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** `X-Service-Signature` checked from the words of docs/api.md#signatures: true when some `v1=` entry is by `secret`. */
function signedBy(request: Received, secret: string): boolean {
  const [first, ...entries] = String(request.headers['x-service-signature']).split(',');
  const t = first!.replace(/^t=/, '');
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${request.body}`, 'utf8').digest();
  return entries.some((entry) => {
    const hex = entry.replace(/^v1=/, '');
    return hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), expected);
  });
}

// ---------------------------------------------------------------------------------------------

type Member = Pick<SignedIn, 'agent' | 'csrf'>;

describe('Portal: webhooks', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let dev: Member;
  let institutionId: string;
  let other: { id: string; endpointId: string; deliveryId: string };
  let apiKey: string;
  let good: Receiver;
  let failing: Receiver;
  /** The first endpoint, its secret, its first delivery. */
  let endpoint: { id: string; secret: string };
  let firstDeliveryId: string;
  let studentId: string;

  beforeAll(async () => {
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
    good = await startReceiver(200, 'thanks');
    failing = await startReceiver(500, 'broken');

    admin = await setUpPortal(app, ADMIN);
    institutionId = admin.institutionId;

    // A developer of this institution, signed in with a password like any portal user.
    dev = await signedInMember(app, institutionId, 'developer', DEV);

    // Another institution with an endpoint and a delivery of its own.
    const school = await makeInstitution(app, { name: 'Other School' });
    const { endpoint: theirs } = await createEndpoint(school.tenant, { url: good.url, description: '', events: ['*'] }, { privateHosts: 'all' });
    await theirs.update({ status: 'paused' });
    const delivery = await app.ctx.db.models.WebhookDelivery.create({
      id: newId('dlv'),
      institution_id: school.id,
      endpoint_id: theirs.id,
      event_id: newId('evt'),
      event_type: 'student.created',
      payload: { id: 'evt_x', type: 'student.created', created_at: new Date().toISOString(), institution_id: school.id, data: {} },
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: new Date(),
      last_attempt_at: null,
      response_status: null,
      response_time_ms: null,
      response_body: null,
      replay_of: null,
    });
    other = { id: school.id, endpointId: theirs.id, deliveryId: delivery.id };

    // Events come from real API calls, with a key made in the portal.
    apiKey = ok(
      await dev.agent
        .post(`/portal/api/institutions/${institutionId}/keys`)
        .set('X-CSRF-Token', dev.csrf)
        .send({ name: 'events', scopes: ['students:write'] }),
    ).key;
  });
  afterAll(async () => {
    await app.close();
    await good.close();
    await failing.close();
  });

  const base = (institution = institutionId) => institutionApi(institution);
  const get = (who: Member, path: string, query: Record<string, string | number> = {}) => who.agent.get(`${base()}${path}`).query(query);
  const post = (who: Member, path: string, body?: object) => {
    const req = who.agent.post(`${base()}${path}`).set('X-CSRF-Token', who.csrf);
    return body === undefined ? req : req.send(body);
  };
  const patch = (who: Member, path: string, body: object) => who.agent.patch(`${base()}${path}`).set('X-CSRF-Token', who.csrf).send(body);
  const del = (who: Member, path: string) => who.agent.delete(`${base()}${path}`).set('X-CSRF-Token', who.csrf);
  const deliveries = async (query: Record<string, string | number> = {}) => ok(await get(dev, '/webhooks/deliveries', query));
  const newStudent = async (name: string) => {
    const res = await app.http.post('/v1/students').set('Authorization', `Bearer ${apiKey}`).send({ full_name: name });
    expect(res.status).toBe(200);
    return res.body.data.id as string;
  };

  it('lists the event catalog with descriptions and areas, to admins and developers', async () => {
    for (const who of [admin, dev]) {
      const { items } = ok(await get(who, '/events/types'));
      expect(items).toHaveLength(Object.keys(EVENT_TYPES).length);
      expect(items).toContainEqual({ type: 'student.created', description: EVENT_TYPES['student.created'], area: 'student' });
      expect(items).toContainEqual({ type: 'alpha.points.awarded', description: EVENT_TYPES['alpha.points.awarded'], area: 'alpha' });
      expect(items).toContainEqual({ type: 'coupon_batch.approved', description: EVENT_TYPES['coupon_batch.approved'], area: 'coupon_batch' });
    }
  });

  it('creates an endpoint (secret once), and an event delivers to it, visible in the log with its attempt', async () => {
    const created = ok(await post(dev, '/webhooks/endpoints', { url: good.url, description: 'LMS', events: ['student.*', 'student.created'] }));
    expect(created).toMatchObject({
      url: good.url,
      description: 'LMS',
      events: ['student.*', 'student.created'],
      status: 'active',
      consecutive_failures: 0,
      disabled_reason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    endpoint = { id: created.id, secret: created.secret };

    // The secret is in no other answer.
    const list = await get(admin, '/webhooks/endpoints');
    const one = await get(dev, `/webhooks/endpoints/${endpoint.id}`);
    expect(ok(list).items).toEqual([expect.objectContaining({ id: endpoint.id })]);
    const { secret: _secret, ...shown } = created;
    expect(ok(one)).toEqual(shown);
    for (const res of [list, one]) {
      expect(res.text).not.toContain(endpoint.secret);
      expect(res.text).not.toContain('secret');
    }

    studentId = await newStudent('Ada Lovelace');
    const request = await waitFor(async () => good.requests.find((r) => JSON.parse(r.body).type === 'student.created'), 'the delivery', DELIVERY_WAIT);
    expect(signedBy(request, endpoint.secret)).toBe(true);
    const event = JSON.parse(request.body);
    expect(event.data).toMatchObject({ student_id: studentId });

    const delivered = await waitFor(
      async () => (await deliveries()).items.find((d: any) => d.status === 'succeeded'),
      'the log to show it succeeded',
      DELIVERY_WAIT,
    );
    expect(delivered).toMatchObject({
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: 'student.created',
      attempt_count: 1,
      response_status: 200,
      response_body: 'thanks',
      replay_of: null,
    });
    firstDeliveryId = delivered.id;

    const detail = ok(await get(admin, `/webhooks/deliveries/${firstDeliveryId}`));
    expect(detail.payload).toEqual(event);
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0]).toMatchObject({ response_status: 200, error: null, response_body: 'thanks' });
    expect(detail.attempts[0].response_time_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(detail.attempts[0].at)).not.toBeNaN();
    const headers = Object.fromEntries(detail.request_headers.map((h: { name: string; value: string }) => [h.name, h.value]));
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Service-Event-Id': event.id,
      'X-Service-Delivery-Id': firstDeliveryId,
      'webhook-id': event.id,
    });
    expect(request.headers['x-service-delivery-id']).toBe(firstDeliveryId);
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(['X-Service-Signature', 'webhook-timestamp', 'webhook-signature']));
  });

  it('replays a delivery as a new delivery with its own attempt; the original is unchanged', async () => {
    const before = good.requests.length;
    const replay = ok(await post(admin, `/webhooks/deliveries/${firstDeliveryId}/replay`, {}));
    expect(replay).toMatchObject({ replay_of: firstDeliveryId, endpoint_id: endpoint.id, replayed: false });
    expect(replay.id).not.toBe(firstDeliveryId);

    const detail = await waitFor(
      async () => {
        const d = ok(await get(dev, `/webhooks/deliveries/${replay.id}`));
        return d.status === 'succeeded' && d;
      },
      'the replay to be delivered',
      DELIVERY_WAIT,
    );
    expect(detail.attempts).toEqual([expect.objectContaining({ response_status: 200, response_body: 'thanks' })]);
    expect(good.requests.length).toBe(before + 1);
    expect(JSON.parse(good.requests.at(-1)!.body).id).toBe(detail.payload.id);

    const original = ok(await get(dev, `/webhooks/deliveries/${firstDeliveryId}`));
    expect(original.attempts).toHaveLength(1);

    // With a ref it is idempotent, as in /v1.
    const withRef = ok(await post(dev, `/webhooks/deliveries/${firstDeliveryId}/replay`, { ref: 'portal-1' }));
    const again = ok(await post(dev, `/webhooks/deliveries/${firstDeliveryId}/replay`, { ref: 'portal-1' }));
    expect(again).toMatchObject({ id: withRef.id, replayed: true });
  });

  it('filters the log by endpoint, status and event type, and pages it', async () => {
    const broken = ok(await post(admin, '/webhooks/endpoints', { url: failing.url, description: 'Broken', events: ['*'] }));
    await newStudent('Grace Hopper');
    await waitFor(async () => (await deliveries({ endpoint_id: broken.id, status: 'failed' })).items.length > 0, 'a failed delivery', DELIVERY_WAIT);
    await waitFor(
      async () =>
        (await deliveries({ endpoint_id: endpoint.id, status: 'pending' })).total === 0 &&
        (await deliveries({ endpoint_id: endpoint.id, status: 'delivering' })).total === 0,
      'the good endpoint to settle',
      DELIVERY_WAIT,
    );

    const all = await deliveries();
    expect(all.total).toBeGreaterThanOrEqual(5);
    const toBroken = await deliveries({ endpoint_id: broken.id });
    expect(toBroken.items.length).toBeGreaterThan(0);
    expect(toBroken.items.every((d: any) => d.endpoint_id === broken.id)).toBe(true);
    const succeeded = await deliveries({ status: 'succeeded' });
    expect(succeeded.items.length).toBeGreaterThan(0);
    expect(succeeded.items.every((d: any) => d.status === 'succeeded' && d.endpoint_id === endpoint.id)).toBe(true);
    const failed = await deliveries({ endpoint_id: endpoint.id, status: 'failed' });
    expect(failed.items).toEqual([]);
    const failedAttempt = ok(await get(dev, `/webhooks/deliveries/${toBroken.items[0].id}`));
    expect(failedAttempt.attempts[0]).toMatchObject({ response_status: 500, error: 'http_500', response_body: 'broken' });

    expect((await deliveries({ event_type: 'student.*' })).total).toBe(all.total);
    expect((await deliveries({ event_type: 'student.created' })).total).toBe(all.total);
    expect((await deliveries({ event_type: 'exam.*' })).total).toBe(0);

    // Newest first, paged like /v1.
    const first = await deliveries({ limit: 1, page: 1 });
    const second = await deliveries({ limit: 1, page: 2 });
    expect(first).toMatchObject({ page: 1, limit: 1, total: all.total, totalPages: all.total });
    expect(first.items[0].id).toBe(all.items[0].id);
    expect(second.items[0].id).toBe(all.items[1].id);

    expectError(await get(dev, '/webhooks/deliveries', { status: 'lost' }), 422, 'validation_error');
    expectError(await get(dev, '/webhooks/deliveries', { event_type: 'not a pattern' }), 422, 'validation_error');
    expectError(await get(dev, '/webhooks/deliveries', { limit: 500 }), 422, 'validation_error');
    expectError(await get(dev, '/webhooks/deliveries', { sort: 'x' }), 422, 'validation_error');

    // Out of the way of the other tests: the broken endpoint goes, and its deliveries with it.
    expect(ok(await del(admin, `/webhooks/endpoints/${broken.id}`))).toEqual({ id: broken.id, deleted: true });
    expectError(await get(dev, `/webhooks/endpoints/${broken.id}`), 404, 'not_found');
    expect((await deliveries({ endpoint_id: broken.id })).total).toBe(0);
  });

  it('pauses (deliveries queue, ping and replay refused) and resumes (they go out)', async () => {
    const paused = ok(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { status: 'paused' }));
    expect(paused.status).toBe('paused');
    const before = good.requests.length;
    await newStudent('Alan Turing');
    const queued = await waitFor(async () => (await deliveries({ endpoint_id: endpoint.id, status: 'pending' })).items[0], 'a queued delivery', DELIVERY_WAIT);
    expectError(await post(dev, `/webhooks/endpoints/${endpoint.id}/test`), 409, 'endpoint_inactive');
    expectError(await post(dev, `/webhooks/deliveries/${firstDeliveryId}/replay`, {}), 409, 'endpoint_inactive');
    await sleep(300);
    expect(good.requests.length).toBe(before);

    expect(ok(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { status: 'active' })).status).toBe('active');
    await waitFor(
      async () => ok(await get(dev, `/webhooks/deliveries/${queued.id}`)).status === 'succeeded',
      'the queued delivery after resume',
      DELIVERY_WAIT,
    );
    expect(good.requests.length).toBe(before + 1);
  });

  it('re-enables a disabled endpoint with its failure count reset', async () => {
    const disabled = ok(await patch(admin, `/webhooks/endpoints/${endpoint.id}`, { status: 'disabled' }));
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'disabled_by_user' });
    await app.ctx.db.models.WebhookEndpoint.update({ consecutive_failures: 30, disabled_reason: 'too_many_failures' }, { where: { id: endpoint.id } });
    const enabled = ok(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { status: 'active' }));
    expect(enabled).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
  });

  it('updates URL, description and patterns, with the spec codes for bad input', async () => {
    const other = await startReceiver(202, 'other');
    try {
      const updated = ok(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { url: other.url, description: 'Moved', events: ['exam.graded', '*'] }));
      expect(updated).toMatchObject({ url: other.url, description: 'Moved', events: ['exam.graded', '*'] });
      expect(ok(await get(admin, `/webhooks/endpoints/${endpoint.id}`))).toEqual(updated);
      ok(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { url: good.url, events: ['student.*'] }));
    } finally {
      await other.close();
    }
    expectError(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { events: [] }), 422, 'events_required');
    expectError(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { events: ['Student'] }), 422, 'validation_error');
    expectError(await patch(dev, `/webhooks/endpoints/${endpoint.id}`, { colour: 'red' }), 422, 'validation_error');
    expectError(await post(dev, '/webhooks/endpoints', { url: good.url }), 422, 'events_required');
    expectError(await post(dev, '/webhooks/endpoints', { url: good.url, events: ['exam.'] }), 422, 'validation_error');
    expectError(await post(dev, '/webhooks/endpoints', { events: ['*'] }), 422, 'validation_error');
    expectError(await patch(dev, '/webhooks/endpoints/whe_missing', { description: 'x' }), 404, 'not_found');
    expect(ok(await get(dev, `/webhooks/endpoints/${endpoint.id}`)).events).toEqual(['student.*']);
  });

  it('sends a test ping and reports the answer; a failing receiver is delivered: false', async () => {
    const before = good.requests.length;
    const ping = ok(await post(admin, `/webhooks/endpoints/${endpoint.id}/test`));
    expect(ping).toMatchObject({ delivered: true, response_status: 200, response_body: 'thanks' });
    expect(ping.response_time_ms).toBeGreaterThanOrEqual(0);
    const request = good.requests[before]!;
    expect(JSON.parse(request.body)).toMatchObject({ type: 'webhook.ping', data: { endpoint_id: endpoint.id } });
    expect(signedBy(request, endpoint.secret)).toBe(true);

    good.status = 503;
    try {
      expect(ok(await post(dev, `/webhooks/endpoints/${endpoint.id}/test`))).toMatchObject({ delivered: false, response_status: 503 });
    } finally {
      good.status = 200;
    }
  });

  it('rotates the secret: the new one once, the old one signing beside it for the grace hours', async () => {
    const started = Date.now();
    const rotated = ok(await post(dev, `/webhooks/endpoints/${endpoint.id}/rotate-secret`, { grace_hours: 2 }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.previous_secret_expires_at) - started;
    expect(expires).toBeGreaterThan(2 * 3_600_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(2 * 3_600_000 + 60_000);
    expect((await get(dev, `/webhooks/endpoints/${endpoint.id}`)).text).not.toContain(rotated.secret);

    const before = good.requests.length;
    ok(await post(dev, `/webhooks/endpoints/${endpoint.id}/test`));
    const request = good.requests[before]!;
    expect(signedBy(request, rotated.secret)).toBe(true);
    expect(signedBy(request, endpoint.secret)).toBe(true);

    // No body: the default grace (24 h), and the secret before last stops at once.
    const again = ok(await post(admin, `/webhooks/endpoints/${endpoint.id}/rotate-secret`));
    expect(Date.parse(again.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    ok(await post(dev, `/webhooks/endpoints/${endpoint.id}/test`));
    const last = good.requests.at(-1)!;
    expect(signedBy(last, again.secret)).toBe(true);
    expect(signedBy(last, rotated.secret)).toBe(true);
    expect(signedBy(last, endpoint.secret)).toBe(false);
    // Writes are audited by id only: no secret reaches the audit log or the server log.
    const audit = JSON.stringify(await app.ctx.db.models.PortalAuditEntry.findAll({ raw: true }));
    expect(audit).toContain('/institutions/{institution}/webhooks/endpoints/{id}/rotate-secret');
    for (const secret of [endpoint.secret, rotated.secret, again.secret]) {
      expect(audit).not.toContain(secret);
      expect(app.logText()).not.toContain(secret);
    }
    endpoint.secret = again.secret;

    expectError(await post(dev, `/webhooks/endpoints/${endpoint.id}/rotate-secret`, { grace_hours: 169 }), 422, 'validation_error');
    expectError(await post(dev, `/webhooks/endpoints/${endpoint.id}/rotate-secret`, { grace_hours: 'soon' }), 422, 'validation_error');
  });

  it('needs a session (401) and the CSRF token on writes (403)', async () => {
    expectError(await app.http.get(`${base()}/webhooks/endpoints`), 401, 'unauthorized');
    expectError(await app.http.get(`${base()}/webhooks/deliveries`), 401, 'unauthorized');
    expectError(await app.http.get(`${base()}/events/types`), 401, 'unauthorized');
    expectError(await app.http.post(`${base()}/webhooks/endpoints`).send({ url: good.url, events: ['*'] }), 401, 'unauthorized');

    const count = await app.ctx.db.models.WebhookEndpoint.count();
    expectError(await dev.agent.post(`${base()}/webhooks/endpoints`).send({ url: good.url, events: ['*'] }), 403, 'forbidden');
    expectError(
      await dev.agent
        .post(`${base()}/webhooks/endpoints`)
        .set('X-CSRF-Token', 'wrong')
        .send({ url: good.url, events: ['*'] }),
      403,
      'forbidden',
    );
    expectError(await dev.agent.patch(`${base()}/webhooks/endpoints/${endpoint.id}`).send({ status: 'paused' }), 403, 'forbidden');
    expectError(await dev.agent.delete(`${base()}/webhooks/endpoints/${endpoint.id}`), 403, 'forbidden');
    expectError(await dev.agent.post(`${base()}/webhooks/endpoints/${endpoint.id}/rotate-secret`).send({}), 403, 'forbidden');
    expectError(await dev.agent.post(`${base()}/webhooks/deliveries/${firstDeliveryId}/replay`).send({}), 403, 'forbidden');
    expect(await app.ctx.db.models.WebhookEndpoint.count()).toBe(count);
    expect(ok(await get(dev, `/webhooks/endpoints/${endpoint.id}`)).status).toBe('active');
  });

  it("another institution's webhooks are 404, by its id or by theirs under ours", async () => {
    for (const who of [dev, admin]) {
      expectError(await who.agent.get(`${base(other.id)}/webhooks/endpoints`), 404, 'not_found');
      expectError(await who.agent.get(`${base(other.id)}/webhooks/deliveries`), 404, 'not_found');
      expectError(await who.agent.get(`${base(other.id)}/events/types`), 404, 'not_found');
      expectError(await who.agent.get(`${base(other.id)}/webhooks/endpoints/${other.endpointId}`), 404, 'not_found');
      expectError(
        await who.agent
          .post(`${base(other.id)}/webhooks/endpoints`)
          .set('X-CSRF-Token', who.csrf)
          .send({ url: good.url, events: ['*'] }),
        404,
        'not_found',
      );
    }
    expectError(await get(dev, `/webhooks/endpoints/${other.endpointId}`), 404, 'not_found');
    expectError(await patch(dev, `/webhooks/endpoints/${other.endpointId}`, { status: 'active' }), 404, 'not_found');
    expectError(await post(dev, `/webhooks/endpoints/${other.endpointId}/test`), 404, 'not_found');
    expectError(await post(dev, `/webhooks/endpoints/${other.endpointId}/rotate-secret`, {}), 404, 'not_found');
    expectError(await del(dev, `/webhooks/endpoints/${other.endpointId}`), 404, 'not_found');
    expectError(await get(dev, `/webhooks/deliveries/${other.deliveryId}`), 404, 'not_found');
    expectError(await post(dev, `/webhooks/deliveries/${other.deliveryId}/replay`, {}), 404, 'not_found');
    expect((await deliveries({ endpoint_id: other.endpointId })).total).toBe(0);
    expect((await deliveries()).items.some((d: any) => d.id === other.deliveryId)).toBe(false);

    const theirs = await app.ctx.db.models.WebhookEndpoint.findByPk(other.endpointId);
    expect(theirs!.status).toBe('paused');
  });

  it('deletes an endpoint with its deliveries', async () => {
    expect((await deliveries({ endpoint_id: endpoint.id })).total).toBeGreaterThan(0);
    expect(ok(await del(dev, `/webhooks/endpoints/${endpoint.id}`))).toEqual({ id: endpoint.id, deleted: true });
    expectError(await get(dev, `/webhooks/endpoints/${endpoint.id}`), 404, 'not_found');
    expectError(await get(dev, `/webhooks/deliveries/${firstDeliveryId}`), 404, 'not_found');
    expect((await deliveries({ endpoint_id: endpoint.id })).total).toBe(0);
    expect(ok(await get(admin, '/webhooks/endpoints')).items).toEqual([]);
    expect(studentId).toMatch(/^stu_/);
  });
});

describe('Portal: webhook URL rules come from the appliance settings', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let base: string;

  beforeAll(async () => {
    // The default: private hosts and plain http refused.
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    base = `${institutionApi(admin.institutionId)}/webhooks/endpoints`;
  });
  afterAll(() => app.close());

  it('refuses http and private hosts with https_required and private_host', async () => {
    const create = (url: string) =>
      admin.agent
        .post(base)
        .set('X-CSRF-Token', admin.csrf)
        .send({ url, events: ['*'] });
    expectError(await create('http://lms.example.test/hook'), 422, 'https_required');
    expectError(await create('https://127.0.0.1/hook'), 422, 'private_host');
    expectError(await create('https://10.1.2.3/hook'), 422, 'private_host');
    expect(ok(await admin.agent.get(base)).items).toEqual([]);
  });
});
