// @tier integration
// @databases sqlite, postgres
// Webhook debugging (docs/webhooks.md#debugging-a-webhook-integration) on a real
// appliance with receivers on 127.0.0.1: the signature checker's diagnosis of real captured
// deliveries for each failure kind, replay-since, send-an-example, and copy as curl run through a
// real shell and curl. Signatures are made and verified here from docs/api.md#signatures' words,
// not with server/webhooks/signing.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../events/catalog.js';
import { exampleEventData } from '../../events/examples.js';
import { newId } from '../../ids.js';
import type { DeliveryStatus } from '../../models/webhook.js';
import { checkSignature } from '../../webhooks/signature-check.js';
import { parseHeaders } from '../../webhooks/signature-headers.js';
import { makeSchool, startTestAppliance, type TestAppliance, type TestSchool } from '../../../tests/helpers/appliance.js';
import { institutionApi, portalRequests, signedInMember, type SignedIn } from '../../../tests/helpers/portal.js';
import { waitFor } from '../../../tests/helpers/wait.js';

const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------------
// A receiver on 127.0.0.1 keeping each request's raw headers and body.

interface Received {
  headers: http.IncomingHttpHeaders;
  /** The headers as a log prints them: `Name: value` lines, in the order received. */
  headerLines: string;
  body: string;
}

