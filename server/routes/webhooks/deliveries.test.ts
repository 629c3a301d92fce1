// @tier integration
// @databases sqlite, postgres
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../config.js';
import type { Scope } from '../../policies/scopes.js';
import { makeKey, makeSchool, startTestAppliance, type TestAppliance, type TestKey, type TestSchool } from '../../../tests/helpers/appliance.js';
import { waitFor } from '../../../tests/helpers/wait.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DELIVERY_FIELDS = [
  'attempt_count',
  'created_at',
  'endpoint_id',
  'event_id',
  'event_type',
  'id',
  'last_attempt_at',
  'next_attempt_at',
  'replay_of',
  'response_body',
  'response_status',
  'response_time_ms',
  'status',
];
const config: Partial<Config> = { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 } };

describe('Webhook deliveries API', () => {
  let app: TestAppliance;
  let receiver: http.Server;
  let receiverUrl: string;
  let received = 0;

  beforeAll(async () => {
    app = await startTestAppliance({ config });
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received += 1;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  type School = TestSchool;

  const school = () => makeSchool(app);

  const get = (key: TestKey, path: string, query: Record<string, string | number> = {}) =>
    app.http.get(`/v1${path}`).query(query).set('Authorization', key.auth);
  const post = (key: TestKey, path: string, body?: unknown) => {
    const req = app.http.post(`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };
  const patch = (key: TestKey, path: string, body: unknown) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', key.auth)
      .send(body as object);

  async function endpoint(s: School, events: string[], path = '/'): Promise<string> {
    const res = await post(s.key, '/webhooks/endpoints', { url: `${receiverUrl}${path}`, events });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.id;
  }

  async function student(s: School, fullName = 'Ada Lovelace'): Promise<string> {
    const res = await post(s.key, '/students', { full_name: fullName });
    expect(res.status).toBe(200);
    return res.body.data.id;
  }

  const list = async (s: School, query: Record<string, string | number> = {}) => {
    const res = await get(s.key, '/webhooks/deliveries', query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { items: any[]; page: number; limit: number; total: number; totalPages: number };
  };

  /**
   * A school with a delivering endpoint (every student.* event) and a paused one (everything),
   * after one student was created and then updated: four deliveries, the paused two pending.
   */
  async function seeded() {
    const s = await school();
    const live = await endpoint(s, ['student.*'], '/live');
    const paused = await endpoint(s, ['*'], '/paused');
    expect((await patch(s.key, `/webhooks/endpoints/${paused}`, { status: 'paused' })).status).toBe(200);
    const studentId = await student(s);
    expect((await patch(s.key, `/students/${studentId}`, { full_name: 'Ada King' })).status).toBe(200);
    await waitFor(async () => (await list(s, { endpoint_id: live, status: 'succeeded' })).total === 2, 'the live deliveries');
    return { s, live, paused, studentId };
  }

  describe('GET /webhooks/deliveries', () => {
    it('lists newest first with exactly the Delivery fields, paged', async () => {
      const { s } = await seeded();
      const page = await list(s);
      expect(page).toMatchObject({ page: 1, limit: 50, total: 4, totalPages: 1 });
      for (const item of page.items) {
        expect(Object.keys(item).sort()).toEqual(DELIVERY_FIELDS);
        expect(item.id).toMatch(/^dlv_/);
        expect(item.created_at).toMatch(ISO_MS);
      }
      const created = page.items.map((item) => Date.parse(item.created_at));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      expect(page.items.slice(0, 2).map((item) => item.event_type)).toEqual(['student.updated', 'student.updated']);

      const first = await list(s, { limit: 3 });
      const second = await list(s, { limit: 3, page: 2 });
      expect(first).toMatchObject({ limit: 3, total: 4, totalPages: 2 });
      expect(first.items).toHaveLength(3);
      expect(second.items).toHaveLength(1);
      expect([...first.items, ...second.items].map((item) => item.id).sort()).toEqual(page.items.map((item) => item.id).sort());
    });

    it('filters by endpoint_id, status and event_type (exact, family, *), combined', async () => {
      const { s, live, paused } = await seeded();
      expect((await list(s, { endpoint_id: live })).items.every((item) => item.endpoint_id === live)).toBe(true);
      expect((await list(s, { endpoint_id: live })).total).toBe(2);
      expect((await list(s, { status: 'pending' })).items.map((item) => item.endpoint_id)).toEqual([paused, paused]);
      expect((await list(s, { status: 'succeeded' })).total).toBe(2);
      expect((await list(s, { status: 'dead' })).total).toBe(0);
      expect((await list(s, { event_type: 'student.created' })).total).toBe(2);
      expect((await list(s, { event_type: 'student.*' })).total).toBe(4);
      expect((await list(s, { event_type: 'student.updated', endpoint_id: paused })).total).toBe(1);
      expect((await list(s, { event_type: '*' })).total).toBe(4);
      expect((await list(s, { event_type: 'exam.*' })).total).toBe(0);
      // A prefix is a family, not a substring.
      expect((await list(s, { event_type: 'student.create' })).total).toBe(0);
      expect((await list(s, { endpoint_id: 'whe_doesNotExist' })).total).toBe(0);

      const succeeded = (await list(s, { status: 'succeeded' })).items[0];
      expect(succeeded).toMatchObject({ attempt_count: 1, response_status: 200, response_body: '{"received":true}', next_attempt_at: null });
      expect(succeeded.last_attempt_at).toMatch(ISO_MS);
      expect(succeeded.response_time_ms).toEqual(expect.any(Number));
      const pending = (await list(s, { status: 'pending' })).items[0];
      expect(pending).toMatchObject({ attempt_count: 0, last_attempt_at: null, response_status: null, response_body: null, response_time_ms: null });
      expect(pending.next_attempt_at).toMatch(ISO_MS);
    });

    it.each([
      ['status', 'lost'],
      ['event_type', 'Student.Created'],
      ['event_type', 'student.'],
      ['limit', '0'],
      ['limit', '201'],
      ['page', '0'],
      ['unknown', 'x'],
    ])('422 validation_error for %s=%s', async (name, value) => {
      const s = await school();
      const res = await get(s.key, '/webhooks/deliveries', { [name]: value });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'validation_error' });
    });
  });

  describe('GET /webhooks/deliveries/{id}', () => {
    it('adds the payload (the event JSON) and the attempts', async () => {
      const { s, live } = await seeded();
      const [row] = (await list(s, { endpoint_id: live, event_type: 'student.created' })).items;
      const res = await get(s.key, `/webhooks/deliveries/${row.id}`);
      expect(res.status).toBe(200);
      const detail = res.body.data;
      expect(Object.keys(detail).sort()).toEqual([...DELIVERY_FIELDS, 'attempts', 'payload', 'request_headers'].sort());
      const { payload, attempts, request_headers, ...rest } = detail;
      expect(request_headers).toContainEqual({ name: 'X-Service-Delivery-Id', value: detail.id });
      expect(rest).toEqual(row);
      const [event] = (await get(s.key, '/events', { type: 'student.created' })).body.data.items;
      expect(payload).toEqual({ ...event, institution_id: s.inst.id, environment: 'live' });
      expect(attempts).toHaveLength(1);
      expect(Object.keys(attempts[0]).sort()).toEqual(['at', 'error', 'response_body', 'response_status', 'response_time_ms']);
      expect(attempts[0]).toMatchObject({ at: row.last_attempt_at, response_status: 200, error: null });
    });

    it('a pending delivery has its payload and no attempts; an unknown id is 404', async () => {
      const { s, paused } = await seeded();
      const [row] = (await list(s, { endpoint_id: paused })).items;
      const detail = (await get(s.key, `/webhooks/deliveries/${row.id}`)).body.data;
      expect(detail.attempts).toEqual([]);
      expect(detail.payload.id).toBe(row.event_id);
      const missing = await get(s.key, '/webhooks/deliveries/dlv_doesNotExist');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ success: false, error: 'not_found' });
    });
  });

  describe('POST /webhooks/deliveries/{id}/replay', () => {
    it('creates a new pending delivery with replay_of; the original is unchanged; no event is emitted', async () => {
      const { s, live } = await seeded();
      const [original] = (await list(s, { endpoint_id: live, event_type: 'student.created' })).items;
      const before = (await get(s.key, `/webhooks/deliveries/${original.id}`)).body.data;
      const events = (await get(s.key, '/events')).body.data.items.length;
      const sent = received;

      const res = await post(s.key, `/webhooks/deliveries/${original.id}/replay`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const replay = res.body.data;
      expect(Object.keys(replay).sort()).toEqual([...DELIVERY_FIELDS, 'replayed'].sort());
      expect(replay).toMatchObject({
        endpoint_id: live,
        event_id: original.event_id,
        event_type: 'student.created',
        status: 'pending',
        attempt_count: 0,
        replay_of: original.id,
        response_status: null,
        replayed: false,
      });
      expect(replay.id).not.toBe(original.id);

      const done = await waitFor(async () => {
        const d = (await get(s.key, `/webhooks/deliveries/${replay.id}`)).body.data;
        return d.status === 'succeeded' && d;
      }, 'the replay to be delivered');
      expect(done.payload).toEqual(before.payload);
      expect(received).toBeGreaterThan(sent);
      expect((await get(s.key, `/webhooks/deliveries/${original.id}`)).body.data).toEqual(before);
      expect((await get(s.key, '/events')).body.data.items).toHaveLength(events);
      // A replay can itself be replayed; replay_of names the one replayed.
      const again = await post(s.key, `/webhooks/deliveries/${replay.id}/replay`, {});
      expect(again.status).toBe(200);
      expect(again.body.data.replay_of).toBe(replay.id);
    });

    it('with ref it is idempotent: the same ref answers the same replay; on another delivery it is 409 conflict', async () => {
      const { s, live } = await seeded();
      const [a, b] = (await list(s, { endpoint_id: live })).items;
      const first = await post(s.key, `/webhooks/deliveries/${a.id}/replay`, { ref: 'resync-1' });
      expect(first.status).toBe(200);
      expect(first.body.data.replayed).toBe(false);
      const second = await post(s.key, `/webhooks/deliveries/${a.id}/replay`, { ref: 'resync-1' });
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({ id: first.body.data.id, replay_of: a.id, replayed: true });
      expect((await list(s, { endpoint_id: live })).total).toBe(3);

      const elsewhere = await post(s.key, `/webhooks/deliveries/${b.id}/replay`, { ref: 'resync-1' });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.body).toMatchObject({ success: false, error: 'conflict' });
      // A ref is per institution: another school may use the same words.
      const other = await seeded();
      const [theirs] = (await list(other.s, { endpoint_id: other.live })).items;
      expect((await post(other.s.key, `/webhooks/deliveries/${theirs.id}/replay`, { ref: 'resync-1' })).body.data.replayed).toBe(false);

      const bad = await post(s.key, `/webhooks/deliveries/${a.id}/replay`, { ref: '', extra: 1 });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBe('validation_error');
    });

    it('409 endpoint_inactive when the endpoint is paused or disabled; nothing is created', async () => {
      const { s, live, paused } = await seeded();
      const [queued] = (await list(s, { endpoint_id: paused })).items;
      const res = await post(s.key, `/webhooks/deliveries/${queued.id}/replay`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, error: 'endpoint_inactive' });

      expect((await patch(s.key, `/webhooks/endpoints/${live}`, { status: 'disabled' })).status).toBe(200);
      const [delivered] = (await list(s, { endpoint_id: live })).items;
      const disabled = await post(s.key, `/webhooks/deliveries/${delivered.id}/replay`);
      expect(disabled.status).toBe(409);
      expect(disabled.body.error).toBe('endpoint_inactive');
      expect((await list(s)).total).toBe(4);

      expect((await post(s.key, '/webhooks/deliveries/dlv_doesNotExist/replay')).status).toBe(404);
    });
  });

  describe('scopes', () => {
    it.each<[Scope[], number, number]>([
      [['webhooks:read'], 200, 403],
      [['webhooks:write'], 200, 200],
      [['students:write', 'institution:read'], 403, 403],
    ])('%j: reads %i, replay %i', async (scopes, readStatus, replayStatus) => {
      const { s, live } = await seeded();
      const [row] = (await list(s, { endpoint_id: live })).items;
      const key = await makeKey(app, s.inst, { scopes });
      expect((await get(key, '/webhooks/deliveries')).status).toBe(readStatus);
      expect((await get(key, `/webhooks/deliveries/${row.id}`)).status).toBe(readStatus);
      const replay = await post(key, `/webhooks/deliveries/${row.id}/replay`);
      expect(replay.status).toBe(replayStatus);
      if (replayStatus === 403) expect(replay.body).toMatchObject({ error: 'insufficient_scope', required: ['webhooks:write'] });
    });
  });

  describe('tenancy', () => {
    it("another institution's deliveries are 404 and never listed", async () => {
      const A = await seeded();
      const B = await seeded();
      const theirs = (await list(B.s)).items;
      for (const row of theirs) {
        expect((await get(A.s.key, `/webhooks/deliveries/${row.id}`)).status).toBe(404);
        const replay = await post(A.s.key, `/webhooks/deliveries/${row.id}/replay`);
        expect(replay.status).toBe(404);
        expect(replay.body.error).toBe('not_found');
      }
      expect((await list(A.s, { endpoint_id: B.live })).total).toBe(0);
      const mine = (await list(A.s)).items.map((row) => row.id);
      expect(mine.some((id) => theirs.some((row) => row.id === id))).toBe(false);
      expect((await list(B.s)).total).toBe(4);
    });
  });
});
