import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../errors.js';
import { plainHttpAllowed, resolveDeliveryAddress, type PrivateHosts, type Resolver } from './address.js';

/** Bytes of the receiver's answer kept per attempt. */
export const RESPONSE_BODY_LIMIT = 2048;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The `webhook_private_hosts` setting as it is now: checked again at every delivery. */
  privateHosts: PrivateHosts;
  resolver?: Resolver;
}

export interface SendResult {
  /** Any 2xx within the timeout. Redirects are failures and are never followed. */
  ok: boolean;
  status: number | null;
  /** First 2 KB of the answer, as text. */
  body: string | null;
  timeMs: number;
  /** Why it failed when no 2xx came back: `timeout`, `https_required`, `private_host`, `dns_error`, `connection_error: …`, `redirect`, `http_<status>`. */
  error: string | null;
}

/** Connections kept open to one receiver address; the engine's per-endpoint limit is below it. */
const SOCKETS_PER_RECEIVER = 16;
/** An idle kept-alive connection is closed after this; below the 5 s a Node receiver keeps one. */
const IDLE_SOCKET_MS = 4_000;
/** Receivers with a connection pool at once; the least recently used pool is closed beyond it. */
const MAX_POOLS = 64;

const pools = new Map<string, http.Agent>();

/**
 * The keep-alive pool for one receiver, keyed by scheme, host and the address the host resolved
 * to (the pinned one): a kept connection is only reused for the address it was checked and opened
 * for, so a change of DNS or of the private-hosts setting is never bypassed by an old socket.
 */
function poolFor(url: URL, address: string): http.Agent {
  const key = `${url.protocol}//${url.host}@${address}`;
  const known = pools.get(key);
  if (known) {
    pools.delete(key);
    pools.set(key, known);
    return known;
  }
  const options = {
    keepAlive: true,
    maxSockets: SOCKETS_PER_RECEIVER,
    maxFreeSockets: SOCKETS_PER_RECEIVER,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo' as const,
  };
  const pool = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  pools.set(key, pool);
  if (pools.size > MAX_POOLS) {
    const [oldestKey, oldest] = pools.entries().next().value as [string, http.Agent];
    pools.delete(oldestKey);
    oldest.destroy();
  }
  return pool;
}

/**
 * One POST to a receiver. The host is resolved and checked here, at every delivery, and the
 * connection is made to exactly that address (pinned through `lookup`), so DNS rebinding between
 * the check and the connect is impossible. TLS still verifies the certificate for the host name.
 * Connections are kept alive per receiver address and reused (docs/decisions.md#webhook-throughput).
 */
export async function postWebhook(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(request.url);

  let pinned;
  try {
    pinned = await resolveDeliveryAddress(url, { privateHosts: request.privateHosts, resolver: request.resolver });
  } catch (error) {
    const reason = error instanceof AppError && error.code === 'private_host' ? 'private_host' : 'dns_error';
    return { ok: false, status: null, body: null, timeMs: elapsed(), error: reason };
  }
  // The endpoint rules hold at every delivery, not only at creation: the setting may have changed since.
  if (url.protocol !== 'https:' && !plainHttpAllowed(request.privateHosts, url.hostname, pinned)) {
    return { ok: false, status: null, body: null, timeMs: elapsed(), error: 'https_required' };
  }

  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options && (options as { all?: boolean }).all) {
      (callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };

  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'timeMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, timeMs: elapsed() });
    };

    const req = client.request(
      url,
      {
        method: 'POST',
        lookup,
        agent: poolFor(url, pinned.address),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'CampusBridge-Webhooks/1',
          ...request.headers,
          'Content-Length': Buffer.byteLength(request.body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const status = res.statusCode ?? 0;
          const body = Buffer.concat(chunks).toString('utf8');
          const ok = status >= 200 && status < 300;
          const error = ok ? null : status >= 300 && status < 400 ? 'redirect' : `http_${status}`;
          finish({ ok, status, body, error });
        };
        res.on('data', (chunk: Buffer) => {
          const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
          chunks.push(part);
          kept += part.length;
          // 2 KB is all that is kept: stop reading rather than wait for an endless body.
          if (kept >= RESPONSE_BODY_LIMIT) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      },
    );
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ ok: false, status: null, body: null, error: 'timeout' });
    }, request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, status: null, body: null, error: `connection_error: ${error.code ?? error.message}` }),
    );
    req.end(request.body);
  });
}
