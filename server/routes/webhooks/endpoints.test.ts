// @tier integration
// @databases sqlite, postgres
import { createHmac } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../../commands/webhooks/endpoints.js';
import { endpointSecrets } from '../../webhooks/secrets.js';
import type { Config } from '../../config.js';
import type { Scope } from '../../policies/scopes.js';
import type { Resolver } from '../../outbound/address.js';
import { makeInstitution, makeKey, makeSchool, startTestAppliance, type TestAppliance, type TestKey } from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ENDPOINT_FIELDS = ['consecutive_failures', 'created_at', 'description', 'disabled_reason', 'events', 'id', 'status', 'updated_at', 'url'];
const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;
const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const webhookConfig = (allowPrivateHosts: boolean): Partial<Config> => ({
  outbound: { privateHosts: allowPrivateHosts ? 'all' : null },
  webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 2000 },
});

interface WireEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: 'active' | 'paused' | 'disabled';
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
  secret?: string;
  previous_secret_expires_at?: string;
  [extra: string]: unknown;
}

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  close: () => Promise<void>;
}

/** A webhook receiver on 127.0.0.1, port 0: records each request and answers as `respond` says. */
async function startReceiver(respond: (request: Received) => { status: number; body: string }): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const answer = respond(request);
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/campusbridge`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The receiver's side of `X-Service-Signature`, computed here without the appliance's signing code. */
function serviceSignatureValid(header: string | string[] | undefined, body: string, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',');
  const t = parts.find((part) => part.startsWith('t='))?.slice(2);
  if (!t || Math.abs(Number(t) - Date.now() / 1000) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`, 'utf8').digest('hex');
  return parts.filter((part) => part.startsWith('v1=')).some((part) => part.slice(3) === expected);
}

