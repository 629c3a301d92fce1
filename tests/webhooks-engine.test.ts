// @tier integration
// @databases sqlite, postgres
// The webhook engine end to end: events caused by real API calls, deliveries to real receivers on
// 127.0.0.1, signatures checked by an implementation written here from docs/api.md#signatures (it does not
// import server/webhooks/signing.ts), retries on a shortened schedule, disabling, pausing,
// suspension, concurrency, patterns, replay and retention.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../server/client/index.js';
import { setInstitutionStatus } from '../server/commands/institutions/institutions.js';
import { connectDatabase, databaseLocation } from '../server/db/index.js';
import {
  makeDataDir,
  makeInstitution,
  makeKey,
  makeSchool,
  removeDataDir,
  startTestAppliance,
  type TestAppliance,
  type TestSchool,
} from './helpers/appliance.js';
import { clientFor, collect } from './helpers/client.js';
import { waitFor } from './helpers/wait.js';
import { PER_ENDPOINT_IN_FLIGHT } from '../server/webhooks/engine.js';

const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const DAY_MS = 24 * 60 * 60 * 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Receivers: node:http on 127.0.0.1, port 0.

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

type Respond = (request: Received, res: http.ServerResponse) => void;

interface Receiver {
  url: string;
  requests: Received[];
  /** Requests being answered right now, and the most there ever were at once. */
  open: number;
  maxOpen: number;
  /** TCP connections the appliance opened to it. */
  connections: number;
  respond: Respond;
  close: () => Promise<void>;
}

