// @tier system
// @databases sqlite: SIGKILL mid-delivery of the built server on its SQLite file
// Crash safety of webhook deliveries with the real bundle (`node dist/server/main.js`): the server
// is killed (SIGKILL) while a delivery is in flight, restarted on the same DATA_DIR, and the
// delivery still completes. Deliveries are rows before they are requests.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callJson, cliBundle, killBundles, listenOnLoopback, startBundle } from './helpers/bundle.js';
import { waitFor } from './helpers/wait.js';

const TIMEOUT_MS = 3000;
const WEBHOOK_ENV = {
  OUTBOUND_PRIVATE_HOSTS: '1',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
  WEBHOOK_SWEEP_SECONDS: '1',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
};

const cleanups: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  killBundles();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const call = (origin: string, key: string, method: string, pathname: string, body?: unknown) => callJson(origin, method, `/v1${pathname}`, { auth: key, body });

interface Received {
  eventId: string;
  deliveryId: string;
  body: string;
}

describe('webhook delivery across a crash (SIGKILL mid-delivery)', () => {
  it('is retried after restart and completes; the receiver gets the same event again', { timeout: 60_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-crash-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));

    // The receiver holds the first request open (the server dies while waiting) and accepts the rest.
    const received: Received[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          eventId: String(req.headers['x-service-event-id']),
          deliveryId: String(req.headers['x-service-delivery-id']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (received.length === 1) return;
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('got it');
      });
    });
    const listening = await listenOnLoopback(receiver);
    cleanups.push(listening.close);
    const receiverUrl = listening.url;

    const setup = cliBundle(
      dataDir,
      'setup',
      '--institution',
      'Crash School',
      '--admin-email',
      'ops@crash.example',
      '--admin-password',
      'correct horse battery',
    );
    const { key } = cliBundle(dataDir, 'key', 'create', '--institution', setup.json.institution.id, '--name', 'crash', '--scopes', 'all').json;

    const first = await startBundle(dataDir, WEBHOOK_ENV);
    const created = await call(first.origin, key, 'POST', '/webhooks/endpoints', { url: receiverUrl, events: ['student.created'] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const student = await call(first.origin, key, 'POST', '/students', { full_name: 'Ada Lovelace' });
    expect(student.status).toBe(200);

    await waitFor(() => received.length === 1, 'the first request to be in flight', { timeoutMs: 10_000, intervalMs: 50, context: first.output });
    const inFlight = await call(first.origin, key, 'GET', `/webhooks/deliveries/${received[0]!.deliveryId}`);
    expect(inFlight.body.data).toMatchObject({ status: 'delivering', attempt_count: 0 });

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await startBundle(dataDir, WEBHOOK_ENV);
    try {
      // The orphaned claim is returned to due once older than the timeout plus the margin, and sent again.
      await waitFor(() => received.length >= 2, 'the delivery to be sent again after the restart', {
        timeoutMs: 20_000,
        intervalMs: 50,
        context: second.output,
      });
      const done = await waitFor(
        async () => {
          const res = await call(second.origin, key, 'GET', `/webhooks/deliveries/${received[0]!.deliveryId}`);
          return res.body.data?.status === 'succeeded' && res.body.data;
        },
        'the delivery to be recorded as succeeded',
        { timeoutMs: 10_000, intervalMs: 50, context: second.output },
      );
      expect(done).toMatchObject({ attempt_count: 1, response_status: 200, response_body: 'got it' });
      expect(done.attempts).toHaveLength(1);

      // Same delivery, same event, same bytes: a receiver idempotent on the event id processes it once.
      expect(received).toHaveLength(2);
      expect(received[1]!.deliveryId).toBe(received[0]!.deliveryId);
      expect(received[1]!.eventId).toBe(received[0]!.eventId);
      expect(received[1]!.body).toBe(received[0]!.body);
      expect(new Set(received.map((r) => r.eventId)).size).toBe(1);

      // And the restarted server still stops cleanly.
      second.child.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    } finally {
      if (second.child.exitCode === null && second.child.signalCode === null) second.child.kill('SIGKILL');
    }
  });
});
