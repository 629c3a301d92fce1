import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../errors.js';
import { plainHttpAllowed, resolveOutboundAddress, type PrivateHosts, type Resolver } from './address.js';

export interface PinnedRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** For the whole exchange: connecting, sending and reading the answer. */
  timeoutMs: number;
  /** The `outbound_private_hosts` setting as it is now: checked again at every request. */
  privateHosts: PrivateHosts;
  resolver?: Resolver;
  /** Bytes of the answer kept; past them the answer is cut there and reading stops. */
  bodyLimit: number;
  /**
   * The connection pool to use for the pinned address, or none (a fresh connection, closed after).
   * A pool must be keyed by the pinned address, so a kept socket is never reused for another one.
   */
  agentFor?: (url: URL, address: string) => http.Agent;
}

/** Why no answer came: the address rules refused the target, or the exchange failed. */
export type PinnedFailure = 'invalid_url' | 'private_host' | 'dns_error' | 'https_required' | 'timeout' | `connection_error: ${string}`;

export type PinnedResult =
  | {
      status: number;
      headers: http.IncomingHttpHeaders;
      /** The answer as text, at most `bodyLimit` bytes of it. */
      body: string;
      /** The answer went past `bodyLimit` and was cut. */
      truncated: boolean;
      /** The answer broke off before its end (the status and headers had come). */
      brokenOff: boolean;
      timeMs: number;
    }
  | { status: null; error: PinnedFailure; detail: string; timeMs: number };

/**
 * One request from the appliance to a host a school configured (a webhook receiver, an LMS, a
 * SIS), under one set of address rules (docs/security.md): the host is resolved and checked at
 * every request, and the connection is made to exactly the checked address (pinned through
 * `lookup`), so DNS rebinding between the check and the connect is impossible; `http://` only
 * toward a private host the setting allows. TLS still verifies the certificate for the host name.
 * Redirects are never followed. Never throws: every failure is a result the caller words.
 */
export async function requestPinned(request: PinnedRequest): Promise<PinnedResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (error: PinnedFailure, detail: string): PinnedResult => ({ status: null, error, detail, timeMs: elapsed() });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return fail('invalid_url', `${request.url} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('invalid_url', `${request.url} is neither https:// nor http://.`);
  let pinned;
  try {
    pinned = await resolveOutboundAddress(url, { privateHosts: request.privateHosts, resolver: request.resolver });
  } catch (error) {
    if (error instanceof AppError && error.code === 'private_host') return fail('private_host', error.message);
    return fail('dns_error', `The host ${url.hostname} could not be resolved.`);
  }
  if (url.protocol !== 'https:' && !plainHttpAllowed(request.privateHosts, url.hostname, pinned)) {
    return fail('https_required', `${url.host} must be reached over https:// (http:// only toward a host the outbound_private_hosts setting allows).`);
  }

  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options && (options as { all?: boolean }).all) {
      (callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  const headers: Record<string, string | number> = { ...request.headers };
  if (request.body !== undefined) headers['Content-Length'] = Buffer.byteLength(request.body);
  const client = url.protocol === 'https:' ? https : http;

  return new Promise<PinnedResult>((resolve) => {
    let settled = false;
    const finish = (result: PinnedResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const agent = request.agentFor ? request.agentFor(url, pinned.address) : false;
    const req = client.request(url, { method: request.method, lookup, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = (truncated: boolean, brokenOff: boolean) =>
        finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), truncated, brokenOff, timeMs: elapsed() });
      res.on('data', (chunk: Buffer) => {
        const part = chunk.subarray(0, request.bodyLimit - kept);
        chunks.push(part);
        kept += part.length;
        // Past the limit nothing more is read: stop rather than wait for an endless answer.
        if (part.length < chunk.length) {
          done(true, false);
          res.destroy();
        }
      });
      res.on('end', () => done(false, false));
      res.on('error', () => done(false, true));
      res.on('aborted', () => done(false, true));
    });
    const deadline = setTimeout(() => {
      req.destroy();
      finish(fail('timeout', `${url.host} did not answer within ${request.timeoutMs / 1000} s.`));
    }, request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      finish(fail(`connection_error: ${code}`, `Could not reach ${url.host}: ${code}.`));
    });
    req.end(request.body);
  });
}
