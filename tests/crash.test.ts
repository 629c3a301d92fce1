// @tier system
// @databases sqlite: SIGKILL mid-write, then SQLite's integrity check and write-ahead log
// Crash safety with the real bundle (`node dist/server/main.js`): the server is killed (SIGKILL)
// in the middle of bulk provisioning, of a webhook burst and of a streaming upload, restarted on
// the same DATA_DIR, and nothing is half-written: every student has its license, its one
// `student.created` event and that event's delivery; every event reaches the receiver; no
// temporary upload is left behind; the SQLite file passes `PRAGMA integrity_check`.
// Everything listens on 127.0.0.1.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callJson, cliBundle, integrityCheck, killBundles, listenOnLoopback, startBundle, type BundleServer, type JsonAnswer } from './helpers/bundle.js';
import { closedPort } from './helpers/net.js';
import { waitFor } from './helpers/wait.js';

const WEBHOOK_TIMEOUT_MS = 2000;
const SERVER_ENV = {
  OUTBOUND_PRIVATE_HOSTS: '1',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
  WEBHOOK_SWEEP_SECONDS: '1',
  WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
};
const BULK_SIZE = 200;
const BULK_CALLS = 4;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  killBundles();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-crash-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An approved institution and an all-scopes key, made by the CLI bundle before the server starts. */
function school(dataDir: string, name: string): { institutionId: string; key: string } {
  const setup = cliBundle(dataDir, 'setup', '--institution', name, '--admin-email', 'ops@crash.example', '--admin-password', 'correct horse battery').json;
  const { key } = cliBundle(dataDir, 'key', 'create', '--institution', setup.institution.id, '--name', 'crash', '--scopes', 'all', '--rate-limit', '6000').json;
  return { institutionId: setup.institution.id, key };
}

const databaseFile = (dataDir: string) => path.join(dataDir, 'campusbridge.sqlite');

/**
 * `PRAGMA integrity_check` is `ok`. `crashed`: the server was just killed, so a copy of the
 * database with its -wal and -shm is checked, leaving the crash state for the restart to recover;
 * `readonly`: the server is running.
 */
