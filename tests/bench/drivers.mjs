// Load generators. Throughput: autocannon (closed loop, keep-alive). Latency at a fixed rate: an
// open-loop driver that sends on a schedule and times each request from its scheduled send time,
// so a slow server cannot hide its queue (no coordinated omission).
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Closed-loop throughput of GET `pathname` for `seconds`, over `connections` keep-alive
 * connections, the keys taken in turn (one key allows 6000 requests a minute). Answers 2xx/s.
 * A timed run, not a number of requests: autocannon checks an `amount` only at its one-second
 * ticks, which rounds a short run's duration up to whole seconds.
 */
export async function throughput({ origin, pathname, keys = [null], seconds, connections = 10 }) {
  const requests = keys.map((key) => ({ method: 'GET', path: pathname, headers: key ? { authorization: `Bearer ${key}` } : {} }));
  const result = await autocannon({ url: origin, connections, duration: seconds, requests, timeout: 10 });
  const ok = result['2xx'];
  return {
    rps: ok / result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

/**
 * Open loop: `rate` requests a second for `seconds`, paths from `pathFor(i)`, every key taking a
 * share. A request unanswered `timeoutMs` after its scheduled time counts as a timeout, and a
 * timeout is slower than every answer in the percentiles. The run is bounded: it ends at most
 * `timeoutMs` after the last send. A timed-out request already on the wire keeps its socket
 * until the run ends (closing it would not stop the server's work, and a new socket would pile
 * more on), so the server never holds more than `maxSockets` of this run's requests.
 */
export async function fixedRate({ origin, pathFor, keys, rate, seconds, timeoutMs = 10_000, maxSockets = 64 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const total = Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const latencies = [];
  const statuses = {};
  let timeouts = 0;
  let errors = 0;

  const send = (i, due) =>
    new Promise((resolve) => {
      let done = false;
      let onWire = false;
      const finish = (kind, status) => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        if (kind === 'ok') {
          latencies.push(performance.now() - due);
          statuses[status] = (statuses[status] ?? 0) + 1;
        } else if (kind === 'timeout') timeouts += 1;
        else errors += 1;
        resolve();
      };
      const req = http.get(`${origin}${pathFor(i)}`, { agent, headers: { authorization: `Bearer ${keys[i % keys.length]}` } }, (res) => {
        res.resume();
        res.on('end', () => finish('ok', res.statusCode));
        res.on('error', () => finish('error'));
      });
      req.on('socket', () => {
        onWire = true;
      });
      req.on('error', () => finish('error'));
      const deadline = setTimeout(
        () => {
          finish('timeout');
          if (!onWire) req.destroy(); // still queued here: the server never saw it
        },
        Math.max(1, due + timeoutMs - performance.now()),
      );
    });

  const inFlight = [];
  const start = performance.now() + 20;
  for (let i = 0; i < total; i += 1) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    inFlight.push(send(i, due));
  }
  await Promise.all(inFlight);
  agent.destroy();

  latencies.sort((a, b) => a - b);
  // Timeouts and errors rank above every answer: pad with Infinity.
  const ranked = latencies.concat(Array(timeouts + errors).fill(Infinity));
  const non2xx = Object.entries(statuses)
    .filter(([status]) => !status.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  return { sent: total, rate, p50Ms: percentile(ranked, 0.5), p99Ms: percentile(ranked, 0.99), maxMs: ranked.at(-1), timeouts, errors, non2xx, statuses };
}

/** Sequential requests, for statement counts and single-request timings. */
export async function sequential(count, run) {
  const times = [];
  for (let i = 0; i < count; i += 1) times.push(await run(i));
  return times;
}
