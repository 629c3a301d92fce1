// @tier integration
// @databases sqlite: the typed client's calls, retries and iterators; the queries under them are proven on both databases by the route suites
// The typed client (server/client/): its generated types match the document the routes produce,
// its calls work against a real appliance, it retries 429/503 as Retry-After says (against small
// servers on 127.0.0.1 that answer exactly that), its iterators visit every item and every event
// once, and its webhook verifier accepts real deliveries under both schemes and refuses forged ones.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CampusBridgeError,
  createClient,
  eventDataProblems,
  EVENT_TYPES,
  retryAfterMs,
  verifyWebhook,
  WebhookVerificationError,
  type CampusBridgeEvent,
  type components,
  type EventType,
} from '../server/client/index.js';
import { seedDemo } from '../server/commands/demo/seed.js';
import { exampleEventData } from '../server/events/examples.js';
import { EVENT_TYPES as CATALOG, type EventType as CatalogEventType } from '../server/events/catalog.js';
import { buildOpenApiDocument, institutionOperations } from '../server/http/openapi.js';
import { LoginThrottle } from '../server/portal/login-throttle.js';
import { apiRoutes, portalRoutes } from '../server/routes/index.js';
import { makeKey, makeSchool, startTestAppliance, type TestAppliance } from './helpers/appliance.js';
import { waitFor } from './helpers/wait.js';

// @ts-expect-error: plain ESM build script without type declarations
const generator = (await import('../build/scripts/client-generate.mjs')) as {
  GENERATED_TYPES_PATH: string;
  GENERATED_PORTAL_TYPES_PATH: string;
  generateClientTypes: (document: unknown, source?: string) => Promise<string>;
};

// Compile-time checks (npm run typecheck): the union and the server's catalog name the same types,
// fields with a default are optional in requests, and `type` narrows `data`.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameTypes: Same<EventType, CatalogEventType> = true;
const defaultsOptional: components['schemas']['StudentCreate'] = { full_name: 'Only the required field' };
const narrowed = (event: CampusBridgeEvent) => (event.type === 'exam.graded' ? event.data.score : undefined);
void [sameTypes, defaultsOptional, narrowed];

describe('generated types', () => {
  it('are what /v1/openapi.json generates today, byte for byte', async () => {
    const generated = await generator.generateClientTypes(buildOpenApiDocument(apiRoutes, 'api'));
    const checkedIn = fs.readFileSync(path.join(import.meta.dirname, '..', generator.GENERATED_TYPES_PATH), 'utf8');
    expect(generated === checkedIn, `${generator.GENERATED_TYPES_PATH} differs from the API's document: run npm run client:generate`).toBe(true);
    // A field with a default is optional in a request body, and required fields stay required.
    expect(checkedIn).toMatch(/StudentCreate: \{[^}]*\blicense_days\?: number;/);
    expect(checkedIn).toMatch(/StudentCreate: \{[^}]*\bfull_name: string;/);
  }, 120_000); // openapi-typescript over the whole document takes seconds, more on a busy machine

  it("are, for the portal's UI, what /portal/api/openapi.json generates today, byte for byte", async () => {
    const document = buildOpenApiDocument([...portalRoutes(new LoginThrottle()), ...institutionOperations(apiRoutes)], 'portal');
    const generated = await generator.generateClientTypes(document, '/portal/api/openapi.json');
    const checkedIn = fs.readFileSync(path.join(import.meta.dirname, '..', generator.GENERATED_PORTAL_TYPES_PATH), 'utf8');
    expect(generated === checkedIn, `${generator.GENERATED_PORTAL_TYPES_PATH} differs from the portal's document: run npm run client:generate`).toBe(true);
    expect(checkedIn).toContain('"/institutions/{institution}/students": {');
  }, 120_000);
});

