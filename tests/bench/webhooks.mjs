// Webhook deliveries to one instant receiver on 127.0.0.1: every event id counted, so lost and
// duplicated deliveries show.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { api } from './appliance.mjs';
import { bulkCall, BULK_SIZE } from './load-data.mjs';
import { percentile } from './drivers.mjs';

function startReceiver() {
  const seen = new Map(); // event id → times received
  const received = []; // { at, lagMs }
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const id = req.headers['x-service-event-id'];
      seen.set(id, (seen.get(id) ?? 0) + 1);
      let createdAt = NaN;
      try {
        createdAt = Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).created_at);
      } catch {
        // no created_at: lag unknown for this one
      }
      received.push({ at, lagMs: at - createdAt });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, seen, received, port: server.address().port })));
}

/**
 * Creates `events` student.created events (bulk calls into a fresh institution with an endpoint
 * subscribed to them) and waits, at most `waitMs` after the last call, for every delivery.
 */
export async function measureDeliveries({ origin, keys, events, waitMs }) {
  const receiver = await startReceiver();
  try {
    const endpoint = await api(origin, keys[0], 'POST', '/v1/webhooks/endpoints', {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      events: ['student.created'],
    });
    if (endpoint.status !== 201 && endpoint.status !== 200) throw new Error(`endpoint: ${endpoint.status} ${endpoint.text.slice(0, 300)}`);

    const started = Date.now();
    for (let call = 0; call * BULK_SIZE < events; call += 1) {
      await bulkCall(origin, keys[call % keys.length], `hook${call}`, Math.min(BULK_SIZE, events - call * BULK_SIZE));
    }
    const producedAt = Date.now();
    const deadline = producedAt + waitMs;
    while (receiver.seen.size < events && Date.now() < deadline) await sleep(100);
    await sleep(500); // late duplicates
    const duplicates = [...receiver.seen.values()].reduce((sum, n) => sum + (n - 1), 0);
    const times = receiver.received.map((r) => r.at);
    const first = Math.min(...times);
    const last = Math.max(...times);
    const lags = receiver.received.map((r) => r.lagMs).sort((a, b) => a - b);
    return {
      events,
      received: receiver.seen.size,
      lost: events - receiver.seen.size,
      duplicates,
      // From the first event's commit (≈ the first bulk call) to the last delivery.
      perSecond: receiver.seen.size / (Math.max(1, last - started) / 1000),
      perSecondWhileArriving: receiver.seen.size / (Math.max(1, last - first) / 1000),
      producedPerSecond: events / ((producedAt - started) / 1000),
      lagP50Ms: percentile(lags, 0.5),
      lagMaxMs: lags.at(-1),
    };
  } finally {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}

/**
 * How soon a new delivery is attempted after its event commits, with the engine idle: `count`
 * single students created one at a time (`POST /v1/students`, whose answer comes after the
 * commit), each timed from the answer to its arrival at the receiver.
 */
export async function measureNewDeliveryLag({ origin, key, count = 20 }) {
  const receiver = await startReceiver();
  try {
    const endpoint = await api(origin, key, 'POST', '/v1/webhooks/endpoints', {
      url: `http://127.0.0.1:${receiver.port}/lag`,
      events: ['student.created'],
    });
    if (endpoint.status !== 201 && endpoint.status !== 200) throw new Error(`endpoint: ${endpoint.status} ${endpoint.text.slice(0, 300)}`);
    const lags = [];
    for (let i = 0; i < count; i += 1) {
      const before = receiver.seen.size;
      const created = await api(origin, key, 'POST', '/v1/students', { full_name: `Lag Probe ${i}` });
      const answeredAt = Date.now();
      if (created.status !== 201 && created.status !== 200) throw new Error(`student: ${created.status} ${created.text.slice(0, 300)}`);
      const deadline = answeredAt + 5_000;
      while (receiver.seen.size === before && Date.now() < deadline) await sleep(1);
      lags.push(receiver.seen.size > before ? Math.max(0, receiver.received.at(-1).at - answeredAt) : Infinity);
      await sleep(100);
    }
    lags.sort((a, b) => a - b);
    await api(origin, key, 'DELETE', `/v1/webhooks/endpoints/${endpoint.body.data.id}`);
    return { count, p50Ms: percentile(lags, 0.5), maxMs: lags.at(-1) };
  } finally {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}