interface Receiver {
  url: string;
  requests: Received[];
  close: () => Promise<void>;
}

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function startReceiver(status = 200): Promise<Receiver> {
  const receiver = { requests: [] as Received[] } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const lines: string[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      receiver.requests.push({ headers: req.headers, headerLines: lines.join('\n'), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  receivers.push(receiver);
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// Signatures from the words of docs/api.md#signatures.

const serviceHmac = (key: Buffer, t: number, body: string) => createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex');
const standardHmac = (key: Buffer, id: string, t: number, body: string) => createHmac('sha256', key).update(`${id}.${t}.${body}`, 'utf8').digest('base64');
const whole = (secret: string) => Buffer.from(secret, 'utf8');
const decoded = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');

function verifies(headers: http.IncomingHttpHeaders, body: string, secret: string): boolean {
  const [tPart, ...entries] = String(headers['x-service-signature']).split(',');
  const t = Number(tPart!.slice(2));
  const expected = Buffer.from(serviceHmac(whole(secret), t, body), 'hex');
  const service = entries.some((entry) => timingSafeEqual(Buffer.from(entry.slice(3), 'hex'), expected));
  const standardExpected = Buffer.from(standardHmac(decoded(secret), String(headers['webhook-id']), Number(headers['webhook-timestamp']), body), 'base64');
  const standard = String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => timingSafeEqual(Buffer.from(entry.slice(3), 'base64'), standardExpected));
  return service && standard && Number(headers['webhook-timestamp']) === t;
}

/** Header lines of a delivery of `body` signed at `t` (seconds) with `secret`, made here. */
function signedHeaderLines(secret: string, eventId: string, deliveryId: string, body: string, t: number): string {
  return [
    'Content-Type: application/json',
    `X-Service-Event-Id: ${eventId}`,
    `X-Service-Delivery-Id: ${deliveryId}`,
    `X-Service-Signature: t=${t},v1=${serviceHmac(whole(secret), t, body)}`,
    `webhook-id: ${eventId}`,
    `webhook-timestamp: ${t}`,
    `webhook-signature: v1,${standardHmac(decoded(secret), eventId, t, body)}`,
  ].join('\n');
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const otherSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

// ---------------------------------------------------------------------------------------------

let app: TestAppliance;
let school: TestSchool;
let admin: SignedIn;
const portal = portalRequests(
  () => admin,
  () => institutionApi(school.inst.id),
);

const v1 = {
  post: (path: string, body: unknown = {}) =>
    app.http
      .post(`/v1${path}`)
      .set('Authorization', school.key.auth)
      .send(body as object),
  get: (path: string, query: Record<string, string | number> = {}) => app.http.get(`/v1${path}`).query(query).set('Authorization', school.key.auth),
  patch: (path: string, body: unknown) =>
    app.http
      .patch(`/v1${path}`)
      .set('Authorization', school.key.auth)
      .send(body as object),
};

const endpointsMade: string[] = [];
afterEach(async () => {
  // Endpoints left active would keep sending into the next test.
  await app.ctx.db.models.WebhookEndpoint.update({ status: 'disabled', disabled_reason: 'test_over' }, { where: { id: endpointsMade.splice(0) } });
});

beforeAll(async () => {
  app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
  school = await makeSchool(app);
  admin = await signedInMember(app, school.inst.id, 'admin');
});
afterAll(async () => {
  await app?.close();
});

async function makeEndpoint(url: string, events: string[] = ['student.*']): Promise<{ id: string; secret: string }> {
  const res = await v1.post('/webhooks/endpoints', { url, events, description: 'debugging' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  endpointsMade.push(res.body.data.id);
  return { id: res.body.data.id, secret: res.body.data.secret };
}

/** A real delivery: a student made through the API, caught by the receiver as sent. */
async function captureDelivery(receiver: Receiver): Promise<Received & { deliveryId: string; eventId: string }> {
  const before = receiver.requests.length;
  const res = await v1.post('/students', { full_name: `Zoë O'Brien ${randomBytes(3).toString('hex')}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await waitFor(() => receiver.requests.length > before, 'the delivery');
  const request = receiver.requests[before]!;
  return { ...request, deliveryId: String(request.headers['x-service-delivery-id']), eventId: String(request.headers['x-service-event-id']) };
}

async function check(endpointId: string, input: { body: string; headers: string; secret?: string }) {
  const res = await portal.post(`/webhook-debugging/endpoints/${endpointId}/signature-check`, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as {
    verdict: string;
    delivery_id: string | null;
    findings: Array<{ code: string; level: string; message: string; expected?: string; received?: string }>;
  };
}

const codes = (result: { findings: Array<{ code: string }> }) => result.findings.map((finding) => finding.code);

describe('signature checker on real deliveries', () => {
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };
  let captured: Awaited<ReturnType<typeof captureDelivery>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    endpoint = await makeEndpoint(receiver.url);
    captured = await captureDelivery(receiver);
    expect(verifies(captured.headers, captured.body, endpoint.secret)).toBe(true);
    // The disabling afterEach is for the other suites: this one's endpoint serves every case below.
    endpointsMade.splice(endpointsMade.indexOf(endpoint.id), 1);
  });

  it('valid: as received, with the right secret, without one, and with headers pasted as JSON', async () => {
    const withSecret = await check(endpoint.id, { body: captured.body, headers: captured.headerLines, secret: endpoint.secret });
    expect(withSecret.verdict).toBe('valid');
    expect(codes(withSecret)).toEqual(['valid']);
    expect(withSecret.delivery_id).toBe(captured.deliveryId);
    expect((await check(endpoint.id, { body: captured.body, headers: captured.headerLines })).verdict).toBe('valid');
    expect((await check(endpoint.id, { body: captured.body, headers: JSON.stringify(captured.headers), secret: endpoint.secret })).verdict).toBe('valid');
    // Never a secret in the answer.
    const text = JSON.stringify(withSecret);
    expect(text).not.toContain(endpoint.secret);
    expect(text).not.toContain(endpoint.secret.slice(6, 30));
  });

  it('stale timestamp: ten minutes old, by how much and against the 5-minute tolerance', async () => {
    const t = nowSeconds() - 600;
    const result = await check(endpoint.id, {
      body: captured.body,
      headers: signedHeaderLines(endpoint.secret, captured.eventId, captured.deliveryId, captured.body, t),
      secret: endpoint.secret,
    });
    expect(result.verdict).toBe('stale_timestamp');
    const stale = result.findings.find((finding) => finding.code === 'stale_timestamp')!;
    expect(stale.message).toMatch(/10 min( \d+ s)? old, past the 5-minute tolerance/);
    expect(stale.received).toBe(String(t));
    // The signature itself is right, and said so.
    expect(codes(result)).toEqual(['stale_timestamp', 'valid']);
  });

  it('timestamp in the future beyond the tolerance', async () => {
    const t = nowSeconds() + 900;
    const result = await check(endpoint.id, {
      body: captured.body,
      headers: signedHeaderLines(endpoint.secret, captured.eventId, captured.deliveryId, captured.body, t),
    });
    expect(result.verdict).toBe('future_timestamp');
    // Seconds pass between signing and checking, and the gap to a future time shrinks with them.
    expect(result.findings.find((finding) => finding.code === 'future_timestamp')!.message).toMatch(
      /(15 min|14 min \d+ s) in the future, past the 5-minute tolerance/,
    );
  });

  it('re-serialized body: pretty-printed, or keys reordered, is told apart from a changed body by the stored delivery', async () => {
    const pretty = JSON.stringify(JSON.parse(captured.body), null, 2);
    const result = await check(endpoint.id, { body: pretty, headers: captured.headerLines, secret: endpoint.secret });
    expect(result.verdict).toBe('body_reserialized');
    expect(result.delivery_id).toBe(captured.deliveryId);
    const finding = result.findings.find((f) => f.code === 'body_reserialized')!;
    expect(finding.message).toMatch(/whitespace or escaping/);
    expect(finding.expected).toBe(captured.body);
    expect(finding.received).toBe(pretty.slice(0, 300) + (pretty.length > 300 ? '…' : ''));

    const parsed = JSON.parse(captured.body);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()));
    const reorderedResult = await check(endpoint.id, { body: reordered, headers: captured.headerLines });
    expect(reorderedResult.verdict, JSON.stringify(reorderedResult, null, 1)).toBe('body_reserialized');
    expect(reorderedResult.findings[0]!.message).toMatch(/key order/);

    // A serializer's own escaping (PHP's json_encode escapes "/", Python's non-ASCII): same JSON, other bytes.
    const escaped = captured.body.replace('"type"', '"\\u0074ype"');
    expect(escaped).not.toBe(captured.body);
    expect((await check(endpoint.id, { body: escaped, headers: captured.headerLines })).verdict).toBe('body_reserialized');

    const changed = captured.body.replace(/"student_id":"stu_/, '"student_id":"stu_X');
    expect((await check(endpoint.id, { body: changed, headers: captured.headerLines })).verdict).toBe('body_changed');
  });

  it('trailing newline added to the body', async () => {
    const result = await check(endpoint.id, { body: `${captured.body}\n`, headers: captured.headerLines, secret: endpoint.secret });
    expect(result.verdict).toBe('trailing_newline');
    expect(result.findings[0]!.message).toContain('"\\n"');
  });

  it('wrong secret: the pasted one signs nothing here, the current one does; told by fingerprints, never the secret', async () => {
    const wrong = otherSecret();
    const result = await check(endpoint.id, { body: captured.body, headers: captured.headerLines, secret: wrong });
    expect(result.verdict).toBe('wrong_secret');
    const finding = result.findings.find((f) => f.code === 'wrong_secret')!;
    expect(finding.message).toMatch(/current secret does/);
    expect(finding.expected).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(finding.received).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(finding.expected).not.toBe(finding.received);
    expect(JSON.stringify(result)).not.toContain(endpoint.secret);
  });

  it('the whole whsec_ string as the Standard Webhooks key, and the decoded bytes for X-Service-Signature', async () => {
    const t = nowSeconds();
    const headers = (service: Buffer, standard: Buffer) =>
      [
        `X-Service-Delivery-Id: ${captured.deliveryId}`,
        `X-Service-Signature: t=${t},v1=${serviceHmac(service, t, captured.body)}`,
        `webhook-id: ${captured.eventId}`,
        `webhook-timestamp: ${t}`,
        `webhook-signature: v1,${standardHmac(standard, captured.eventId, t, captured.body)}`,
      ].join('\n');
    const asKey = await check(endpoint.id, { body: captured.body, headers: headers(whole(endpoint.secret), whole(endpoint.secret)), secret: endpoint.secret });
    expect(asKey.verdict).toBe('whsec_string_as_key');
    const finding = asKey.findings.find((f) => f.code === 'whsec_string_as_key')!;
    // The right value is shown, since the caller gave the secret it is made with.
    expect(finding.expected).toBe(`v1,${standardHmac(decoded(endpoint.secret), captured.eventId, t, captured.body)}`);
    // Without the pasted secret, no signature made with the endpoint's secret is shown.
    const unsigned = await check(endpoint.id, { body: captured.body, headers: headers(whole(endpoint.secret), whole(endpoint.secret)) });
    expect(unsigned.verdict).toBe('whsec_string_as_key');
    expect(unsigned.findings.find((f) => f.code === 'whsec_string_as_key')!.expected).toBeUndefined();

    const decodedKey = await check(endpoint.id, {
      body: captured.body,
      headers: headers(decoded(endpoint.secret), decoded(endpoint.secret)),
      secret: endpoint.secret,
    });
    expect(decodedKey.verdict).toBe('decoded_key_as_service_key');
  });

  it('missing and malformed headers', async () => {
    const none = await check(endpoint.id, { body: captured.body, headers: 'Content-Type: application/json\nUser-Agent: CampusBridge-Webhooks/1' });
    expect(none.verdict).toBe('no_signature_header');
    const lines = captured.headerLines.split('\n');
    const without = (name: string) => lines.filter((line) => !line.toLowerCase().startsWith(`${name}:`));
    const cut = [...without('x-service-signature'), `X-Service-Signature: ${String(captured.headers['x-service-signature']).slice(0, 40)}`].join('\n');
    const malformed = await check(endpoint.id, { body: captured.body, headers: cut });
    expect(malformed.verdict).toBe('malformed_header');
    expect(malformed.findings.find((f) => f.code === 'malformed_header')!.message).toMatch(/64 hexadecimal digits/);
    const noTime = await check(endpoint.id, { body: captured.body, headers: [...without('x-service-signature'), 'X-Service-Signature: v1=abc'].join('\n') });
    expect(noTime.findings[0]!.message).toMatch(/no `t=/);
    const noStandardId = await check(endpoint.id, { body: captured.body, headers: without('webhook-id').join('\n') });
    expect(noStandardId.verdict).toBe('malformed_header');
    expect(noStandardId.findings.find((f) => f.code === 'malformed_header')!.message).toMatch(/missing: webhook-id/);
  });

  it('a bad request is a 422, another institution’s endpoint a 404, a developer may, an API key cannot', async () => {
    const badBody = await portal.post(`/webhook-debugging/endpoints/${endpoint.id}/signature-check`, { body: 1, headers: '' });
    expect(badBody.status).toBe(422);
    expect(badBody.body.error).toBe('validation_error');
    const other = await makeSchool(app);
    const otherAdmin = await signedInMember(app, other.inst.id, 'admin');
    const res = await otherAdmin.agent
      .post(`${institutionApi(other.inst.id)}/webhook-debugging/endpoints/${endpoint.id}/signature-check`)
      .set('X-CSRF-Token', otherAdmin.csrf)
      .send({ body: captured.body, headers: captured.headerLines });
    expect(res.status).toBe(404);
    // A developer may use it, as they may replay.
    const developer = await signedInMember(app, school.inst.id, 'developer');
    const asDeveloper = await developer.agent
      .post(`${institutionApi(school.inst.id)}/webhook-debugging/endpoints/${endpoint.id}/signature-check`)
      .set('X-CSRF-Token', developer.csrf)
      .send({ body: captured.body, headers: captured.headerLines });
    expect(asDeveloper.status).toBe(200);
    expect(asDeveloper.body.data.verdict).toBe('valid');
    // Without the CSRF header, refused.
    const noCsrf = await developer.agent
      .post(`${institutionApi(school.inst.id)}/webhook-debugging/endpoints/${endpoint.id}/signature-check`)
      .send({ body: captured.body, headers: captured.headerLines });
    expect(noCsrf.status).toBe(403);
    const byKey = await app.http
      .post(`/v1/webhook-debugging/endpoints/${endpoint.id}/signature-check`)
      .set('Authorization', school.key.auth)
      .send({ body: '', headers: '' });
    expect(byKey.status).toBe(404);
  });

  it('rotation: the previous secret during its grace period, then after it', async () => {
    const rotated = await v1.post(`/webhooks/endpoints/${endpoint.id}/rotate-secret`, { grace_hours: 24 });
    expect(rotated.status).toBe(200);
    const current = rotated.body.data.secret as string;
    const during = await captureDelivery(receiver);
    expect(String(during.headers['x-service-signature']).split(',v1=')).toHaveLength(3);
    const inGrace = await check(endpoint.id, { body: during.body, headers: during.headerLines, secret: endpoint.secret });
    expect(inGrace.verdict).toBe('previous_secret');
    expect(inGrace.findings.find((f) => f.code === 'previous_secret')!.message).toMatch(/until \d{4}-\d\d-\d\dT.*Check every v1 signature/);
    expect((await check(endpoint.id, { body: during.body, headers: during.headerLines, secret: current })).verdict).toBe('valid');

    // The grace period ends.
    const ended = new Date(Date.now() - 60_000);
    await app.ctx.db.models.WebhookEndpoint.update({ previous_secret_expires_at: ended }, { where: { id: endpoint.id } });
    const after = await captureDelivery(receiver);
    expect(String(after.headers['x-service-signature']).split(',v1=')).toHaveLength(2);
    const expired = await check(endpoint.id, { body: after.body, headers: after.headerLines, secret: endpoint.secret });
    expect(expired.verdict).toBe('previous_secret_expired');
    expect(expired.findings.find((f) => f.code === 'previous_secret_expired')!.message).toContain(ended.toISOString());
    // A delivery signed during the grace period, checked with the old secret after it: told it stopped.
    expect((await check(endpoint.id, { body: during.body, headers: during.headerLines, secret: endpoint.secret })).verdict).toBe('previous_secret_expired');
    expect((await check(endpoint.id, { body: after.body, headers: after.headerLines, secret: current })).verdict).toBe('valid');
  });
});

describe('signature checker without a stored delivery (pure)', () => {
  const secret = otherSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'exam.graded', data: { score: 87 } });
  const t = 1_789_372_800;
  const headers = {
    'x-service-signature': `t=${t},v1=${serviceHmac(whole(secret), t, body)}`,
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(t),
    'webhook-signature': `v1,${standardHmac(decoded(secret), 'evt_1', t, body)}`,
  };
  const base = { headers, secrets: { current: secret, previous: null }, now: new Date(t * 1000 + 30_000) };

  it('recognises a pretty-printed body and a trailing newline by themselves', () => {
    expect(checkSignature({ ...base, body }).verdict).toBe('valid');
    expect(checkSignature({ ...base, body: JSON.stringify(JSON.parse(body), null, 4) }).verdict).toBe('body_reserialized');
    expect(checkSignature({ ...base, body: `${body}\r\n` }).verdict).toBe('trailing_newline');
    expect(checkSignature({ ...base, body: `${body}x` }).verdict).toBe('unknown_signer');
  });

  it('reads headers as lines, as curl -H arguments, as a JSON object and as a JSON list', () => {
    const expected = { 'x-service-signature': 't=1,v1=ab', 'webhook-id': 'evt_1' };
    expect(parseHeaders('X-Service-Signature: t=1,v1=ab\r\nwebhook-id:   evt_1\n\nnot a header')).toEqual(expected);
    expect(parseHeaders("curl -sS -X POST 'http://x' \\\n  -H 'X-Service-Signature: t=1,v1=ab' \\\n  -H \"webhook-id: evt_1\" \\")).toEqual(expected);
    expect(parseHeaders('{"X-Service-Signature": "t=1,v1=ab", "Webhook-Id": "evt_1"}')).toEqual(expected);
    expect(parseHeaders('[{"name": "x-service-signature", "value": "t=1,v1=ab"}, {"name": "webhook-id", "value": "evt_1"}]')).toEqual(expected);
  });

  it('a signature of another endpoint is an unknown signer; a secret that is not ours is flagged', () => {
    const result = checkSignature({ ...base, body, secrets: { current: otherSecret(), previous: null }, secret: 'whsec_short' });
    expect(result.verdict).toBe('unknown_signer');
    expect(result.findings.map((finding) => finding.code)).toContain('secret_format');
  });
});

// ---------------------------------------------------------------------------------------------

async function insertDelivery(endpointId: string, status: DeliveryStatus, createdAt: Date, payload?: Record<string, unknown>): Promise<string> {
  const id = newId('dlv');
  const eventId = typeof payload?.id === 'string' ? payload.id : newId('evt');
  await app.ctx.db.models.WebhookDelivery.create({
    id,
    institution_id: school.inst.id,
    endpoint_id: endpointId,
    event_id: eventId,
    event_type: 'student.created',
    payload: payload ?? {
      id: eventId,
      type: 'student.created',
      created_at: createdAt.toISOString(),
      institution_id: school.inst.id,
      data: { student_id: newId('stu') },
    },
    status,
    attempt_count: status === 'pending' ? 0 : 6,
    next_attempt_at: status === 'failed' ? new Date(Date.now() + DAY) : null,
    last_attempt_at: createdAt,
    response_status: status === 'succeeded' ? 200 : 500,
    response_time_ms: 20,
    response_body: null,
    replay_of: null,
  });
  await app.ctx.db.sequelize.query('UPDATE webhook_deliveries SET created_at = ? WHERE id = ?', { replacements: [createdAt, id] });
  return id;
}

describe('replay everything that failed since …', () => {
  it('replays only the dead deliveries of this endpoint created since the time, each once, signed afresh', async () => {
    const receiver = await startReceiver();
    const endpoint = await makeEndpoint(receiver.url);
    const other = await makeEndpoint(receiver.url);
    await v1.patch(`/webhooks/endpoints/${other.id}`, { status: 'paused' });
    const now = Date.now();
    const tooOld = await insertDelivery(endpoint.id, 'dead', new Date(now - 3 * DAY));
    const dayAgo = await insertDelivery(endpoint.id, 'dead', new Date(now - DAY));
    const hourAgo = await insertDelivery(endpoint.id, 'dead', new Date(now - HOUR));
    await insertDelivery(endpoint.id, 'succeeded', new Date(now - HOUR));
    const retrying = await insertDelivery(endpoint.id, 'failed', new Date(now - HOUR));
    await insertDelivery(other.id, 'dead', new Date(now - HOUR));
    // One replayed already by the single replay.
    const singly = await insertDelivery(endpoint.id, 'dead', new Date(now - 2 * HOUR));
    expect((await v1.post(`/webhooks/deliveries/${singly}/replay`)).status).toBe(200);
    await waitFor(() => receiver.requests.length >= 1, 'the single replay');

    const since = new Date(now - 2 * DAY).toISOString();
    const dry = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since, dry_run: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toEqual({ replayed: 2, already_replayed: 1, beyond_limit: 0, limit: 1000, dry_run: true, delivery_ids: [] });

    const res = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ replayed: 2, already_replayed: 1, beyond_limit: 0, dry_run: false });
    const replays = await Promise.all((res.body.data.delivery_ids as string[]).map(async (id) => (await v1.get(`/webhooks/deliveries/${id}`)).body.data));
    expect(replays.map((replay) => replay.replay_of)).toEqual([dayAgo, hourAgo]);
    await waitFor(() => receiver.requests.length >= 3, 'the two replays');
    const originals = await app.ctx.db.models.WebhookDelivery.findAll({ where: { id: [dayAgo, hourAgo] } });
    const sentBodies = receiver.requests.slice(1).map((request) => request.body);
    expect(sentBodies.sort()).toEqual(originals.map((row) => JSON.stringify(row.payload)).sort());
    for (const request of receiver.requests.slice(1)) {
      expect(verifies(request.headers, request.body, endpoint.secret)).toBe(true);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - nowSeconds())).toBeLessThan(30);
    }

    // Again: nothing more, each original was replayed once.
    const again = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since });
    expect(again.body.data).toMatchObject({ replayed: 0, already_replayed: 3, delivery_ids: [] });
    expect(await app.ctx.db.models.WebhookDelivery.count({ where: { replay_of: [dayAgo, hourAgo, tooOld] } })).toBe(2);

    // `failed` ones (retry scheduled) on request.
    const failed = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since, status: 'failed' });
    expect(failed.body.data).toMatchObject({ replayed: 1 });
    expect((await v1.get(`/webhooks/deliveries/${failed.body.data.delivery_ids[0]}`)).body.data.replay_of).toBe(retrying);

    // Since a later time: the older ones are left alone.
    const later = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since: new Date(now).toISOString(), dry_run: true });
    expect(later.body.data).toMatchObject({ replayed: 0, already_replayed: 0 });
  });

  it('409 endpoint_inactive for a paused or disabled endpoint; 422 for a bad since; 404 for an unknown endpoint', async () => {
    const endpoint = await makeEndpoint('http://127.0.0.1:9/hooks');
    await insertDelivery(endpoint.id, 'dead', new Date(Date.now() - HOUR));
    await v1.patch(`/webhooks/endpoints/${endpoint.id}`, { status: 'paused' });
    const since = new Date(Date.now() - DAY).toISOString();
    const paused = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since });
    expect(paused.status).toBe(409);
    expect(paused.body.error).toBe('endpoint_inactive');
    await v1.patch(`/webhooks/endpoints/${endpoint.id}`, { status: 'disabled' });
    expect((await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since })).body.error).toBe('endpoint_inactive');
    expect(await app.ctx.db.models.WebhookDelivery.count({ where: { endpoint_id: endpoint.id } })).toBe(1);
    const bad = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since: 'yesterday' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('validation_error');
    expect((await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, {})).status).toBe(422);
    expect((await v1.post('/webhooks/endpoints/whe_nope/replay', { since })).status).toBe(404);
  });

  it('at most 1000 per call, oldest first; the next call takes the rest', async () => {
    const receiver = await startReceiver();
    const endpoint = await makeEndpoint(receiver.url);
    await v1.patch(`/webhooks/endpoints/${endpoint.id}`, { status: 'paused' });
    const start = Date.now() - DAY;
    const rows = Array.from({ length: 1003 }, (_, index) => {
      const eventId = newId('evt');
      const createdAt = new Date(start + index * 1000);
      return {
        id: newId('dlv'),
        institution_id: school.inst.id,
        endpoint_id: endpoint.id,
        event_id: eventId,
        event_type: 'student.created',
        payload: { id: eventId, type: 'student.created', created_at: createdAt.toISOString(), institution_id: school.inst.id, data: { index } },
        status: 'dead' as const,
        attempt_count: 6,
        next_attempt_at: null,
        last_attempt_at: createdAt,
        response_status: 500,
        response_time_ms: 5,
        response_body: null,
        replay_of: null,
        created_at: createdAt,
      };
    });
    await app.ctx.db.models.WebhookDelivery.bulkCreate(rows);
    // Paused while the replays are made, so the engine leaves them pending and this test stays quick.
    await app.ctx.db.models.WebhookEndpoint.update({ status: 'active' }, { where: { id: endpoint.id } });
    const since = new Date(start - 1000).toISOString();
    const first = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since });
    await app.ctx.db.models.WebhookEndpoint.update({ status: 'paused' }, { where: { id: endpoint.id } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ replayed: 1000, already_replayed: 0, beyond_limit: 3, limit: 1000 });
    expect(first.body.data.delivery_ids).toHaveLength(1000);
    const replayOf = async (ids: string[]) =>
      (await app.ctx.db.models.WebhookDelivery.findAll({ attributes: ['replay_of'], where: { id: ids } })).map((row) => row.replay_of);
    const firstOriginals = new Set(await replayOf(first.body.data.delivery_ids));
    expect(firstOriginals).toEqual(new Set(rows.slice(0, 1000).map((row) => row.id)));

    await app.ctx.db.models.WebhookEndpoint.update({ status: 'active' }, { where: { id: endpoint.id } });
    const second = await v1.post(`/webhooks/endpoints/${endpoint.id}/replay`, { since });
    await app.ctx.db.models.WebhookEndpoint.update({ status: 'paused' }, { where: { id: endpoint.id } });
    expect(second.body.data).toMatchObject({ replayed: 3, already_replayed: 1000, beyond_limit: 0 });
    expect(new Set(await replayOf(second.body.data.delivery_ids))).toEqual(new Set(rows.slice(1000).map((row) => row.id)));
  });
});