describe('event union', () => {
  it('names every type of the server catalog, and no other', () => {
    expect([...EVENT_TYPES].sort()).toEqual(Object.keys(CATALOG).sort());
  });

  it("agrees with the server's example payload of every type (server/events/examples.ts)", () => {
    const problems = (Object.keys(CATALOG) as CatalogEventType[]).flatMap((type) => eventDataProblems(type, exampleEventData(type, new Date())));
    expect(problems).toEqual([]);
  });

  it('describes the payloads the appliance really emits (the demo school, events of most types)', async () => {
    const app = await startTestAppliance();
    try {
      const demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
      const cb = createClient({ baseUrl: `${app.origin}/v1`, apiKey: demo.key });
      const seen = new Set<string>();
      const problems: string[] = [];
      for await (const event of cb.events()) {
        seen.add(event.type);
        problems.push(...eventDataProblems(event.type, event.data));
      }
      expect(problems).toEqual([]);
      expect(seen.size).toBeGreaterThanOrEqual(15);
      // The checker itself refuses what the union does not allow.
      expect(eventDataProblems('student.created', { student_id: 'stu_1' })).toEqual(['student.created: data.license_id is missing']);
      expect(
        eventDataProblems('exam.graded', { submission_id: 's', exam_id: 'e', student_id: 'x', score: '9', max_score: null, status: 'graded' }),
      ).toHaveLength(1);
      expect(eventDataProblems('group.deleted', { group_id: 'g', extra: 1 })).toEqual(["group.deleted: data.extra is not in the client's catalog"]);
    } finally {
      await app.close();
    }
  }, 180_000); // the demo school takes a while on PostgreSQL
});