describe('Webhook endpoints', () => {
  let app: TestAppliance;
  /** Every secret the API handed out: none may ever reach the log or the database in clear. */
  const secretsSeen: string[] = [];

  beforeAll(async () => {
    app = await startTestAppliance({ config: webhookConfig(true) });
  });
  afterAll(() => app.close());

  const school = (scopes: Array<Scope | 'all'> = ['webhooks:write']) => makeSchool(app, { scopes });

  const get = (key: TestKey, path: string) => app.http.get(`/v1${path}`).set('Authorization', key.auth);
  const post = (key: TestKey, path: string, body?: unknown) => {
    const request = app.http.post(`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? request : request.send(body as object);
  };
  const patch = (key: TestKey, path: string, body: unknown) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', key.auth)
      .send(body as object);
  const del = (key: TestKey, path: string) => app.http.delete(`/v1${path}`).set('Authorization', key.auth);

  async function createEndpointOk(key: TestKey, body: Record<string, unknown> = {}): Promise<WireEndpoint> {
    const res = await post(key, '/webhooks/endpoints', { url: 'https://127.0.0.1/hooks', events: ['*'], ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    secretsSeen.push(res.body.data.secret);
    return res.body.data;
  }

  async function rotate(key: TestKey, id: string, body?: unknown): Promise<WireEndpoint> {
    const res = await post(key, `/webhooks/endpoints/${id}/rotate-secret`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    secretsSeen.push(res.body.data.secret);
    return res.body.data;
  }

  const endpointRow = async (id: string) => (await app.ctx.db.models.WebhookEndpoint.findByPk(id))!;
  const deliveryCount = (endpointId: string) => app.ctx.db.models.WebhookDelivery.count({ where: { endpoint_id: endpointId } });

  describe('create, list, read, update, delete', () => {
    it('creates an active endpoint and shows its secret once', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key, { url: 'https://127.0.0.1:8443/lms', description: 'Gradebook', events: ['exam.graded', 'student.*'] });
      expect(Object.keys(created).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
      expect(created).toMatchObject({
        url: 'https://127.0.0.1:8443/lms',
        description: 'Gradebook',
        events: ['exam.graded', 'student.*'],
        status: 'active',
        disabled_reason: null,
        consecutive_failures: 0,
      });
      expect(created.id).toMatch(/^whe_[A-Za-z0-9]{24}$/);
      expect(created.secret).toMatch(SECRET);
      expect(created.created_at).toMatch(ISO_MS);
      expect(created.updated_at).toMatch(ISO_MS);

      const one = await get(key, `/webhooks/endpoints/${created.id}`);
      expect(one.status).toBe(200);
      expect(Object.keys(one.body.data).sort()).toEqual(ENDPOINT_FIELDS);
      const { secret: _secret, ...withoutSecret } = created;
      expect(one.body.data).toEqual(withoutSecret);

      const list = await get(key, '/webhooks/endpoints');
      expect(list.status).toBe(200);
      expect(Object.keys(list.body.data)).toEqual(['items']);
      expect(list.body.data.items).toEqual([withoutSecret]);
      expect(JSON.stringify(list.body)).not.toContain(created.secret);
    });

    it('description defaults to an empty string; repeated patterns are kept once; the list is oldest first', async () => {
      const { key } = await school();
      const first = await createEndpointOk(key, { events: ['exam.*', 'exam.*', 'student.created'] });
      expect(first.description).toBe('');
      expect(first.events).toEqual(['exam.*', 'student.created']);
      const second = await createEndpointOk(key);
      const list = await get(key, '/webhooks/endpoints');
      expect(list.body.data.items.map((item: WireEndpoint) => item.id)).toEqual([first.id, second.id]);
    });

    it('the secret is stored sealed: no column of webhook_endpoints holds it in clear, yet it signs', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const rows = await app.ctx.db.sequelize.query('SELECT * FROM webhook_endpoints', { type: QueryTypes.SELECT });
      const dump = JSON.stringify(rows);
      expect(dump).toContain(created.id);
      for (const secret of secretsSeen) {
        expect(dump).not.toContain(secret);
        expect(dump).not.toContain(secret.slice('whsec_'.length));
      }
      const row = await endpointRow(created.id);
      expect(row.secret_sealed).toMatch(/^v1\./);
      expect(endpointSecrets(app.ctx.db, row)).toEqual([created.secret]);
    });

    it('PATCH changes url, description and events; updated_at moves; an empty body changes nothing', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key, { description: 'old' });
      await sleep(5);
      const res = await patch(key, `/webhooks/endpoints/${created.id}`, { url: 'https://[::1]:9443/new', description: 'new', events: ['license.expired'] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(ENDPOINT_FIELDS);
      expect(res.body.data).toMatchObject({ id: created.id, url: 'https://[::1]:9443/new', description: 'new', events: ['license.expired'], status: 'active' });
      expect(res.body.data.created_at).toBe(created.created_at);
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

      const unchanged = await patch(key, `/webhooks/endpoints/${created.id}`, {});
      expect(unchanged.status).toBe(200);
      expect(unchanged.body.data).toEqual(res.body.data);
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data).toEqual(res.body.data);
    });

    it('PATCH refuses unknown fields and other writable-looking ones (no mass assignment)', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      for (const body of [{ secret: 'whsec_mine' }, { consecutive_failures: 0 }, { disabled_reason: null }, { id: 'whe_other' }]) {
        const res = await patch(key, `/webhooks/endpoints/${created.id}`, body);
        expect(res.status).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details[0].path).toBe(Object.keys(body)[0]);
      }
      const bad = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'deleted' });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ error: 'validation_error', details: [{ path: 'status' }] });
    });

    it('DELETE answers {id, deleted: true}; the endpoint and its deliveries are gone', async () => {
      const { inst, key } = await school();
      const created = await createEndpointOk(key);
      await inst.tenant.webhookDeliveries.create({
        id: 'dlv_cascadeCheck0000000000001',
        endpoint_id: created.id,
        event_id: 'evt_cascadeCheck0000000000001',
        event_type: 'student.created',
        payload: { id: 'evt_cascadeCheck0000000000001' },
        status: 'succeeded',
        next_attempt_at: null,
        last_attempt_at: new Date(),
        response_status: 200,
        response_time_ms: 12,
        response_body: 'ok',
        replay_of: null,
      });
      expect(await deliveryCount(created.id)).toBe(1);

      const res = await del(key, `/webhooks/endpoints/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: created.id, deleted: true });
      expect(await deliveryCount(created.id)).toBe(0);
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).status).toBe(404);
      expect((await get(key, '/webhooks/endpoints')).body.data.items).toEqual([]);
      const again = await del(key, `/webhooks/endpoints/${created.id}`);
      expect(again.status).toBe(404);
      expect(again.body.error).toBe('not_found');
    });

    it('unknown ids are 404 not_found on every path', async () => {
      const { key } = await school();
      const id = 'whe_doesNotExist000000000000';
      const answers = await Promise.all([
        get(key, `/webhooks/endpoints/${id}`),
        patch(key, `/webhooks/endpoints/${id}`, { description: 'x' }),
        del(key, `/webhooks/endpoints/${id}`),
        post(key, `/webhooks/endpoints/${id}/rotate-secret`, {}),
        post(key, `/webhooks/endpoints/${id}/test`),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
    });
  });

  describe('subscription rules', () => {
    it('events missing or empty: 422 events_required, on create and on PATCH', async () => {
      const { key } = await school();
      for (const body of [{ url: 'https://127.0.0.1/hooks' }, { url: 'https://127.0.0.1/hooks', events: [] }]) {
        const res = await post(key, '/webhooks/endpoints', body);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ success: false, error: 'events_required' });
      }
      const created = await createEndpointOk(key, { events: ['exam.graded'] });
      const res = await patch(key, `/webhooks/endpoints/${created.id}`, { events: [] });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('events_required');
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data.events).toEqual(['exam.graded']);
      expect((await get(key, '/webhooks/endpoints')).body.data.items).toHaveLength(1);
    });

    it('a malformed pattern is 422 validation_error naming events.<index>', async () => {
      const { key } = await school();
      for (const [pattern, index] of [
        ['exam.', 1],
        ['Exam.Graded', 1],
        ['**', 1],
        ['exam.*.graded', 1],
        ['graded', 1],
        ['', 1],
      ] as const) {
        const res = await post(key, '/webhooks/endpoints', { url: 'https://127.0.0.1/hooks', events: ['exam.graded', pattern] });
        expect(res.status, pattern).toBe(422);
        expect(res.body.error, pattern).toBe('validation_error');
        expect(
          res.body.details.map((detail: { path: string }) => detail.path),
          pattern,
        ).toContain(`events.${index}`);
      }
      const created = await createEndpointOk(key);
      const res = await patch(key, `/webhooks/endpoints/${created.id}`, { events: ['*', 'exam.*', 'not a pattern'] });
      expect(res.status).toBe(422);
      expect(res.body.details[0].path).toBe('events.2');
    });

    it('url must be an absolute URL without credentials: 422 validation_error naming url', async () => {
      const { key } = await school();
      for (const url of ['not a url', '/relative/path', 'https://user:pass@127.0.0.1/hooks']) {
        const res = await post(key, '/webhooks/endpoints', { url, events: ['*'] });
        expect(res.status, url).toBe(422);
        expect(res.body.error, url).toBe('validation_error');
        expect(res.body.details[0].path, url).toBe('url');
      }
    });

    it('the 21st endpoint of an institution is 422 endpoint_limit; deleting one makes room', async () => {
      const { key } = await school();
      const created: WireEndpoint[] = [];
      for (let i = 0; i < 20; i += 1) created.push(await createEndpointOk(key, { description: `endpoint ${i}` }));
      const over = await post(key, '/webhooks/endpoints', { url: 'https://127.0.0.1/hooks', events: ['*'] });
      expect(over.status).toBe(422);
      expect(over.body.error).toBe('endpoint_limit');
      expect((await get(key, '/webhooks/endpoints')).body.data.items).toHaveLength(20);

      // Another institution has its own twenty.
      const other = await school();
      await createEndpointOk(other.key);

      expect((await del(key, `/webhooks/endpoints/${created[0]!.id}`)).status).toBe(200);
      await createEndpointOk(key);
    });
  });

  describe('status: pause, resume, disable, re-enable', () => {
    it('paused, then active again; resuming resets the failure counter', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const paused = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'paused' });
      expect(paused.status).toBe(200);
      expect(paused.body.data).toMatchObject({ status: 'paused', disabled_reason: null, consecutive_failures: 0 });

      await (await endpointRow(created.id)).update({ consecutive_failures: 7 });
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data.consecutive_failures).toBe(7);

      const resumed = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'active' });
      expect(resumed.status).toBe(200);
      expect(resumed.body.data).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
    });

    it('an endpoint the engine disabled is re-enabled by status active: reason cleared, counter reset', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      // What the delivery engine does after 30 failed attempts in a row.
      await (await endpointRow(created.id)).update({ status: 'disabled', disabled_reason: 'too_many_failures', consecutive_failures: 30 });
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data).toMatchObject({
        status: 'disabled',
        disabled_reason: 'too_many_failures',
        consecutive_failures: 30,
      });

      // Asking for `disabled` again keeps the engine's reason.
      const still = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'disabled' });
      expect(still.body.data).toMatchObject({ status: 'disabled', disabled_reason: 'too_many_failures', consecutive_failures: 30 });

      const enabled = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'active' });
      expect(enabled.status).toBe(200);
      expect(enabled.body.data).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
      const row = await endpointRow(created.id);
      expect([row.status, row.disabled_reason, row.consecutive_failures]).toEqual(['active', null, 0]);
    });

    it('the client disables with reason disabled_by_user; pausing a disabled endpoint clears the reason', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const disabled = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'disabled' });
      expect(disabled.status).toBe(200);
      expect(disabled.body.data).toMatchObject({ status: 'disabled', disabled_reason: 'disabled_by_user' });

      await (await endpointRow(created.id)).update({ consecutive_failures: 4 });
      const paused = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'paused' });
      expect(paused.body.data).toMatchObject({ status: 'paused', disabled_reason: null, consecutive_failures: 0 });
    });

    it('a paused endpoint queues its deliveries; resuming sends them', async () => {
      const { key } = await school(['all']);
      const receiver = await startReceiver(() => ({ status: 202, body: '' }));
      try {
        const created = await createEndpointOk(key, { url: receiver.url, events: ['student.created'] });
        expect((await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'paused' })).status).toBe(200);
        const student = await post(key, '/students', { full_name: 'Ada Lovelace' });
        expect(student.status).toBe(200);
        await sleep(1500); // more than a sweep: nothing may go out while paused
        expect(receiver.received).toHaveLength(0);
        expect(await deliveryCount(created.id)).toBe(1);

        expect((await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'active' })).status).toBe(200);
        for (let waited = 0; receiver.received.length === 0 && waited < 5000; waited += 50) await sleep(50);
        expect(receiver.received).toHaveLength(1);
        expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'student.created', data: { student_id: student.body.data.id } });
      } finally {
        await receiver.close();
      }
    });

    it('pausing keeps the failure counter: only a move to active (or out of disabled) resets it', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      await (await endpointRow(created.id)).update({ consecutive_failures: 3 });
      const paused = await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'paused', description: 'maintenance window' });
      expect(paused.body.data).toMatchObject({ status: 'paused', consecutive_failures: 3, description: 'maintenance window' });
    });
  });

  describe('secret rotation', () => {
    it('the new secret is current; the old one signs too until the grace ends (24 h by default)', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const before = Date.now();
      const rotated = await rotate(key, created.id);
      expect(Object.keys(rotated).sort()).toEqual([...ENDPOINT_FIELDS, 'previous_secret_expires_at', 'secret'].sort());
      expect(rotated.secret).toMatch(SECRET);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.previous_secret_expires_at).toMatch(ISO_MS);
      const expires = Date.parse(rotated.previous_secret_expires_at!);
      expect(expires).toBeGreaterThanOrEqual(before + 24 * HOUR);
      expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR);

      const row = await endpointRow(created.id);
      expect(endpointSecrets(app.ctx.db, row)).toEqual([rotated.secret, created.secret]);
      // One second before the end both still sign; at the end only the new one.
      expect(endpointSecrets(app.ctx.db, row, new Date(expires - 1000))).toEqual([rotated.secret, created.secret]);
      expect(endpointSecrets(app.ctx.db, row, new Date(expires))).toEqual([rotated.secret]);

      // The grace period ends.
      await row.update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
      expect(endpointSecrets(app.ctx.db, await endpointRow(created.id))).toEqual([rotated.secret]);

      // Neither secret is shown again.
      const one = await get(key, `/webhooks/endpoints/${created.id}`);
      expect(Object.keys(one.body.data).sort()).toEqual(ENDPOINT_FIELDS);
    });

    it('grace_hours sets the grace; 0 retires the old secret at once', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const before = Date.now();
      const twoHours = await rotate(key, created.id, { grace_hours: 2 });
      const expires = Date.parse(twoHours.previous_secret_expires_at!);
      expect(expires - before).toBeGreaterThanOrEqual(2 * HOUR);
      expect(expires - Date.now()).toBeLessThanOrEqual(2 * HOUR);

      const immediate = await rotate(key, created.id, { grace_hours: 0 });
      expect(Math.abs(Date.parse(immediate.previous_secret_expires_at!) - Date.now())).toBeLessThan(5000);
      expect(endpointSecrets(app.ctx.db, await endpointRow(created.id))).toEqual([immediate.secret]);
    });

    it('rotating again during a grace period: the then-current secret becomes the previous one', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const second = await rotate(key, created.id, { grace_hours: 24 });
      const third = await rotate(key, created.id, { grace_hours: 1 });
      expect(endpointSecrets(app.ctx.db, await endpointRow(created.id))).toEqual([third.secret, second.secret]);
      expect(new Set([created.secret, second.secret, third.secret]).size).toBe(3);
    });

    it('grace_hours outside 0..168 or not an integer: 422 validation_error', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      for (const grace_hours of [-1, 169, 1.5, '24']) {
        const res = await post(key, `/webhooks/endpoints/${created.id}/rotate-secret`, { grace_hours });
        expect(res.status, String(grace_hours)).toBe(422);
        expect(res.body).toMatchObject({ error: 'validation_error', details: [{ path: 'grace_hours' }] });
      }
      const max = await rotate(key, created.id, { grace_hours: 168 });
      expect(Date.parse(max.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(167 * HOUR);
      // Nothing rotated by the refused calls: the current secret is the one the last success returned.
      expect(endpointSecrets(app.ctx.db, await endpointRow(created.id))[0]).toBe(max.secret);
    });
  });

  describe('test ping', () => {
    it('delivers a signed webhook.ping the receiver verifies; no delivery is stored, the counter does not move', async () => {
      const { inst, key } = await school();
      let secret = '';
      const receiver = await startReceiver(({ headers, body }) =>
        serviceSignatureValid(headers['x-service-signature'], body, secret) ? { status: 202, body: 'ok' } : { status: 401, body: 'bad signature' },
      );
      try {
        const created = await createEndpointOk(key, { url: receiver.url, events: ['exam.graded'] });
        secret = created.secret!;
        await (await endpointRow(created.id)).update({ consecutive_failures: 2 });

        const res = await post(key, `/webhooks/endpoints/${created.id}/test`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(Object.keys(res.body.data).sort()).toEqual(['delivered', 'response_body', 'response_status', 'response_time_ms']);
        expect(res.body.data).toMatchObject({ delivered: true, response_status: 202, response_body: 'ok' });
        expect(Number.isInteger(res.body.data.response_time_ms)).toBe(true);

        expect(receiver.received).toHaveLength(1);
        const [ping] = receiver.received;
        const event = JSON.parse(ping!.body);
        expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'environment', 'id', 'institution_id', 'type']);
        expect(event).toMatchObject({ type: 'webhook.ping', institution_id: inst.id, environment: 'live', data: { endpoint_id: created.id } });
        expect(event.id).toMatch(/^evt_/);
        expect(event.created_at).toMatch(ISO_MS);
        expect(ping!.headers['content-type']).toBe('application/json');
        expect(ping!.headers['x-service-event-id']).toBe(event.id);
        expect(ping!.headers['x-service-delivery-id']).toMatch(/^dlv_/);
        expect(ping!.headers['webhook-id']).toBe(event.id);
        // Standard Webhooks: the key is the base64 part after whsec_, signed content "<id>.<t>.<body>".
        const t = ping!.headers['webhook-timestamp'] as string;
        const standard = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
          .update(`${event.id}.${t}.${ping!.body}`)
          .digest('base64');
        expect(ping!.headers['webhook-signature']).toBe(`v1,${standard}`);
        expect(ping!.headers['x-service-signature']).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));

        expect(await deliveryCount(created.id)).toBe(0);
        expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data).toMatchObject({ status: 'active', consecutive_failures: 2 });
      } finally {
        await receiver.close();
      }
    });

    it('during a rotation grace the ping carries both signatures, newest first', async () => {
      const { key } = await school();
      const receiver = await startReceiver(() => ({ status: 200, body: '' }));
      try {
        const created = await createEndpointOk(key, { url: receiver.url });
        const rotated = await rotate(key, created.id);
        const res = await post(key, `/webhooks/endpoints/${created.id}/test`);
        expect(res.body.data).toMatchObject({ delivered: true, response_status: 200, response_body: '' });
        const [ping] = receiver.received;
        const header = ping!.headers['x-service-signature'] as string;
        const [t, newest, oldest] = header.split(',');
        const hex = (secret: string) =>
          createHmac('sha256', secret)
            .update(`${t!.slice(2)}.${ping!.body}`)
            .digest('hex');
        expect(newest).toBe(`v1=${hex(rotated.secret!)}`);
        expect(oldest).toBe(`v1=${hex(created.secret!)}`);
        expect(serviceSignatureValid(header, ping!.body, created.secret!)).toBe(true);
        expect(serviceSignatureValid(header, ping!.body, rotated.secret!)).toBe(true);
        expect(serviceSignatureValid(header, ping!.body, 'whsec_someoneElse')).toBe(false);
      } finally {
        await receiver.close();
      }
    });

    it('a receiver answering 500 is still a 200 answer with delivered false and what it said; nothing counted', async () => {
      const { key } = await school();
      const receiver = await startReceiver(() => ({ status: 500, body: 'receiver exploded' }));
      try {
        const created = await createEndpointOk(key, { url: receiver.url });
        const res = await post(key, `/webhooks/endpoints/${created.id}/test`);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ delivered: false, response_status: 500, response_body: 'receiver exploded' });
        expect(receiver.received).toHaveLength(1);
        expect(await deliveryCount(created.id)).toBe(0);
        expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data).toMatchObject({
          status: 'active',
          consecutive_failures: 0,
          disabled_reason: null,
        });
      } finally {
        await receiver.close();
      }
    });

    it('a receiver that cannot be reached: delivered false with no status', async () => {
      const { key } = await school();
      const receiver = await startReceiver(() => ({ status: 200, body: '' }));
      const url = receiver.url;
      await receiver.close(); // nothing listens on that port any more
      const created = await createEndpointOk(key, { url });
      const res = await post(key, `/webhooks/endpoints/${created.id}/test`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ delivered: false, response_status: null, response_body: null });
    });

    it('an endpoint that is not active: 409 endpoint_inactive, and nothing is sent', async () => {
      const { key } = await school();
      const receiver = await startReceiver(() => ({ status: 200, body: '' }));
      try {
        const created = await createEndpointOk(key, { url: receiver.url });
        for (const status of ['paused', 'disabled'] as const) {
          expect((await patch(key, `/webhooks/endpoints/${created.id}`, { status })).status).toBe(200);
          const res = await post(key, `/webhooks/endpoints/${created.id}/test`);
          expect(res.status, status).toBe(409);
          expect(res.body).toMatchObject({ success: false, error: 'endpoint_inactive' });
        }
        expect(receiver.received).toHaveLength(0);
        expect((await patch(key, `/webhooks/endpoints/${created.id}`, { status: 'active' })).status).toBe(200);
        expect((await post(key, `/webhooks/endpoints/${created.id}/test`)).body.data.delivered).toBe(true);
      } finally {
        await receiver.close();
      }
    });

    it('takes no body', async () => {
      const { key } = await school();
      const created = await createEndpointOk(key);
      const res = await post(key, `/webhooks/endpoints/${created.id}/test`, { url: 'https://127.0.0.1/elsewhere' });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'validation_error', details: [{ path: 'url' }] });
    });
  });

  describe('scopes and tenancy', () => {
    it('reads need webhooks:read, writes webhooks:write; write implies read', async () => {
      const { inst, key } = await school(['webhooks:write']);
      const created = await createEndpointOk(key);
      const reader = await makeKey(app, inst, { scopes: ['webhooks:read'] });
      const outsider = await makeKey(app, inst, { scopes: ['students:write', 'institution:write'] });

      expect((await get(reader, '/webhooks/endpoints')).status).toBe(200);
      expect((await get(reader, `/webhooks/endpoints/${created.id}`)).status).toBe(200);
      expect((await get(key, '/webhooks/endpoints')).status).toBe(200);

      const writes = [
        post(reader, '/webhooks/endpoints', { url: 'https://127.0.0.1/hooks', events: ['*'] }),
        patch(reader, `/webhooks/endpoints/${created.id}`, { status: 'paused' }),
        del(reader, `/webhooks/endpoints/${created.id}`),
        post(reader, `/webhooks/endpoints/${created.id}/rotate-secret`, {}),
        post(reader, `/webhooks/endpoints/${created.id}/test`),
      ];
      for (const res of await Promise.all(writes)) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['webhooks:write'], missing: ['webhooks:write'] });
      }
      for (const res of await Promise.all([get(outsider, '/webhooks/endpoints'), get(outsider, `/webhooks/endpoints/${created.id}`)])) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['webhooks:read'], missing: ['webhooks:read'] });
      }
      // Nothing changed.
      expect((await get(key, `/webhooks/endpoints/${created.id}`)).body.data.status).toBe('active');
    });

    it("another institution's endpoint is 404 not_found on every path, and stays untouched", async () => {
      const a = await school(['all']);
      const b = await school(['all']);
      const receiver = await startReceiver(() => ({ status: 200, body: '' }));
      try {
        const theirs = await createEndpointOk(b.key, { url: receiver.url, description: 'B' });
        const mine = await createEndpointOk(a.key, { description: 'A' });
        const path = `/webhooks/endpoints/${theirs.id}`;
        const answers: Array<[string, Awaited<ReturnType<typeof get>>]> = [
          ['GET', await get(a.key, path)],
          ['PATCH status', await patch(a.key, path, { status: 'paused' })],
          ['PATCH events []', await patch(a.key, path, { events: [] })],
          ['PATCH url', await patch(a.key, path, { url: 'http://127.0.0.1:1/x' })],
          ['rotate-secret', await post(a.key, `${path}/rotate-secret`, { grace_hours: 0 })],
          ['test', await post(a.key, `${path}/test`)],
          ['DELETE', await del(a.key, path)],
        ];
        for (const [what, res] of answers) {
          expect(res.status, what).toBe(404);
          expect(res.body.error, what).toBe('not_found');
        }
        expect(receiver.received).toHaveLength(0);
        expect((await get(a.key, '/webhooks/endpoints')).body.data.items.map((item: WireEndpoint) => item.id)).toEqual([mine.id]);
        const { secret, ...unchanged } = theirs;
        expect((await get(b.key, `/webhooks/endpoints/${theirs.id}`)).body.data).toEqual(unchanged);
        expect(endpointSecrets(app.ctx.db, await endpointRow(theirs.id))).toEqual([secret]);
      } finally {
        await receiver.close();
      }
    });
  });

  it('no secret handed out by this suite ever reached the log', () => {
    expect(secretsSeen.length).toBeGreaterThan(20);
    const log = app.logText();
    expect(log).toContain('webhook ping');
    for (const secret of secretsSeen) {
      expect(secret).toMatch(SECRET);
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice('whsec_'.length));
    }
  });
});

