// The soak's HTTP client: every request has a timeout, is timed from send to the last byte of the
// answer and recorded under its class (read or write). Not tests/bench/appliance.mjs's `api()`:
// that one shares four sockets per origin, so sixty actors would queue in this process and the
// queue would show as server latency. Requests go to 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import http from 'node:http';

/** Each request class and whether its bar is the read one (p99 < 50 ms) or the write one (p99 < 250 ms). */
export const CLASSES = {
  'LMS events poll': 'read',
  'LMS lists': 'read',
  'learner launch': 'write', // the LMS mints a launch token, the app exchanges it for a session
  'learner reads': 'read',
  'learner start': 'write',
  'learner download': 'read',
  'learner upload': 'write',
  'learner proctoring': 'write',
  'learner AI usage': 'write',
  'learner submit': 'write',
  'grading reads': 'read',
  grading: 'write',
  'portal reads': 'read',
  // One request that fetches the whole roster from the SIS and applies it in one transaction:
  // timed like the others, but not held to the 2 s and p99 bars (report.mjs says so).
  'writes: oneroster sync': 'long write',
};

const DEFAULT_TIMEOUT_MS = 30_000;
/** Bodies of failed requests kept per class, for the report. */
const KEPT_FAILURES = 5;

// Enough sockets that no actor ever waits for one here; idle ones close after 4 s.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });

export function closeAgent() {
  agent.destroy();
}

/** The API origins in turn (two api processes on PostgreSQL, one server on SQLite). */
export function roundRobin(origins) {
  for (const origin of origins) {
    if (new URL(origin).hostname !== '127.0.0.1') throw new Error(`the soak talks to 127.0.0.1 only, not ${origin}`);
  }
  let next = 0;
  return () => origins[next++ % origins.length];
}

/** Per class: latencies (ms), statuses, failures (5xx, timeouts, connection errors) with their bodies. */
export class Recorder {
  /** `startedAt`: the start of the day (performance.now()); each request is placed on it by its send time. */
  constructor(startedAt = performance.now()) {
    this.classes = new Map();
    this.enabled = true;
    this.startedAt = startedAt;
  }

  entry(name) {
    if (!CLASSES[name]) throw new Error(`unknown request class ${name}`);
    let entry = this.classes.get(name);
    if (!entry) {
      entry = { name, kind: CLASSES[name], ms: [], at: [], statuses: {}, errors: 0, failures: [] };
      this.classes.set(name, entry);
    }
    return entry;
  }

  record(name, what, res) {
    if (!this.enabled) return;
    const entry = this.entry(name);
    entry.ms.push(res.ms);
    entry.at.push((performance.now() - res.ms - this.startedAt) / 1000);
    const status = res.status ?? 'error';
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    if (res.status === null) entry.errors += 1;
    const failed = res.status === null || res.status >= 500 || res.status === 429;
    if (failed && entry.failures.length < KEPT_FAILURES) {
      entry.failures.push({
        what,
        status: res.status,
        ms: Math.round(res.ms),
        body: (res.error ?? res.text ?? '').slice(0, 600),
        atSecond: Math.round(entry.at.at(-1)),
      });
    }
  }
}

/**
 * One request. `body`: an object (sent as JSON), or `{ raw: Buffer, contentType }`. Never throws:
 * a timeout or connection error answers `status: null` with `error`. `headers` are added as given.
 */
export function request(origin, method, pathname, { body, headers = {}, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const target = new URL(pathname, origin);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing ${target.href}: the soak talks to 127.0.0.1 only`);
  let payload;
  const sent = { ...headers };
  if (body?.raw) {
    payload = body.raw;
    sent['content-type'] = body.contentType;
  } else if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body));
    sent['content-type'] = 'application/json';
  }
  if (payload) sent['content-length'] = payload.length;
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, ms: performance.now() - started });
    };
    const req = http.request(target, { method, agent, headers: sent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const buffer = Buffer.concat(chunks);
        const isJson = /json/.test(res.headers['content-type'] ?? '');
        const text = isJson ? buffer.toString('utf8') : `<${buffer.length} bytes of ${res.headers['content-type'] ?? 'unknown type'}>`;
        let parsed = null;
        if (isJson) {
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON after all: the text is kept
          }
        }
        finish({ status: res.statusCode, headers: res.headers, body: parsed, text, bytes: buffer.length, error: null });
      });
      res.on('error', (error) => finish({ status: null, body: null, text: null, error: `response: ${error.message}` }));
    });
    // Past the timeout the request is abandoned (and its socket closed): bounded, and counted.
    const timer = setTimeout(() => {
      finish({ status: null, body: null, text: null, error: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => finish({ status: null, body: null, text: null, error: `request: ${error.message}` }));
    req.end(payload);
  });
}

/** `request`, recorded under `name`; `what` (method and path pattern) goes with a failure. */
export async function timed(recorder, name, origin, method, pathname, options = {}) {
  const res = await request(origin, method, pathname, options);
  recorder?.record(name, `${method} ${pathname.replace(/[?].*$/, '').replace(/\/[a-z]+_[A-Za-z0-9]{10,}/g, '/{id}')}`, res);
  return res;
}

export const bearer = (token) => ({ authorization: `Bearer ${token}` });

/** One file as `multipart/form-data`, the way a browser's FormData sends it (field `file`). */
export function multipart(filename, bytes, field = 'file') {
  const boundary = `----campusbridge-soak-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { raw: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * A portal session as a browser holds it: the `cb_portal` cookie from POST /portal/api/login and
 * the CSRF token it answers, sent back in `X-CSRF-Token` on writes (server/portal/csrf.ts).
 */
export async function portalSignIn(origin, email, password) {
  const res = await request(origin, 'POST', '/portal/api/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`portal sign-in: ${res.status} ${res.text ?? res.error}`);
  const cookie = [res.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('cb_portal='));
  if (!cookie) throw new Error('portal sign-in: no cb_portal cookie');
  return { cookie: cookie.split(';')[0], csrf: res.body.data.csrf_token };
}

export const portalHeaders = (session, write = false) => ({ cookie: session.cookie, ...(write ? { 'x-csrf-token': session.csrf } : {}) });

/** The data of a 200 answer, or an error naming the step, the status and the body. */
export function ok(res, step) {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${step}: ${res.status ?? res.error} ${(res.text ?? '').slice(0, 400)}`);
  return res.body.data;
}
