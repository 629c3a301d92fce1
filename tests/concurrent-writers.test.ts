// @tier integration
// @databases sqlite, postgres
// Many writers on one institution at once (docs/performance.md#many-writers-at-once): what a
// district sees when a roster sync, an LMS and the portal are busy together. On SQLite a write
// outside the write queue once stalled every request for the 15 s busy timeout; on PostgreSQL every
// write of an institution was a serialization conflict, retried until the retries ran out (a 500),
// and ten students of one name collided on their login e-mail (a 409).
// docs/scale-out.md#transactions says what guarantees each invariant now.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSchool, startTestAppliance, type TestAppliance, type TestSchool } from './helpers/appliance.js';

/** Webhooks to a receiver on this computer, and the sweep (with the LTI score job) every second. */
const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const WRITERS = 16;
const REQUESTS_PER_WRITER = 12;
/**
 * Only a stall reaches it: a stall waits out SQLite's busy timeout (15 s), so a request behind one
 * takes longer than that. Sixteen writers take turns, so a write also waits for the others: 10.7 s
 * once with both cores busy from other work, hence just under 15 s.
 */
const STALL_MS = 14_000;

interface Outcome {
  what: string;
  status: number;
  ms: number;
  body: string;
}

describe('many writers on one institution at once', () => {
  let app: TestAppliance;
  let school: TestSchool;
  let receiver: http.Server;
  const received: string[] = [];

  const call = async (what: string, method: string, path: string, body?: unknown): Promise<Outcome> => {
    const started = performance.now();
    const res = await fetch(`${app.origin}/v1${path}`, {
      method,
      headers: { Authorization: school.key.auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { what, status: res.status, ms: performance.now() - started, body: text };
  };
  const data = (outcome: Outcome) => (JSON.parse(outcome.body) as { data: Record<string, unknown> }).data;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        received.push(raw);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
    school = await makeSchool(app);
    const endpoint = await call('endpoint', 'POST', '/webhooks/endpoints', {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      events: ['*'],
    });
    expect(endpoint.status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  it('sixteen writers mixing every kind of write: no 5xx, no stall, every change an event in commit order', async () => {
    const students: string[] = [];
    for (let i = 0; i < 5; i += 1) students.push(data(await call('seed', 'POST', '/students', { full_name: `Seed Student ${i}` })).id as string);
    const faculty = data(await call('seed', 'POST', '/faculty', { full_name: 'Seed Teacher' })).id as string;
    const group = data(await call('seed', 'POST', '/groups', { name: 'Seed Group', faculty_id: faculty })).id as string;

    // A poller walks the event stream while the writers run, as an LMS does, by the newest created_at seen.
    let writing = true;
    const polled: string[] = [];
    let since: string | undefined;
    const poller = (async () => {
      for (let round = 0; round < 10_000 && writing; round += 1) {
        const page = await call('poll', 'GET', `/events?limit=100${since ? `&since=${encodeURIComponent(since)}` : ''}`);
        expect(page.status).toBe(200);
        const items = (JSON.parse(page.body) as { data: { items: Array<{ id: string; created_at: string }> } }).data.items;
        for (const item of items) polled.push(item.id);
        if (items.length > 0) since = items.at(-1)!.created_at;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const outcomes: Outcome[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let n = 0; n < REQUESTS_PER_WRITER; n += 1) {
          const kind = (writer + n) % 6;
          const name = `W${writer} N${n}`;
          if (kind === 0 || kind === 1)
            outcomes.push(await call('PATCH student', 'PATCH', `/students/${students[(writer + n) % 5]}`, { full_name: `Student ${name}` }));
          else if (kind === 2) outcomes.push(await call('POST student', 'POST', '/students', { full_name: `New ${name}` }));
          else if (kind === 3) {
            const batch = Array.from({ length: 20 }, (_, i) => ({ full_name: `Bulk ${name} ${i}` }));
            outcomes.push(await call('POST students/bulk', 'POST', '/students/bulk', { students: batch }));
          } else if (kind === 4) outcomes.push(await call('POST faculty', 'POST', '/faculty', { full_name: `Teacher ${name}` }));
          else outcomes.push(await call('PATCH group', 'PATCH', `/groups/${group}`, { description: `Changed by ${name}` }));
          if (n % 4 === 0) outcomes.push(await call('GET students', 'GET', '/students?limit=20'));
        }
      }),
    );
    writing = false;
    await poller;

    const failed = outcomes.filter((outcome) => outcome.status >= 300);
    expect(failed.map(({ what, status, body }) => `${what} ${status} ${body.slice(0, 200)}`)).toEqual([]);
    const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
    expect(slowest).toBeLessThan(STALL_MS);

    // The poller catches up at rest; then the whole stream is read once more from the start. The
    // poller must have seen each event exactly once, in the same order: an event committed after a
    // later one's created_at would have been skipped.
    const readFrom = async (start: string | undefined, into: string[]) => {
      let cursor = start;
      for (let round = 0; round < 1_000; round += 1) {
        const page = await call('poll', 'GET', `/events?limit=100${cursor ? `&since=${encodeURIComponent(cursor)}` : ''}`);
        const items = (JSON.parse(page.body) as { data: { items: Array<{ id: string; created_at: string }> } }).data.items;
        if (items.length === 0) return;
        for (const item of items) into.push(item.id);
        cursor = items.at(-1)!.created_at;
      }
    };
    await readFrom(since, polled);
    const all: string[] = [];
    await readFrom(undefined, all);
    expect(new Set(polled).size).toBe(polled.length);
    expect(polled).toEqual(all);
    // 16 × 12 writes, a bulk of 20 making 20 events: at least one event per write.
    expect(all.length).toBeGreaterThan(WRITERS * REQUESTS_PER_WRITER);
    // 23 s in a CI run on two busy cores; the bound is for a hang, the stall bound is STALL_MS per request.
  }, 180_000);

  it('ten students of one name added at once get ten distinct login e-mails, none refused', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST student', 'POST', '/students', { full_name: 'Ada Same' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    const emails = answers.map((answer) => data(answer).login_email as string);
    expect(new Set(emails).size).toBe(10);
  });
});