const answer =
  (status: number, body = 'ok', headers: Record<string, string> = {}): Respond =>
  (_request, res) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function startReceiver(respond: Respond = answer(200)): Promise<Receiver> {
  const receiver = { requests: [] as Received[], open: 0, maxOpen: 0, connections: 0, respond } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      receiver.requests.push(request);
      receiver.open += 1;
      receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
      res.on('close', () => {
        receiver.open -= 1;
      });
      receiver.respond(request, res);
    });
  });
  server.on('connection', () => {
    receiver.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  receivers.push(receiver);
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// Signatures, verified from the words of docs/api.md#signatures alone.

/** `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret as UTF-8, "<t>.<raw body>")>[,v1=…]` */
function verifyServiceSignature(header: string, body: string, secret: string): number {
  const parts = header.split(',');
  const t = parts[0]!.match(/^t=(\d+)$/)?.[1];
  if (!t) throw new Error(`no t= in ${header}`);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`, 'utf8').digest();
  const matched = parts.slice(1).some((part) => {
    const hex = part.match(/^v1=([0-9a-f]{64})$/)?.[1];
    return hex !== undefined && timingSafeEqual(Buffer.from(hex, 'hex'), expected);
  });
  if (!matched) throw new Error('X-Service-Signature does not verify');
  return Number(t);
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, "<id>.<t>.<raw body>")>`, space-separated. */
function verifyStandardSignature(headers: http.IncomingHttpHeaders, body: string, secret: string): void {
  const id = String(headers['webhook-id']);
  const t = String(headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${t}.${body}`, 'utf8').digest();
  const matched = String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      return version === 'v1' && signature !== undefined && timingSafeEqual(Buffer.from(signature, 'base64'), expected);
    });
  if (!matched) throw new Error('webhook-signature does not verify');
}

// ---------------------------------------------------------------------------------------------

describe('webhook engine', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
  });
  afterAll(async () => {
    await app?.close();
  });

  // Endpoints left active would keep retrying into the next test: each test's are disabled after it.
  const endpointsMade: string[] = [];
  afterEach(async () => {
    await app.ctx.db.models.WebhookEndpoint.update({ status: 'disabled', disabled_reason: 'test_over' }, { where: { id: endpointsMade.splice(0) } });
  });

  type School = TestSchool;

  const school = () => makeSchool(app);

  const get = (s: School, path: string, query: Record<string, string | number> = {}) =>
    app.http.get(`/v1${path}`).query(query).set('Authorization', s.key.auth);
  const post = (s: School, path: string, body: unknown = {}) =>
    app.http
      .post(`/v1${path}`)
      .set('Authorization', s.key.auth)
      .send(body as object);
  const patch = (s: School, path: string, body: unknown) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', s.key.auth)
      .send(body as object);

  // The API calls that set a test up and read its outcome go through the typed client (server/client/);
  // each still asserts the status it needs. Wire details stay with supertest below.
  const cb = (s: School) => clientFor(app, s.key);

  async function endpoint(s: School, url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
    const { data, error, response } = await cb(s).POST('/webhooks/endpoints', { body: { url, events, description: 'test receiver' } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    endpointsMade.push(data!.data.id);
    return { id: data!.data.id, secret: data!.data.secret };
  }

  async function setStatus(s: School, endpointId: string, status: 'active' | 'paused' | 'disabled') {
    const { data, error, response } = await cb(s).PATCH('/webhooks/endpoints/{id}', { params: { path: { id: endpointId } }, body: { status } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    return data!.data;
  }

  async function createStudent(s: School, fullName = 'Ada Lovelace'): Promise<string> {
    const { data, error, response } = await cb(s).POST('/students', { body: { full_name: fullName } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    return data!.data.id;
  }

  async function deliveries(s: School, query: Record<string, string | number> = {}): Promise<any[]> {
    const { data, error, response } = await cb(s).GET('/webhooks/deliveries', { params: { query: { limit: 200, ...query } } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    return data!.data.items;
  }

  async function delivery(s: School, id: string): Promise<any> {
    const { data, error, response } = await cb(s).GET('/webhooks/deliveries/{id}', { params: { path: { id } } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    return data!.data;
  }

  async function endpointState(s: School, id: string): Promise<any> {
    const { data, response } = await cb(s).GET('/webhooks/endpoints/{id}', { params: { path: { id } } });
    expect(response.status).toBe(200);
    return data!.data;
  }

  it('delivers a signed POST after the commit: exact headers, body equal to the event JSON, both signatures verify', async () => {
    // On an appliance whose sweep comes round once an hour, a delivery that arrives was sent
    // because its event committed, not because a sweep found it.
    const everySecond = app;
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: { ...WEBHOOKS, sweepSeconds: 3600 } } });
    try {
      await deliversAfterCommit();
    } finally {
      await app.close();
      app = everySecond;
    }
  });

  async function deliversAfterCommit() {
    const receiver = await startReceiver(answer(202, 'queued'));
    const s = await school();
    const { id: endpointId, secret } = await endpoint(s, `${receiver.url}/hooks/campusbridge`);

    const started = Date.now();
    const studentId = await createStudent(s);
    await waitFor(() => receiver.requests.length >= 1, 'the delivery');

    const events = await collect(cb(s).events({ type: 'student.created' }));
    expect(events).toHaveLength(1);
    const event = events[0]!;
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/campusbridge');

    // The body is the event JSON {id, type, created_at, institution_id, environment, data}, in that order.
    const body = JSON.parse(request!.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'institution_id', 'environment', 'data']);
    expect(body).toEqual({ ...event, institution_id: s.inst.id, environment: 'live' });
    expect(body.data.student_id).toBe(studentId);

    const h = request!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-service-event-id']).toBe(event.id);
    expect(h['x-service-delivery-id']).toMatch(/^dlv_[A-Za-z0-9]+$/);
    expect(h['webhook-id']).toBe(event.id);
    const t = verifyServiceSignature(String(h['x-service-signature']), request!.body, secret);
    expect(String(h['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Number(h['webhook-timestamp'])).toBe(t);
    expect(Math.abs(t - Math.floor(started / 1000))).toBeLessThanOrEqual(5);
    verifyStandardSignature(h, request!.body, secret);
    // The typed client's verifier agrees under both schemes, and hands back the event typed by its type.
    for (const scheme of ['standard', 'service'] as const) {
      const verified = await verifyWebhook({ body: request!.body, headers: h, secret, scheme });
      expect(verified).toEqual(body);
      expect(verified.type === 'student.created' && verified.data.student_id).toBe(studentId);
    }
    // …and neither verifies under another secret, nor for another body.
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(() => verifyServiceSignature(String(h['x-service-signature']), request!.body, other)).toThrow();
    expect(() => verifyStandardSignature(h, request!.body, other)).toThrow();
    expect(() => verifyServiceSignature(String(h['x-service-signature']), `${request!.body} `, secret)).toThrow();

    const deliveryId = String(h['x-service-delivery-id']);
    const done = await waitFor(async () => {
      const d = await delivery(s, deliveryId);
      return d.status === 'succeeded' && d;
    }, 'the delivery to be recorded as succeeded');
    expect(done).toMatchObject({
      id: deliveryId,
      endpoint_id: endpointId,
      event_id: event.id,
      event_type: 'student.created',
      attempt_count: 1,
      next_attempt_at: null,
      response_status: 202,
      response_body: 'queued',
      replay_of: null,
    });
    expect(done.payload).toEqual(body);
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ response_status: 202, error: null });
    expect(done.attempts[0].at).toBe(done.last_attempt_at);
    expect((await endpointState(s, endpointId)).consecutive_failures).toBe(0);
  }

  it('during a rotation grace a delivery carries both signatures, newest first; after it only the new one', async () => {
    const receiver = await startReceiver(answer(200, 'ok'));
    const s = await school();
    const { id: endpointId, secret: oldSecret } = await endpoint(s, `${receiver.url}/rotating`);
    const rotated = await post(s, `/webhooks/endpoints/${endpointId}/rotate-secret`, { grace_hours: 24 });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const newSecret: string = rotated.body.data.secret;
    expect(newSecret).not.toBe(oldSecret);

    await createStudent(s, 'Grace Period');
    await waitFor(() => receiver.requests.length >= 1, 'the delivery during the grace');
    const during = receiver.requests[0]!;
    const service = String(during.headers['x-service-signature']);
    expect(service).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // Each secret verifies on its own, with both schemes; the first entry is the new secret's.
    verifyServiceSignature(service, during.body, newSecret);
    verifyServiceSignature(service, during.body, oldSecret);
    verifyStandardSignature(during.headers, during.body, newSecret);
    verifyStandardSignature(during.headers, during.body, oldSecret);
    const [t, first] = service.split(',');
    verifyServiceSignature(`${t},${first}`, during.body, newSecret);

    // The grace ends: only the new secret signs.
    await app.ctx.db.models.WebhookEndpoint.update({ previous_secret_expires_at: new Date(Date.now() - 1000) }, { where: { id: endpointId } });
    await createStudent(s, 'After Grace');
    await waitFor(() => receiver.requests.length >= 2, 'the delivery after the grace');
    const after = receiver.requests[1]!;
    expect(String(after.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    verifyServiceSignature(String(after.headers['x-service-signature']), after.body, newSecret);
    expect(() => verifyServiceSignature(String(after.headers['x-service-signature']), after.body, oldSecret)).toThrow();
    expect(() => verifyStandardSignature(after.headers, after.body, oldSecret)).toThrow();
  });

  it('retries a failing receiver on the schedule and gives up as dead after exactly 6 attempts', async () => {
    const receiver = await startReceiver(answer(500, 'nope'));
    const s = await school();
    const { id: endpointId } = await endpoint(s, receiver.url);
    await createStudent(s);

    const [row] = await waitFor(
      async () => {
        const rows = await deliveries(s);
        return rows.length === 1 && rows[0].status === 'dead' && rows;
      },
      'the delivery to be dead',
      15_000,
    );
    const dead = await delivery(s, row.id);
    expect(dead).toMatchObject({ status: 'dead', attempt_count: 6, next_attempt_at: null, response_status: 500, response_body: 'nope' });
    expect(dead.attempts).toHaveLength(6);
    for (const attempt of dead.attempts) expect(attempt).toMatchObject({ response_status: 500, error: 'http_500' });
    // One second apart (the shortened schedule), never sooner.
    const times = dead.attempts.map((attempt: { at: string }) => Date.parse(attempt.at));
    for (let i = 1; i < times.length; i += 1) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(990);

    expect(receiver.requests).toHaveLength(6);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([row.id]));
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([row.event_id]));
    await sleep(1_500);
    expect(receiver.requests).toHaveLength(6);
    expect(await endpointState(s, endpointId)).toMatchObject({ status: 'active', consecutive_failures: 6 });
  });

  it('a 410 answer disables the endpoint at once (disabled_reason gone) and the delivery is dead', async () => {
    const receiver = await startReceiver(answer(410, 'gone'));
    const s = await school();
    const { id: endpointId } = await endpoint(s, receiver.url);
    await createStudent(s);
    const state = await waitFor(async () => {
      const e = await endpointState(s, endpointId);
      return e.status === 'disabled' && e;
    }, 'the endpoint to be disabled');
    expect(state).toMatchObject({ disabled_reason: 'gone', consecutive_failures: 1 });
    const [row] = await deliveries(s);
    expect(row).toMatchObject({ status: 'dead', attempt_count: 1, response_status: 410, next_attempt_at: null });

    // A disabled endpoint gets no new deliveries.
    await createStudent(s, 'Alan Turing');
    expect(await deliveries(s)).toHaveLength(1);
    await sleep(1_200);
    expect(receiver.requests).toHaveLength(1);
  });

  it('30 consecutive failures disable the endpoint (too_many_failures); PATCH status active re-enables it with the counter reset', async () => {
    // A burst of 30 events to an always-500 receiver: their first attempts alone reach 30 failures.
    const receiver = await startReceiver(answer(500, 'down'));
    const s = await school();
    const { id: endpointId } = await endpoint(s, receiver.url, ['student.created']);
    const bulk = await post(s, '/students/bulk', { students: Array.from({ length: 30 }, (_, i) => ({ full_name: `Student ${i}` })) });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.created).toBe(30);
    expect(await deliveries(s)).toHaveLength(30);

    const disabled = await waitFor(
      async () => {
        const e = await endpointState(s, endpointId);
        return e.status === 'disabled' && e;
      },
      'the endpoint to be disabled',
      10_000,
    );
    expect(disabled.disabled_reason).toBe('too_many_failures');
    expect(disabled.consecutive_failures).toBeGreaterThanOrEqual(30);
    // Once disabled nothing more is sent (a request already in flight may still land).
    await sleep(300);
    const sent = receiver.requests.length;
    await sleep(1_500);
    expect(receiver.requests.length).toBe(sent);
    // Its undelivered rows are left as they were: none is dead yet.
    const rows = await deliveries(s);
    expect(rows.filter((row) => row.status === 'dead')).toHaveLength(0);

    receiver.respond = answer(200);
    const enabled = await setStatus(s, endpointId, 'active');
    expect(enabled).toMatchObject({ status: 'active', disabled_reason: null, consecutive_failures: 0 });
    // What waited goes out after the re-enable.
    await waitFor(async () => (await deliveries(s, { status: 'succeeded' })).length === 30, 'all 30 to succeed', 10_000);
    expect((await endpointState(s, endpointId)).consecutive_failures).toBe(0);
  });

  it('a receiver that never answers: the attempt fails with error timeout and is retried', async () => {
    const receiver = await startReceiver(() => {
      /* holds the request open */
    });
    const s = await school();
    await endpoint(s, receiver.url);
    await createStudent(s);
    const [row] = await waitFor(async () => (await deliveries(s)).length === 1 && deliveries(s), 'the delivery row');
    const failed = await waitFor(
      async () => {
        const d = await delivery(s, row.id);
        return d.status === 'failed' && d.attempt_count === 1 && d;
      },
      'the first attempt to time out',
      5_000,
    );
    expect(failed.response_status).toBeNull();
    expect(failed.next_attempt_at).not.toBeNull();
    expect(failed.attempts).toHaveLength(1);
    expect(failed.attempts[0]).toMatchObject({ error: 'timeout', response_status: null });
    expect(failed.attempts[0].response_time_ms).toBeGreaterThanOrEqual(1_400);
  });

  it('a redirect is a failure and is not followed: the other receiver is never called', async () => {
    const elsewhere = await startReceiver();
    const redirecting = await startReceiver(answer(302, 'moved', { Location: `${elsewhere.url}/caught` }));
    const s = await school();
    await endpoint(s, redirecting.url);
    await createStudent(s);
    const [row] = await waitFor(async () => {
      const rows = await deliveries(s);
      return rows.length === 1 && rows[0].attempt_count >= 1 && rows;
    }, 'the first attempt');
    const d = await delivery(s, row.id);
    expect(d.attempts[0]).toMatchObject({ response_status: 302, error: 'redirect' });
    expect(['failed', 'delivering']).toContain(d.status);
    await waitFor(() => redirecting.requests.length >= 2, 'the retry', 5_000);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('keeps only the first 2 KB of a 10 KB answer, never half a character', async () => {
    const ascii = 'x'.repeat(10_240);
    const accented = `a${'é'.repeat(5_120)}`;
    const plain = await startReceiver(answer(200, ascii));
    const multibyte = await startReceiver(answer(200, accented));
    const s = await school();
    const first = await endpoint(s, plain.url);
    const second = await endpoint(s, multibyte.url);
    await createStudent(s);
    const rows = await waitFor(async () => {
      const list = await deliveries(s, { status: 'succeeded' });
      return list.length === 2 && list;
    }, 'both deliveries');
    const byEndpoint = new Map(rows.map((row: any) => [row.endpoint_id, row]));
    const kept = byEndpoint.get(first.id).response_body as string;
    expect(kept).toBe(ascii.slice(0, 2048));
    const keptAccented = (await delivery(s, byEndpoint.get(second.id).id)).response_body as string;
    expect(Buffer.byteLength(keptAccented)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(keptAccented)).toBeGreaterThanOrEqual(2046);
    expect(accented.startsWith(keptAccented)).toBe(true);
    expect(keptAccented).not.toContain('\uFFFD');
  });

  it('a paused endpoint queues (nothing arrives) and resume delivers', async () => {
    const receiver = await startReceiver();
    const s = await school();
    const { id: endpointId } = await endpoint(s, receiver.url);
    await setStatus(s, endpointId, 'paused');
    await createStudent(s);
    const [row] = await deliveries(s);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 0 });
    await sleep(1_500); // a sweep or more has run
    expect(receiver.requests).toHaveLength(0);
    expect((await delivery(s, row.id)).status).toBe('pending');

    await setStatus(s, endpointId, 'active');
    await waitFor(() => receiver.requests.length === 1, 'the queued delivery');
    await waitFor(async () => (await delivery(s, row.id)).status === 'succeeded', 'succeeded');
  });

  it("a suspended institution's deliveries wait and go out after re-approval", async () => {
    const receiver = await startReceiver();
    const s = await school();
    await endpoint(s, receiver.url, ['license.expired']);
    const studentId = await createStudent(s);
    const license = await s.inst.tenant.licenses.findOne({ where: { user_id: studentId } });
    await s.inst.tenant.inTransaction((tx) => tx.licenses.update({ expires_at: new Date(Date.now() - 60_000) }, { id: license!.id }));

    await setInstitutionStatus(app.ctx.db, s.inst.id, 'suspended');
    // The expiry job runs for suspended institutions too: the event and its delivery are stored…
    await app.scheduler.runNow('expire-licenses');
    const rows = await s.inst.tenant.webhookDeliveries.findAll();
    expect(rows.map((row) => [row.event_type, row.status])).toEqual([['license.expired', 'pending']]);
    // …but nothing is sent while suspended.
    await sleep(1_500);
    expect(receiver.requests).toHaveLength(0);

    await setInstitutionStatus(app.ctx.db, s.inst.id, 'approved');
    await waitFor(() => receiver.requests.length === 1, 'the delivery after re-approval');
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ type: 'license.expired', data: { license_id: license!.id } });
    await waitFor(async () => (await delivery(s, rows[0]!.id)).status === 'succeeded', 'succeeded');
  });

  it(`a slow receiver does not delay another endpoint: at most ${PER_ENDPOINT_IN_FLIGHT} requests in flight per endpoint`, async () => {
    const slow = await startReceiver((_request, res) => {
      setTimeout(() => res.writeHead(200).end('slow'), 800);
    });
    const fast = await startReceiver();
    const s = await school();
    await endpoint(s, slow.url, ['student.created']);
    await endpoint(s, fast.url, ['student.created']);
    const count = PER_ENDPOINT_IN_FLIGHT + 4;
    const bulk = await post(s, '/students/bulk', { students: Array.from({ length: count }, (_, i) => ({ full_name: `Student ${i}` })) });
    expect(bulk.body.data.created).toBe(count);

    await waitFor(() => fast.requests.length === count && slow.requests.length >= 1, 'all at the fast receiver');
    // The fast endpoint got them all before the slow one had answered its first request, which
    // then held every one of the slow endpoint's slots.
    const fastDone = fast.requests[count - 1]!.at;
    expect(fastDone).toBeLessThan(slow.requests[0]!.at + 800);
    expect(slow.requests.filter((r) => r.at <= fastDone).length).toBeLessThanOrEqual(PER_ENDPOINT_IN_FLIGHT);
    await waitFor(() => slow.requests.length === count, 'all at the slow receiver', 8_000);
    expect(slow.maxOpen).toBe(PER_ENDPOINT_IN_FLIGHT);
    await waitFor(async () => (await deliveries(s, { status: 'succeeded' })).length === 2 * count, 'all succeeded');
  });

  it('sends many over a few kept-alive connections, and records each attempt once', async () => {
    const receiver = await startReceiver();
    const s = await school();
    await endpoint(s, receiver.url, ['student.created']);
    const count = 120;
    const bulk = await post(s, '/students/bulk', { students: Array.from({ length: count }, (_, i) => ({ full_name: `Kept Alive ${i}` })) });
    expect(bulk.body.data.created).toBe(count);
    await waitFor(async () => (await deliveries(s, { status: 'succeeded' })).length === count, 'all succeeded', 10_000);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id'])).size).toBe(count);
    expect(receiver.requests).toHaveLength(count);
    // Connections are reused: at most one per request that can be in flight at once.
    expect(receiver.connections).toBeLessThanOrEqual(PER_ENDPOINT_IN_FLIGHT);
    const { WebhookAttempt } = app.ctx.db.models;
    expect(await WebhookAttempt.count({ where: { institution_id: s.inst.id } })).toBe(count);
  });

  it('patterns decide which endpoints get a delivery row: *, a family, an exact type; disabled endpoints none', async () => {
    const receiver = await startReceiver();
    const s = await school();
    const all = await endpoint(s, `${receiver.url}/all`, ['*']);
    const family = await endpoint(s, `${receiver.url}/family`, ['student.*']);
    const exact = await endpoint(s, `${receiver.url}/exact`, ['student.created']);
    const updatedOnly = await endpoint(s, `${receiver.url}/updated`, ['student.updated']);
    const exams = await endpoint(s, `${receiver.url}/exams`, ['exam.*', 'faculty.created']);
    const disabled = await endpoint(s, `${receiver.url}/disabled`, ['*']);
    await setStatus(s, disabled.id, 'disabled');

    const studentId = await createStudent(s);
    const created = await deliveries(s, { event_type: 'student.created' });
    expect(created.map((row) => row.endpoint_id).sort()).toEqual([all.id, family.id, exact.id].sort());

    expect((await patch(s, `/students/${studentId}`, { full_name: 'Ada King' })).status).toBe(200);
    const updated = await deliveries(s, { event_type: 'student.updated' });
    expect(updated.map((row) => row.endpoint_id).sort()).toEqual([all.id, family.id, updatedOnly.id].sort());

    expect((await post(s, '/faculty', { full_name: 'Grace Hopper' })).status).toBe(200);
    const faculty = await deliveries(s, { event_type: 'faculty.*' });
    expect(faculty.map((row) => row.endpoint_id).sort()).toEqual([all.id, exams.id].sort());

    expect(await deliveries(s, { endpoint_id: disabled.id })).toHaveLength(0);
    await waitFor(() => receiver.requests.length === 8, 'the eight deliveries');
    const paths = receiver.requests.map((r) => r.path).sort();
    expect(paths).toEqual(['/all', '/all', '/all', '/exact', '/exams', '/family', '/family', '/updated']);
  });

  it('replay sends a new delivery with replay_of and a fresh signature timestamp; the original is unchanged', async () => {
    const receiver = await startReceiver();
    const s = await school();
    const { id: endpointId, secret } = await endpoint(s, receiver.url);
    await createStudent(s);
    await waitFor(() => receiver.requests.length === 1, 'the first delivery');
    const originalId = String(receiver.requests[0]!.headers['x-service-delivery-id']);
    const before = await waitFor(async () => {
      const d = await delivery(s, originalId);
      return d.status === 'succeeded' && d;
    }, 'the original to succeed');
    const eventsBefore = (await get(s, '/events')).body.data.items.length;

    // Signature timestamps are whole seconds: let one pass.
    await sleep(1_100);
    const res = await post(s, `/webhooks/deliveries/${originalId}/replay`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const replay = res.body.data;
    expect(replay).toMatchObject({
      endpoint_id: endpointId,
      event_id: before.event_id,
      event_type: 'student.created',
      replay_of: originalId,
      attempt_count: 0,
      replayed: false,
    });
    expect(replay.id).not.toBe(originalId);

    await waitFor(() => receiver.requests.length === 2, 'the replay');
    const [first, second] = receiver.requests;
    expect(second!.headers['x-service-delivery-id']).toBe(replay.id);
    expect(second!.headers['x-service-event-id']).toBe(before.event_id);
    expect(second!.body).toBe(first!.body);
    expect(Number(second!.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']));
    expect(verifyServiceSignature(String(second!.headers['x-service-signature']), second!.body, secret)).toBe(Number(second!.headers['webhook-timestamp']));
    verifyStandardSignature(second!.headers, second!.body, secret);

    await waitFor(async () => (await delivery(s, replay.id)).status === 'succeeded', 'the replay to succeed');
    expect(await delivery(s, originalId)).toEqual(before);
    // Replays emit no event.
    expect((await get(s, '/events')).body.data.items).toHaveLength(eventsBefore);
  });

  it('a claim left by a process that died mid-send is returned to due by the sweep and delivered', async () => {
    const receiver = await startReceiver();
    const s = await school();
    const { id: endpointId } = await endpoint(s, receiver.url);
    await setStatus(s, endpointId, 'paused');
    await createStudent(s);
    const [row] = await deliveries(s);
    // As a crashed process leaves it: claimed long ago, never recorded.
    const claimedAt = new Date(Date.now() - WEBHOOKS.timeoutMs - 10_000);
    await app.ctx.db.models.WebhookDelivery.update({ status: 'delivering', last_attempt_at: claimedAt }, { where: { id: row.id } });
    await app.ctx.db.models.WebhookEndpoint.update({ status: 'active' }, { where: { id: endpointId } });
    await app.scheduler.runNow('webhook-sweep');
    await waitFor(() => receiver.requests.length === 1, 'the delivery');
    const done = await waitFor(async () => {
      const d = await delivery(s, row.id);
      return d.status === 'succeeded' && d;
    }, 'succeeded');
    // The interrupted attempt is not counted: its outcome was never known.
    expect(done.attempt_count).toBe(1);
    expect(done.attempts).toHaveLength(1);

    // A fresh claim (a send that may still be running elsewhere) is left alone.
    await createStudent(s, 'Alan Turing');
    await waitFor(() => receiver.requests.length === 2, 'the second delivery');
    const second = (await deliveries(s)).find((d) => d.id !== row.id);
    await waitFor(async () => (await delivery(s, second.id)).status === 'succeeded', 'second succeeded');
    await app.ctx.db.models.WebhookDelivery.update({ status: 'delivering', last_attempt_at: new Date() }, { where: { id: second.id } });
    await app.scheduler.runNow('webhook-sweep');
    expect((await delivery(s, second.id)).status).toBe('delivering');
    await app.ctx.db.models.WebhookDelivery.update({ status: 'succeeded' }, { where: { id: second.id } });
  });

  it('the retention job deletes deliveries older than 30 days with their attempts', async () => {
    const receiver = await startReceiver();
    const s = await school();
    await endpoint(s, receiver.url);
    await createStudent(s, 'Old Student');
    await createStudent(s, 'New Student');
    const rows = await waitFor(async () => {
      const list = await deliveries(s, { status: 'succeeded' });
      return list.length === 2 && list;
    }, 'two deliveries');
    const [recent, old] = rows;
    await app.ctx.db.sequelize.query('UPDATE webhook_deliveries SET created_at = :at WHERE id = :id', {
      replacements: { at: new Date(Date.now() - 31 * DAY_MS), id: old.id },
    });
    const { WebhookAttempt } = app.ctx.db.models;
    expect(await WebhookAttempt.count({ where: { delivery_id: old.id } })).toBe(1);

    const result = await app.scheduler.runNow('prune-deliveries');
    expect(result).toMatchObject({ deliveries: 1, attempts: 1 });
    expect((await get(s, `/webhooks/deliveries/${old.id}`)).status).toBe(404);
    expect(await WebhookAttempt.count({ where: { delivery_id: old.id } })).toBe(0);
    expect((await get(s, `/webhooks/deliveries/${recent.id}`)).status).toBe(200);
  });
});

describe('webhook engine at stop', () => {
  it('stops claiming, lets a send in flight finish and records it before the database closes', async () => {
    const dataDir = makeDataDir();
    const receiver = await startReceiver((_request, res) => {
      setTimeout(() => res.writeHead(200).end('late but fine'), 600);
    });
    const app = await startTestAppliance({ dataDir, config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
    try {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['all'] });
      const created = await app.http
        .post('/v1/webhooks/endpoints')
        .set('Authorization', key.auth)
        .send({ url: receiver.url, events: ['*'] });
      expect(created.status).toBe(200);
      expect((await app.http.post('/v1/students').set('Authorization', key.auth).send({ full_name: 'Ada Lovelace' })).status).toBe(200);
      await waitFor(() => receiver.requests.length === 1, 'the request to be in flight');
      await app.stop();
    } catch (error) {
      await app.stop();
      throw error;
    }

    const db = await connectDatabase(databaseLocation(app.ctx.config));
    try {
      const rows = await db.models.WebhookDelivery.findAll();
      expect(rows.map((row) => [row.status, row.attempt_count, row.response_body])).toEqual([['succeeded', 1, 'late but fine']]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await db.close();
      await removeDataDir(dataDir);
    }
  });
});