describe('send an example', () => {
  it('sends a realistic, signed sample event marked as an example, recorded as a delivery', async () => {
    const receiver = await startReceiver(202);
    // Subscribed to students only: an example of any type is sent all the same.
    const endpoint = await makeEndpoint(receiver.url, ['student.*']);
    const res = await v1.post(`/webhooks/endpoints/${endpoint.id}/example`, { type: 'exam.graded' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const deliveryId = res.body.data.id as string;
    expect(res.body.data).toMatchObject({ endpoint_id: endpoint.id, event_type: 'exam.graded', replay_of: null });
    await waitFor(() => receiver.requests.length >= 1, 'the example');
    const [request] = receiver.requests;
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: 'exam.graded', institution_id: school.inst.id, environment: 'live', example: true });
    expect(body.data).toEqual({
      submission_id: expect.stringMatching(/^sub_[A-Za-z0-9]{24}$/),
      exam_id: expect.stringMatching(/^exm_/),
      student_id: expect.stringMatching(/^stu_/),
      score: 87,
      max_score: 100,
      status: 'graded',
    });
    expect(request!.headers['x-service-delivery-id']).toBe(deliveryId);
    expect(verifies(request!.headers, request!.body, endpoint.secret)).toBe(true);
    const recorded = await waitFor(async () => {
      const detail = (await v1.get(`/webhooks/deliveries/${deliveryId}`)).body.data;
      return detail.status === 'succeeded' && detail;
    }, 'the example recorded');
    expect(recorded).toMatchObject({ response_status: 202, attempt_count: 1 });
    expect(recorded.payload.example).toBe(true);
    // Not an event: the feed does not have it.
    const events = (await v1.get('/events', { type: 'exam.graded' })).body.data.items;
    expect(events.map((event: { id: string }) => event.id)).not.toContain(body.id);
  });

  it('every catalog type has an example with ids of the right kinds; unknown types 422, inactive endpoints 409', async () => {
    for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
      const data = exampleEventData(type, new Date());
      expect(Object.keys(data).length, type).toBeGreaterThan(0);
      for (const [field, value] of Object.entries(data)) {
        if (field.endsWith('_id') && field !== 'user_id') expect(value, `${type}.${field}`).toMatch(/^[a-z]+_[A-Za-z0-9]{24}$/);
      }
    }
    const endpoint = await makeEndpoint('http://127.0.0.1:9/hooks');
    const unknown = await v1.post(`/webhooks/endpoints/${endpoint.id}/example`, { type: 'student.exploded' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('validation_error');
    await v1.patch(`/webhooks/endpoints/${endpoint.id}`, { status: 'paused' });
    const paused = await v1.post(`/webhooks/endpoints/${endpoint.id}/example`, { type: 'student.created' });
    expect(paused.status).toBe(409);
    expect(paused.body.error).toBe('endpoint_inactive');
  });
});

describe('copy as curl', () => {
  it('the command, run by sh and by bash, sends the same bytes with valid fresh signatures', async () => {
    const receiver = await startReceiver();
    const endpoint = await makeEndpoint(receiver.url);
    await v1.patch(`/webhooks/endpoints/${endpoint.id}`, { status: 'paused' });
    // A payload with every character a shell could take for its own.
    const eventId = newId('evt');
    const payload = {
      id: eventId,
      type: 'student.created',
      created_at: new Date().toISOString(),
      institution_id: school.inst.id,
      data: { note: `it's "quoted" $HOME \`id\` !! \\ %s\nZoë 😀 '' \\'`, student_id: newId('stu') },
    };
    const deliveryId = await insertDelivery(endpoint.id, 'dead', new Date(), payload);
    const sent = JSON.stringify(payload);

    for (const shell of ['sh', 'bash']) {
      const res = await portal.post(`/webhook-debugging/deliveries/${deliveryId}/curl`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { command, timestamp } = res.body.data as { command: string; timestamp: number };
      expect(command).toMatch(/^curl -sS -X POST \\\n {2}'http:\/\/127\.0\.0\.1:\d+\/hooks' \\\n/);
      expect(command).toContain('--data-binary');
      expect(Math.abs(timestamp - nowSeconds())).toBeLessThan(5);
      const before = receiver.requests.length;
      // Asynchronously: the receiver answers from this very process.
      const run = await promisify(execFile)(shell, ['-c', command], { encoding: 'utf8', timeout: 10_000 });
      expect(run.stdout).toBe('ok');
      const request = receiver.requests[before]!;
      expect(Buffer.from(request.body, 'utf8').equals(Buffer.from(sent, 'utf8'))).toBe(true);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-service-event-id']).toBe(eventId);
      expect(request.headers['x-service-delivery-id']).toBe(deliveryId);
      expect(request.headers['user-agent']).toBe('CampusBridge-Webhooks/1');
      expect(Number(request.headers['webhook-timestamp'])).toBe(timestamp);
      expect(verifies(request.headers, request.body, endpoint.secret)).toBe(true);
      // …and the checker agrees with what curl delivered.
      expect((await check(endpoint.id, { body: request.body, headers: request.headerLines, secret: endpoint.secret })).verdict).toBe('valid');
    }
    expect((await portal.post('/webhook-debugging/deliveries/dlv_nope/curl')).status).toBe(404);
  });
});
