import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../errors.js';
import { plainHttpAllowed, resolveDeliveryAddress, type PrivateHosts, type Resolver } from '../webhooks/address.js';

/** Bytes of a platform's answer read at most (a key set with a few RSA keys is a few KB). */
export const OUTBOUND_BODY_LIMIT = 256 * 1024;

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The `webhook_private_hosts` setting: the same address rules as webhooks (docs/lms.md#when-the-lms-is-in-the-cloud-and-the-appliance-on-campus). */
  privateHosts: PrivateHosts;
  resolver?: Resolver;
}

export interface OutboundResult {
  /** Null when no answer came (refused address, timeout, connection error): `error` says why. */
  status: number | null;
  body: string;
  error: string | null;
}

/**
 * One request from the appliance to an LMS (its key set, token endpoint, score endpoint), under
 * the webhooks' address rules: the host is resolved and checked at every request and the
 * connection pinned to the checked address, so a private or loopback target is refused unless
 * the operator allowed it, and DNS rebinding cannot swap the address. Redirects are not followed.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResult> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { status: null, body: '', error: 'invalid_url' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { status: null, body: '', error: 'invalid_url' };
  let pinned;
  try {
    pinned = await resolveDeliveryAddress(url, { privateHosts: request.privateHosts, resolver: request.resolver });
  } catch (error) {
    return { status: null, body: '', error: error instanceof AppError && error.code === 'private_host' ? 'private_host' : 'dns_error' };
  }
  if (url.protocol !== 'https:' && !plainHttpAllowed(request.privateHosts, url.hostname, pinned)) return { status: null, body: '', error: 'https_required' };

  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options && (options as { all?: boolean }).all) {
      (callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    const finish = (result: OutboundResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const headers: Record<string, string | number> = { 'User-Agent': 'CampusBridge-LTI/1', ...request.headers };
    if (request.body !== undefined) headers['Content-Length'] = Buffer.byteLength(request.body);
    const req = client.request(url, { method: request.method, lookup, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), error: null });
      res.on('data', (chunk: Buffer) => {
        const part = chunk.subarray(0, OUTBOUND_BODY_LIMIT - kept);
        chunks.push(part);
        kept += part.length;
        if (kept >= OUTBOUND_BODY_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', done);
    });
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ status: null, body: '', error: 'timeout' });
    }, request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, body: '', error: `connection_error: ${error.code ?? error.message}` }));
    req.end(request.body);
  });
}