async function expectIntact(dataDir: string, options: { readonly?: boolean; crashed?: boolean } = {}): Promise<void> {
  if (!options.crashed) {
    expect(await integrityCheck(databaseFile(dataDir), { readonly: options.readonly })).toEqual(['ok']);
    return;
  }
  const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-crash-copy-'));
  try {
    for (const suffix of ['', '-wal', '-shm']) {
      const from = `${databaseFile(dataDir)}${suffix}`;
      if (fs.existsSync(from)) fs.copyFileSync(from, path.join(copyDir, `campusbridge.sqlite${suffix}`));
    }
    expect(await integrityCheck(path.join(copyDir, 'campusbridge.sqlite'))).toEqual(['ok']);
  } finally {
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
}

async function v1(server: BundleServer, key: string, method: string, pathname: string, body?: unknown): Promise<JsonAnswer> {
  return callJson(server.origin, method, `/v1${pathname}`, { auth: key, body });
}

async function v1Ok(server: BundleServer, key: string, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await v1(server, key, method, pathname, body);
  expect(res.status, `${method} ${pathname}: ${res.text}`).toBe(200);
  return res.body.data;
}

/** Every item of a paged list (`page`/`totalPages`), 200 at a time. */
async function allPages(server: BundleServer, key: string, pathname: string, query: Record<string, string> = {}): Promise<any[]> {
  const items: any[] = [];
  for (let page = 1; page <= 1000; page++) {
    const qs = new URLSearchParams({ ...query, limit: '200', page: String(page) });
    const data = await v1Ok(server, key, 'GET', `${pathname}?${qs}`);
    items.push(...data.items);
    if (page >= data.totalPages) return items;
  }
  throw new Error(`${pathname}: more than 1000 pages`);
}

/** The whole event stream of one type pattern, oldest first, followed through `since`. */
async function allEvents(server: BundleServer, key: string, type: string): Promise<Array<{ id: string; type: string; created_at: string; data: any }>> {
  const events: any[] = [];
  let since: string | undefined;
  for (let round = 0; round < 1000; round++) {
    const qs = new URLSearchParams({ type, limit: '200', ...(since ? { since } : {}) });
    const data = await v1Ok(server, key, 'GET', `/events?${qs}`);
    events.push(...data.items);
    if (!data.has_more || data.items.length === 0) return events;
    since = data.items[data.items.length - 1].created_at;
  }
  throw new Error('the event stream did not end');
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('crash: SIGKILL during bulk provisioning', () => {
  it('restarts with every bulk call whole or absent; students, licenses, events and deliveries agree', { timeout: 90_000 }, async () => {
    const dataDir = freshDataDir();
    const { key } = school(dataDir, 'Bulk Crash School');

    // A paused endpoint subscribed to students: every student.created event must come with exactly one queued delivery.
    let server = await startBundle(dataDir, SERVER_ENV);
    const endpoint = await v1Ok(server, key, 'POST', '/webhooks/endpoints', { url: `http://127.0.0.1:${await closedPort()}/hooks`, events: ['student.*'] });
    await v1Ok(server, key, 'PATCH', `/webhooks/endpoints/${endpoint.id}`, { status: 'paused' });

    /** Ids answered 200 before a kill, by `student_id` batch prefix. */
    const answered = new Map<string, string[]>();
    const batchesSent: string[] = [];

    const fireBulk = (round: number) =>
      Array.from({ length: BULK_CALLS }, (_, call) => {
        const batch = `R${round}B${call}`;
        batchesSent.push(batch);
        const students = Array.from({ length: BULK_SIZE }, (_, i) => ({
          full_name: `Crash Student ${batch} ${i}`,
          student_id: `${batch}-${i}`,
          ...(i % 10 === 0 ? { personal_email: `family.${batch.toLowerCase()}.${i}@example.org` } : {}),
        }));
        return v1(server, key, 'POST', '/students/bulk', { students }).then(
          (res) => {
            if (res.status !== 200) return { batch, status: res.status };
            expect(res.body.data).toMatchObject({ created: BULK_SIZE, failed: 0 });
            answered.set(
              batch,
              res.body.data.results.map((result: { id: string }) => result.id),
            );
            return { batch, status: 200 };
          },
          (error: unknown) => ({ batch, status: 0, error: String(error) }),
        );
      });

    async function verify(label: string): Promise<{ students: number; batchesWhole: number }> {
      const students = await allPages(server, key, '/students');
      const byId = new Map<string, any>(students.map((student) => [student.id, student]));
      expect(byId.size, `${label}: duplicate student ids in the list`).toBe(students.length);

      // Each bulk call is one transaction: all of its students or none.
      const perBatch = new Map<string, number>();
      for (const student of students) {
        const batch = String(student.student_id).split('-')[0]!;
        perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
      }
      for (const [batch, count] of perBatch) expect([batch, count], `${label}: bulk call ${batch} is half-written`).toEqual([batch, BULK_SIZE]);
      for (const [batch, ids] of answered) {
        expect(perBatch.get(batch), `${label}: bulk call ${batch} was answered 200 but its students are missing`).toBe(BULK_SIZE);
        for (const id of ids) expect(byId.has(id), `${label}: ${id} (answered in ${batch}) is missing`).toBe(true);
      }

      // Exactly one license per student, and no license without its student.
      const licenses = await allPages(server, key, '/licenses', { type: 'student' });
      const licensesOf = new Map<string, any[]>();
      for (const license of licenses) licensesOf.set(license.user_id, [...(licensesOf.get(license.user_id) ?? []), license]);
      for (const student of students) expect(licensesOf.get(student.id)?.length ?? 0, `${label}: licenses of ${student.id}`).toBe(1);
      for (const userId of licensesOf.keys()) expect(byId.has(userId), `${label}: license of a missing student ${userId}`).toBe(true);

      // Exactly one student.created per student, naming a student that exists and its license.
      const events = await allEvents(server, key, 'student.created');
      const eventsOf = new Map<string, any[]>();
      for (const event of events) {
        expect(byId.has(event.data.student_id), `${label}: ${event.id} names a missing student ${event.data.student_id}`).toBe(true);
        eventsOf.set(event.data.student_id, [...(eventsOf.get(event.data.student_id) ?? []), event]);
      }
      for (const student of students) {
        const mine = eventsOf.get(student.id) ?? [];
        expect(mine.length, `${label}: student.created events of ${student.id}`).toBe(1);
        expect(mine[0].data.license_id).toBe(licensesOf.get(student.id)![0].id);
      }

      // Exactly one queued delivery per event, none for an event that does not exist.
      const deliveries = await allPages(server, key, '/webhooks/deliveries', { endpoint_id: endpoint.id });
      const eventIds = new Set(events.map((event) => event.id));
      const deliveredEvents = new Map<string, number>();
      for (const delivery of deliveries) {
        expect(eventIds.has(delivery.event_id), `${label}: delivery ${delivery.id} of a missing event ${delivery.event_id}`).toBe(true);
        deliveredEvents.set(delivery.event_id, (deliveredEvents.get(delivery.event_id) ?? 0) + 1);
      }
      for (const event of events) expect(deliveredEvents.get(event.id) ?? 0, `${label}: deliveries of ${event.id}`).toBe(1);

      // And students read back one by one (a random 100: the lists above covered all), each with its one active license.
      const sample = [...byId.keys()].sort(() => Math.random() - 0.5).slice(0, 100);
      await eachLimited(sample, 8, async (id) => {
        const student = await v1(server, key, 'GET', `/students/${id}`);
        expect(student.status, `${label}: GET /students/${id}`).toBe(200);
        const licensesOfId = await v1Ok(server, key, 'GET', `/licenses?user_id=${id}`);
        expect(
          licensesOfId.items.map((license: { status: string }) => license.status),
          `${label}: licenses of ${id}`,
        ).toEqual(['active']);
      });
      return { students: students.length, batchesWhole: perBatch.size };
    }

    // Round 1: killed as soon as the first bulk call is answered (the others are queued or running).
    const fired = Date.now();
    const round1 = fireBulk(1);
    await Promise.race([...round1.map((p) => p.then((r) => (r.status === 200 ? r : new Promise(() => {})))), sleep(30_000)]);
    const firstAnswerMs = Date.now() - fired;
    await server.kill();
    const outcomes1 = await Promise.all(round1);
    expect(answered.size, `no bulk call was answered before the kill: ${JSON.stringify(outcomes1)}`).toBeGreaterThanOrEqual(1);
    await expectIntact(dataDir, { crashed: true });

    server = await startBundle(dataDir, SERVER_ENV);
    const after1 = await verify('after kill 1');
    await expectIntact(dataDir, { readonly: true });

    // Round 2: killed after a random delay of one to three bulk calls' time: usually after some answers, another mid-way.
    const round2 = fireBulk(2);
    const delay = Math.round(firstAnswerMs * (1 + Math.random() * 2));
    await sleep(delay);
    await server.kill();
    const outcomes2 = await Promise.all(round2);
    await expectIntact(dataDir, { crashed: true });

    server = await startBundle(dataDir, SERVER_ENV);
    const after2 = await verify('after kill 2');
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    await expectIntact(dataDir);

    console.log(
      `crash/bulk: ${batchesSent.length} bulk calls of ${BULK_SIZE}; kill 1 after the first answer (${firstAnswerMs} ms, ${outcomes1.filter((o) => o.status === 200).length} answered), ` +
        `kill 2 after ${delay} ms (${outcomes2.filter((o) => o.status === 200).length} answered); ` +
        `${after1.students} then ${after2.students} students in ${after2.batchesWhole} whole calls; 0 half-written; integrity ok`,
    );
  });
});

describe('crash: SIGKILL during a webhook burst', () => {
  it('delivers every event at least once after the restart, and every delivery ends succeeded', { timeout: 90_000 }, async () => {
    const dataDir = freshDataDir();
    const { key } = school(dataDir, 'Burst Crash School');

    // A slow receiver (every answer waits), so deliveries are in flight when the server dies.
    const received = new Map<string, number>();
    let requests = 0;
    const badBodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        requests++;
        const eventId = String(req.headers['x-service-event-id']);
        try {
          const payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (payload.id !== eventId) badBodies.push(`${eventId}: body names ${payload.id}`);
        } catch {
          badBodies.push(`${eventId}: body is not JSON`);
        }
        received.set(eventId, (received.get(eventId) ?? 0) + 1);
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
        }, 120);
      });
    });
    const listening = await listenOnLoopback(receiver);
    cleanups.push(listening.close);
    const receiverUrl = listening.url;

    let server = await startBundle(dataDir, SERVER_ENV);
    const before = new Set((await allEvents(server, key, '*')).map((event) => event.id));
    const endpoint = await v1Ok(server, key, 'POST', '/webhooks/endpoints', { url: receiverUrl, events: ['*'] });

    // The burst: a bulk call, single creations and updates, all at once.
    const burst: Array<Promise<JsonAnswer>> = [];
    burst.push(
      v1(server, key, 'POST', '/students/bulk', {
        students: Array.from({ length: 40 }, (_, i) => ({ full_name: `Burst Bulk ${i}` })),
      }),
    );
    for (let i = 0; i < 20; i++) burst.push(v1(server, key, 'POST', '/students', { full_name: `Burst Single ${i}` }));
    for (let i = 0; i < 5; i++) burst.push(v1(server, key, 'POST', '/faculty', { full_name: `Burst Teacher ${i}` }));
    const answers = await Promise.all(burst);
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const singles = answers.slice(1, 21).map((answer) => answer.body.data.id as string);
    await Promise.all(singles.slice(0, 10).map((id, i) => v1Ok(server, key, 'PATCH', `/students/${id}`, { full_name: `Burst Renamed ${i}` })));

    const expected = (await allEvents(server, key, '*')).filter((event) => !before.has(event.id)).map((event) => event.id);
    expect(expected.length).toBeGreaterThanOrEqual(75);

    // Killed while the receiver holds requests: a few delivered, most still queued, two in flight.
    await waitFor(() => requests >= 6, 'the first deliveries to arrive', { timeoutMs: 20_000, intervalMs: 10, context: server.output });
    const receivedBeforeKill = received.size;
    await server.kill();
    expect(receivedBeforeKill).toBeLessThan(expected.length);
    await expectIntact(dataDir, { crashed: true });

    server = await startBundle(dataDir, SERVER_ENV);
    const started = Date.now();
    await waitFor(() => expected.every((id) => received.has(id)), 'every event to reach the receiver after the restart', {
      timeoutMs: 45_000,
      intervalMs: 50,
      context: () => `missing: ${expected.filter((id) => !received.has(id)).join(', ')}\n${server.output()}`,
    });
    const deliveredIn = Date.now() - started;

    // Every event has exactly one delivery row, and all of them end succeeded (none stuck delivering).
    await waitFor(
      async () => {
        const all = await v1Ok(server, key, 'GET', `/webhooks/deliveries?endpoint_id=${endpoint.id}&limit=1`);
        const succeeded = await v1Ok(server, key, 'GET', `/webhooks/deliveries?endpoint_id=${endpoint.id}&status=succeeded&limit=1`);
        return all.total === expected.length && succeeded.total === expected.length;
      },
      'every delivery to be recorded as succeeded',
      { timeoutMs: 20_000, intervalMs: 200, context: server.output },
    );
    const deliveries = await allPages(server, key, '/webhooks/deliveries', { endpoint_id: endpoint.id });
    expect(new Set(deliveries.map((delivery) => delivery.event_id))).toEqual(new Set(expected));
    expect(badBodies).toEqual([]);
    expect([...received.keys()].filter((id) => !expected.includes(id))).toEqual([]);

    await expectIntact(dataDir, { readonly: true });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    await expectIntact(dataDir);

    const repeats = [...received.values()].filter((count) => count > 1).length;
    console.log(
      `crash/webhooks: ${expected.length} events, killed after ${receivedBeforeKill} had arrived; all received ${deliveredIn} ms after the restart ` +
        `(${requests} requests, ${repeats} events received more than once); ${expected.length} deliveries succeeded; integrity ok`,
    );
  });
});