describe('client against an appliance', () => {
  let app: TestAppliance;
  let receiver: Receiver;
  beforeAll(async () => {
    app = await startTestAppliance({
      config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 } },
    });
    receiver = await startServer((_request, res) => {
      res.writeHead(200).end('ok');
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  const clientFor = (key: string, options: { maxRetryDelayMs?: number } = {}) => createClient({ baseUrl: `${app.origin}/v1`, apiKey: key, ...options });

  it('makes typed calls: create with defaults left out, read back, and the error envelope on a refusal', async () => {
    const { key } = await makeSchool(app);
    const cb = clientFor(key.key);
    const created = await cb.POST('/students', { body: { full_name: 'Ada Lovelace', student_id: 'S-1' } });
    expect(created.response.status).toBe(200);
    const student = created.data!.data;
    expect(student).toMatchObject({ full_name: 'Ada Lovelace', student_id: 'S-1', status: 'active' });

    const read = await cb.GET('/students/{id}', { params: { path: { id: student.id } } });
    expect(read.data?.data.id).toBe(student.id);
    const licenses = await cb.GET('/licenses', { params: { query: { user_id: student.id } } });
    // license_days was left out: the default 365 days was granted.
    const license = licenses.data!.data.items[0]!;
    const days = (Date.parse(license.expires_at!) - Date.parse(license.starts_at)) / 86_400_000;
    expect(Math.round(days)).toBe(365);

    const refused = await cb.POST('/students', { body: { full_name: '' } });
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({ success: false, error: 'validation_error' });
  });

  it('paginate visits every one of 250 students exactly once', async () => {
    const { key } = await makeSchool(app);
    const cb = clientFor(key.key);
    const made: string[] = [];
    for (const [from, count] of [
      [0, 200],
      [200, 50],
    ] as const) {
      const students = Array.from({ length: count }, (_, i) => ({ full_name: `Student ${from + i}` }));
      const { data, response } = await cb.POST('/students/bulk', { body: { students } });
      expect(response.status, JSON.stringify(data)).toBe(200);
      made.push(...data!.data.results.map((result) => ('id' in result ? result.id : result.error)));
    }
    const visited: string[] = [];
    for await (const student of cb.paginate('/students', { query: { limit: 40 } })) visited.push(student.id);
    expect(visited).toHaveLength(250);
    expect(new Set(visited).size).toBe(250);
    expect(new Set(visited)).toEqual(new Set(made));
    // A filter is passed through on every page: an empty list ends at once.
    const none: unknown[] = [];
    for await (const student of cb.paginate('/students', { query: { student_id: 'no-such-id', limit: 10 } })) none.push(student);
    expect(none).toEqual([]);
  });

  it('events yields every event once, oldest first, resumes from since, and follows new ones', async () => {
    const { inst, key } = await makeSchool(app);
    const cb = clientFor(key.key);
    const students = Array.from({ length: 130 }, (_, i) => ({ full_name: `Learner ${i}` }));
    const { data } = await cb.POST('/students/bulk', { body: { students } });
    const made = data!.data.results.map((result) => ('id' in result ? result.id : result.error));

    const events: CampusBridgeEvent[] = [];
    for await (const event of cb.events({ limit: 25 })) events.push(event);
    expect(events).toHaveLength(await inst.tenant.events.count());
    expect(events).toHaveLength(130);
    expect(new Set(events.map((event) => event.id)).size).toBe(130);
    const times = events.map((event) => Date.parse(event.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(events.map((event) => (event.type === 'student.created' ? event.data.student_id : event.type))).toEqual(made);

    const rest: string[] = [];
    for await (const event of cb.events({ since: events[99]!.created_at, limit: 7 })) rest.push(event.id);
    expect(rest).toEqual(events.slice(100).map((event) => event.id));

    // follow: keeps polling once caught up until aborted.
    const abort = new AbortController();
    const followed: CampusBridgeEvent[] = [];
    const following = (async () => {
      for await (const event of cb.events({ since: events.at(-1)!.created_at, follow: true, pollIntervalMs: 100, signal: abort.signal })) {
        followed.push(event);
        if (followed.length === 2) abort.abort();
      }
    })().then(
      () => 'ended',
      (error: unknown) => error,
    ); // handled at once: the abort may come before the second POST returns
    await cb.POST('/students', { body: { full_name: 'Late One' } });
    await cb.POST('/students', { body: { full_name: 'Late Two' } });
    expect(await following).toMatchObject({ name: 'AbortError' });
    expect(followed.map((event) => event.type)).toEqual(['student.created', 'student.created']);

    // An iterator's failure carries the API's code.
    const error = await (async () => {
      for await (const _ of cb.events({ since: 'yesterday' })) return undefined;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CampusBridgeError);
    expect(error).toMatchObject({ status: 422, code: 'validation_error' });
  });

  it('returns a real 429 at once, without waiting, when its Retry-After is beyond the cap', async () => {
    const { inst } = await makeSchool(app);
    const slow = await makeKey(app, inst, { rateLimit: 10 });
    const retries: number[] = [];
    const cb = createClient({ baseUrl: `${app.origin}/v1`, apiKey: slow.key, maxRetryDelayMs: 500, onRetry: ({ delayMs }) => retries.push(delayMs) });
    for (let i = 0; i < 10; i++) expect((await cb.GET('/me')).response.status).toBe(200);
    const limited = await cb.GET('/me');
    expect(limited.response.status).toBe(429);
    expect(Number(limited.response.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(limited.error).toMatchObject({ error: 'rate_limited' });
    // Every wait goes through onRetry: none was announced, so none was waited.
    expect(retries).toEqual([]);
  });

  it('retries a POST whose answer was lost: the appliance replays the first answer, one student is made', async () => {
    const { key } = await makeSchool(app);
    // A proxy on 127.0.0.1 that passes the first POST to the appliance but answers it 503, as a
    // gateway would when the appliance's answer is lost, then passes everything through.
    let lost = 0;
    const proxy = await startServer(async (request, res) => {
      const upstream = await fetch(`${app.origin}${request.url}`, {
        method: request.method,
        headers: Object.fromEntries(Object.entries(flatten(request.headers)).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))),
        body: request.method === 'GET' ? undefined : request.body,
      });
      if (request.method === 'POST' && lost++ === 0) {
        res.writeHead(503, { 'Retry-After': '0', 'Content-Type': 'application/json' }).end('{"success":false,"error":"bad_gateway","message":"lost"}');
        return;
      }
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(await upstream.text());
    });
    try {
      const cb = createClient({ baseUrl: `${proxy.url}/v1`, apiKey: key.key });
      const { data, response } = await cb.POST('/students', { body: { full_name: 'Only Once', student_id: 'ONCE-1' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('Idempotent-Replayed')).toBe('true');
      expect(proxy.requests).toHaveLength(2);
      expect(proxy.requests[1]!.headers['idempotency-key']).toBe(proxy.requests[0]!.headers['idempotency-key']);
      const listed = await clientFor(key.key).GET('/students', { params: { query: { student_id: 'ONCE-1' } } });
      expect(listed.data!.data.total).toBe(1);
      expect(listed.data!.data.items[0]!.id).toBe(data!.data.id);
    } finally {
      await proxy.close();
    }
  });

  it('verifies real deliveries under both schemes, during a rotation too, and refuses forged ones', async () => {
    const { inst, key } = await makeSchool(app);
    const cb = clientFor(key.key);
    receiver.requests.length = 0;
    const made = await cb.POST('/webhooks/endpoints', { body: { url: `${receiver.url}/hook`, events: ['student.*'] } });
    const { id: endpointId, secret } = made.data!.data;
    const student = (await cb.POST('/students', { body: { full_name: 'Signed For' } })).data!.data;
    await waitFor(() => receiver.requests.length >= 1, 'the delivery', 5_000);
    const { headers, body } = receiver.requests[0]!;

    for (const scheme of ['standard', 'service'] as const) {
      const event = await verifyWebhook({ body, headers, secret, scheme });
      expect(event.type).toBe('student.created');
      if (event.type !== 'student.created') throw new Error('narrowing');
      expect(event.data.student_id).toBe(student.id);
      expect(event.institution_id).toBe(inst.id);
      // Headers as fetch gives them, and the body as bytes.
      await expect(verifyWebhook({ body: new TextEncoder().encode(body), headers: new Headers(flatten(headers)), secret, scheme })).resolves.toEqual(event);

      const refusal = async (options: Partial<Parameters<typeof verifyWebhook>[0]>) =>
        verifyWebhook({ body, headers, secret, scheme, ...options }).then(
          () => 'accepted',
          (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : String(error)),
        );
      expect(await refusal({ body: body.replace('Signed', 'Forged').replace(student.id, `${student.id}x`) })).toBe('signature_mismatch');
      expect(await refusal({ secret: 'whsec_' + Buffer.alloc(24, 7).toString('base64') })).toBe('signature_mismatch');
      const signedAt = Number(headers['webhook-timestamp']) * 1000;
      expect(await refusal({ now: signedAt + 301_000 })).toBe('stale_timestamp');
      expect(await refusal({ now: signedAt - 301_000 })).toBe('stale_timestamp');
      expect(await refusal({ now: signedAt + 30_000, toleranceSeconds: 60 })).toBe('accepted');
      expect(await refusal({ headers: { 'content-type': 'application/json' } })).toBe('missing_signature');
    }
    expect(await verifyWebhook({ body, headers, secret }).then((event) => event.id)).toBe(headers['webhook-id']);

    // After a rotation a delivery carries a signature per secret: either one verifies it.
    const rotated = await cb.POST('/webhooks/endpoints/{id}/rotate-secret', { params: { path: { id: endpointId } }, body: { grace_hours: 1 } });
    const newSecret = rotated.data!.data.secret;
    await cb.POST('/students', { body: { full_name: 'After Rotation' } });
    await waitFor(() => receiver.requests.length >= 2, 'the second delivery', 5_000);
    const second = receiver.requests[1]!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const scheme of ['standard', 'service'] as const) {
      for (const which of [secret, newSecret])
        await expect(verifyWebhook({ body: second.body, headers: second.headers, secret: which, scheme })).resolves.toMatchObject({ type: 'student.created' });
    }
  });
});

describe('verifyWebhook on the known answer of docs/webhooks.md', () => {
  const body =
    '{"id":"evt_KnownAnswer000000000000000","type":"exam.graded","created_at":"2026-09-14T08:00:00.000Z","institution_id":"inst_KnownAnswer00000000000000","data":{"score":87}}';
  const headers = {
    'X-Service-Signature': 't=1789372800,v1=ba2d8eed524161c70bcc2e9538bac7ef298c4834096d8c6d98d7778864a3520b',
    'webhook-id': 'evt_KnownAnswer000000000000000',
    'webhook-timestamp': '1789372800',
    'webhook-signature': 'v1,WE15jdbLhihmnD1vytHB5osEENhRsjXJ9xl567pfC5U=',
  };
  const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX';
  const now = 1789372800 * 1000;

  it('accepts it under both schemes (header names in any case), one matching secret among several', async () => {
    for (const scheme of ['standard', 'service'] as const) {
      const event = await verifyWebhook({ body, headers, secret: ['whsec_' + Buffer.alloc(24).toString('base64'), secret], scheme, now });
      expect(event).toMatchObject({ type: 'exam.graded', data: { score: 87 } });
    }
  });

  it('refuses a malformed signature header with its reason', async () => {
    const reason = (extra: Record<string, string>, scheme: 'standard' | 'service') =>
      verifyWebhook({ body, headers: { ...headers, ...extra }, secret, scheme, now }).then(
        () => 'accepted',
        (error: WebhookVerificationError) => error.reason,
      );
    expect(await reason({ 'X-Service-Signature': 'v1=abc' }, 'service')).toBe('malformed_signature');
    expect(await reason({ 'webhook-timestamp': 'soon' }, 'standard')).toBe('malformed_signature');
    expect(await reason({ 'webhook-signature': 'v2,abc' }, 'standard')).toBe('malformed_signature');
  });
});

describe('retries (servers on 127.0.0.1 answering 429 and 503)', () => {
  const servers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** A server answering `answers` in turn, then 200 with a `/me`-like body. */
  async function scripted(answers: Array<{ status: number; headers?: Record<string, string> }>) {
    const server = await startServer((_request, res) => {
      const next = answers.shift() ?? { status: 200 };
      res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.status === 200 ? { success: true, data: { ok: true } } : { success: false, error: 'rate_limited', message: 'wait' }));
    });
    servers.push(server);
    return server;
  }

  it('waits Retry-After seconds on 503, then returns the success', async () => {
    const server = await scripted([
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 503, headers: { 'Retry-After': '1' } },
    ]);
    const cb = createClient({ baseUrl: `${server.url}/v1`, apiKey: 'cb_live_x' });
    const started = Date.now();
    const { data, response } = await cb.GET('/me');
    const waited = Date.now() - started;
    expect(response.status).toBe(200);
    expect(data).toEqual({ success: true, data: { ok: true } });
    expect(server.requests).toHaveLength(3);
    expect(waited).toBeGreaterThanOrEqual(1900);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer cb_live_x')).toBe(true);
  });

  it('reads Retry-After as an HTTP date on 429', async () => {
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000);
    const server = await scripted([{ status: 429, headers: { 'Retry-After': at.toUTCString() } }]);
    const cb = createClient({ baseUrl: `${server.url}/v1`, apiKey: 'k' });
    const { response } = await cb.GET('/me');
    expect(response.status).toBe(200);
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime() - 50);
    expect(server.requests).toHaveLength(2);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:30 GMT'))).toBe(30_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('gives a POST an Idempotency-Key, and sends the same key and body on each attempt', async () => {
    const server = await scripted([{ status: 429, headers: { 'Retry-After': '0' } }]);
    const cb = createClient({ baseUrl: `${server.url}/v1`, apiKey: 'k' });
    const { response } = await cb.POST('/students', { body: { full_name: 'Twice Sent' } });
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(JSON.parse(second!.body)).toEqual({ full_name: 'Twice Sent' });
    expect(second!.body).toBe(first!.body);
  });

  it('keeps a caller’s own Idempotency-Key', async () => {
    const server = await scripted([{ status: 503, headers: { 'Retry-After': '0' } }]);
    const cb = createClient({ baseUrl: `${server.url}/v1`, apiKey: 'k' });
    await cb.POST('/students', { body: { full_name: 'Mine' }, headers: { 'Idempotency-Key': 'import-2026-11-26-row-7' } });
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual(['import-2026-11-26-row-7', 'import-2026-11-26-row-7']);
  });

  it('never retries a PATCH, nor a POST without a key when automatic keys are off', async () => {
    const patchServer = await scripted([{ status: 503, headers: { 'Retry-After': '0' } }]);
    const cb = createClient({ baseUrl: `${patchServer.url}/v1`, apiKey: 'k' });
    const patched = await cb.PATCH('/students/{id}', { params: { path: { id: 'stu_1' } }, body: { full_name: 'Renamed' } });
    expect(patched.response.status).toBe(503);
    expect(patchServer.requests).toHaveLength(1);

    const postServer = await scripted([{ status: 429, headers: { 'Retry-After': '0' } }]);
    const bare = createClient({ baseUrl: `${postServer.url}/v1`, apiKey: 'k', idempotencyKeys: false });
    expect((await bare.POST('/students', { body: { full_name: 'Once' } })).response.status).toBe(429);
    expect(postServer.requests).toHaveLength(1);
    expect(postServer.requests[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('gives up after maxRetries, and backs off 1 s when Retry-After is missing', async () => {
    const server = await scripted(Array.from({ length: 10 }, () => ({ status: 503, headers: { 'Retry-After': '0' } })));
    const cb = createClient({ baseUrl: `${server.url}/v1`, apiKey: 'k', maxRetries: 2 });
    expect((await cb.GET('/me')).response.status).toBe(503);
    expect(server.requests).toHaveLength(3);

    const bare = await scripted([{ status: 503 }]);
    const delays: number[] = [];
    const started = Date.now();
    const { response } = await createClient({ baseUrl: `${bare.url}/v1`, apiKey: 'k', onRetry: ({ delayMs }) => delays.push(delayMs) }).GET('/me');
    expect(response.status).toBe(200);
    expect(delays).toEqual([1000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});

// ---------------------------------------------------------------------------------------------

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  requests: Received[];
  close: () => Promise<void>;
}

async function startServer(respond: (request: Received, res: http.ServerResponse) => void | Promise<void>): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      void Promise.resolve(respond(request, res)).catch((error: unknown) => res.writeHead(599).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function flatten(headers: http.IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
}