describe('Webhook endpoint URL rules (private hosts not allowed)', () => {
  let app: TestAppliance;
  let key: TestKey;

  beforeAll(async () => {
    app = await startTestAppliance({ config: webhookConfig(false) });
    key = await makeKey(app, await makeInstitution(app), { scopes: ['webhooks:write'] });
  });
  afterAll(() => app.close());

  const create = (url: string) =>
    app.http
      .post('/v1/webhooks/endpoints')
      .set('Authorization', key.auth)
      .send({ url, events: ['*'] });

  it('a URL that is not https: 422 https_required', async () => {
    for (const url of ['http://127.0.0.1/hooks', 'http://localhost:8080/hooks', 'ftp://127.0.0.1/hooks']) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body, url).toMatchObject({ success: false, error: 'https_required' });
    }
  });

  it('a loopback IP literal or localhost: 422 private_host', async () => {
    for (const url of ['https://127.0.0.1/hooks', 'https://localhost/hooks', 'https://[::1]/hooks', 'https://127.0.0.1:8443/hooks']) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body, url).toMatchObject({ success: false, error: 'private_host' });
    }
    const list = await app.http.get('/v1/webhooks/endpoints').set('Authorization', key.auth);
    expect(list.body.data.items).toEqual([]);
  });

  it('a name that resolves to a loopback address: private_host (injected resolver, nothing connects)', async () => {
    const inst = await makeInstitution(app);
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(
      createEndpoint(inst.tenant, { url: 'https://hooks.campusbridge.test/in', description: '', events: ['*'] }, { privateHosts: 'off', resolver }),
    ).rejects.toMatchObject({
      code: 'private_host',
    });
    expect(await inst.tenant.webhookEndpoints.count()).toBe(0);
  });

  it('PATCH checks a new url the same way and keeps the old one on refusal', async () => {
    const inst = await makeInstitution(app);
    // Written as when WEBHOOK_ALLOW_PRIVATE_HOSTS was on.
    const { endpoint } = await createEndpoint(inst.tenant, { url: 'https://127.0.0.1:1/in', description: '', events: ['*'] }, { privateHosts: 'all' });
    const own = await makeKey(app, inst, { scopes: ['webhooks:write'] });
    const update = (url: string) => app.http.patch(`/v1/webhooks/endpoints/${endpoint.id}`).set('Authorization', own.auth).send({ url });
    expect((await update('http://127.0.0.1/hooks')).body.error).toBe('https_required');
    expect((await update('https://localhost/hooks')).body.error).toBe('private_host');
    expect((await update('https://[::1]/hooks')).body.error).toBe('private_host');
    const still = await app.http.get(`/v1/webhooks/endpoints/${endpoint.id}`).set('Authorization', own.auth);
    expect(still.body.data.url).toBe('https://127.0.0.1:1/in');
  });

  it('the host is checked again when pinging: a loopback endpoint is refused without connecting', async () => {
    const inst = await makeInstitution(app);
    const own = await makeKey(app, inst, { scopes: ['webhooks:write'] });
    // A listener that counts connections: the refusal must come before any.
    let connections = 0;
    const listener = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = listener.address() as AddressInfo;
      // Written as when WEBHOOK_ALLOW_PRIVATE_HOSTS was on (or before the name moved): the ping must still refuse it.
      const { endpoint } = await createEndpoint(
        inst.tenant,
        { url: `https://127.0.0.1:${port}/hooks`, description: '', events: ['*'] },
        { privateHosts: 'all' },
      );
      const res = await app.http.post(`/v1/webhooks/endpoints/${endpoint.id}/test`).set('Authorization', own.auth);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ delivered: false, response_status: null, response_body: null });
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
});