describe('crash: an upload cut mid-stream', () => {
  const CHUNK = Buffer.alloc(1024 * 1024, 0x5a);
  const DECLARED = 30 * 1024 * 1024;

  /** Files (not folders) under a folder, or none when it does not exist. */
  const filesIn = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => path.join(entry.parentPath, entry.name))
      : [];
  const tmpFiles = (dataDir: string) => filesIn(path.join(dataDir, 'tmp'));
  const tmpBytes = (dataDir: string) => tmpFiles(dataDir).reduce((sum, file) => sum + (fs.existsSync(file) ? fs.statSync(file).size : 0), 0);

  /**
   * Starts a multipart upload declaring 30 MB and sends `megabytes` of it, then waits: the
   * request stays open mid-stream. Returns the request, to be destroyed by the caller.
   */
  async function startUpload(server: BundleServer, key: string, examId: string, megabytes: number) {
    const boundary = `----crash${Date.now()}`;
    const { port } = new URL(server.origin);
    const req = http.request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: `/v1/exams/${examId}/files`,
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(DECLARED),
      },
    });
    let answered: number | null = null;
    req.on('response', (res) => {
      answered = res.statusCode ?? null;
      res.resume();
    });
    req.on('error', () => {});
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="starter.zip"\r\nContent-Type: application/zip\r\n\r\n`);
    for (let i = 0; i < megabytes; i++) {
      if (!req.write(CHUNK)) await new Promise((resolve) => req.once('drain', resolve));
    }
    return { req, answered: () => answered };
  }

  async function codingExam(server: BundleServer, key: string): Promise<string> {
    const faculty = await v1Ok(server, key, 'POST', '/faculty', { full_name: 'Grace Hopper' });
    const exam = await v1Ok(server, key, 'POST', '/exams', { faculty_id: faculty.id, title: 'Algorithms – coding midterm', app: 'code' });
    return exam.id;
  }

  it('leaves no temporary file in DATA_DIR/tmp after a SIGKILL mid-upload and a restart', { timeout: 60_000 }, async () => {
    const dataDir = freshDataDir();
    const { key } = school(dataDir, 'Upload Crash School');
    let server = await startBundle(dataDir, SERVER_ENV);
    const examId = await codingExam(server, key);

    const upload = await startUpload(server, key, examId, 4);
    // The kill comes while the temporary file is being written.
    await waitFor(() => tmpBytes(dataDir) > 0, 'the upload to reach DATA_DIR/tmp', { timeoutMs: 15_000, intervalMs: 20, context: server.output });
    await server.kill();
    upload.req.destroy();
    const leftBehind = tmpFiles(dataDir);
    expect(leftBehind.length, 'a partial temporary file exists at the kill').toBeGreaterThan(0);
    await expectIntact(dataDir, { crashed: true });

    server = await startBundle(dataDir, SERVER_ENV);
    // Start-up removes what a crashed process left in DATA_DIR/tmp (allowed a moment, in case the sweep runs just after listening).
    await waitFor(() => tmpFiles(dataDir).length === 0, 'DATA_DIR/tmp to be empty after the restart', {
      timeoutMs: 5_000,
      intervalMs: 50,
      context: () => `left in DATA_DIR/tmp: ${tmpFiles(dataDir).join(', ')} (at the kill: ${leftBehind.join(', ')})\n${server.output()}`,
    });
    expect(filesIn(path.join(dataDir, 'uploads')), 'nothing was stored from the cut upload').toEqual([]);

    // The exam takes a whole upload after the restart, and that leaves nothing in tmp either.
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'))]), 'starter.zip');
    const done = await fetch(`${server.origin}/v1/exams/${examId}/files`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    expect(done.status, await done.clone().text()).toBe(200);
    expect(tmpFiles(dataDir)).toEqual([]);

    await expectIntact(dataDir, { readonly: true });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    await expectIntact(dataDir);
    console.log(`crash/upload: killed mid-upload with ${leftBehind.length} partial file(s) in DATA_DIR/tmp; none left after the restart; integrity ok`);
  });

  it('removes the temporary file when the client aborts mid-upload (server alive)', { timeout: 60_000 }, async () => {
    const dataDir = freshDataDir();
    const { key } = school(dataDir, 'Upload Abort School');
    const server = await startBundle(dataDir, SERVER_ENV);
    try {
      const examId = await codingExam(server, key);
      const upload = await startUpload(server, key, examId, 4);
      await waitFor(() => tmpBytes(dataDir) > 0, 'the upload to reach DATA_DIR/tmp', { timeoutMs: 15_000, intervalMs: 20, context: server.output });
      upload.req.destroy();
      await waitFor(() => tmpFiles(dataDir).length === 0, 'DATA_DIR/tmp to be empty after the client went away', {
        timeoutMs: 5_000,
        intervalMs: 50,
        context: () => `left in DATA_DIR/tmp: ${tmpFiles(dataDir).join(', ')}\n${server.output()}`,
      });
      // Still serving, and a client going away is not logged as a failure of the server.
      expect((await v1(server, key, 'GET', `/exams/${examId}`)).status).toBe(200);
      const errors = server
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50);
      expect(errors, 'error-level log lines after the client went away').toEqual([]);
      expect(await server.stop()).toEqual({ code: 0, signal: null });
      await expectIntact(dataDir);
    } finally {
      await server.kill();
    }
  });
});
