import http from 'node:http';
import https from 'node:https';
import type { PrivateHosts, Resolver } from '../outbound/address.js';
import { requestPinned } from '../outbound/pinned-request.js';

/** Bytes of the receiver's answer kept per attempt. */
export const RESPONSE_BODY_LIMIT = 2048;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The `outbound_private_hosts` setting as it is now: checked again at every delivery. */
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
  /** Why it failed when no 2xx came back: `timeout`, `invalid_url`, `https_required`, `private_host`, `dns_error`, `connection_error: …`, `redirect`, `http_<status>`. */
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
 * One POST to a receiver, through `requestPinned`: the host is resolved and checked at every
 * delivery and the connection made to exactly that address. Connections are kept alive per
 * receiver address and reused (docs/decisions/webhook-throughput.md). Only a 2xx counts; a
 * redirect is a failure and is never followed.
 */
export async function postWebhook(request: SendRequest): Promise<SendResult> {
  const result = await requestPinned({
    method: 'POST',
    url: request.url,
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'CampusBridge-Webhooks/1', ...request.headers },
    body: request.body,
    timeoutMs: request.timeoutMs,
    privateHosts: request.privateHosts,
    resolver: request.resolver,
    bodyLimit: RESPONSE_BODY_LIMIT,
    agentFor: poolFor,
  });
  if (result.status === null) return { ok: false, status: null, body: null, timeMs: result.timeMs, error: result.error };
  const { status, body, timeMs } = result;
  const ok = status >= 200 && status < 300;
  const error = ok ? null : status >= 300 && status < 400 ? 'redirect' : `http_${status}`;
  return { ok, status, body, timeMs, error };
}
