import type { IncomingHttpHeaders } from 'node:http';
import type { PrivateHosts, Resolver } from '../../outbound/address.js';
import { requestPinned } from '../../outbound/pinned-request.js';

/** Bytes of a platform's answer read at most (a key set with a few RSA keys is a few KB). */
export const OUTBOUND_BODY_LIMIT = 256 * 1024;

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The `outbound_private_hosts` setting: the same address rules as webhooks (docs/lms.md#when-the-lms-is-in-the-cloud-and-the-appliance-on-campus). */
  privateHosts: PrivateHosts;
  resolver?: Resolver;
  /** Bytes of the answer read at most; OUTBOUND_BODY_LIMIT unless given (a class list page is larger than a key set). */
  bodyLimit?: number;
}

export interface OutboundResult {
  /** Null when no answer came (refused address, timeout, connection error): `error` says why. */
  status: number | null;
  body: string;
  error: string | null;
  /** The answer's headers (empty when no answer came): a class list's next page is in its `Link`. */
  headers: IncomingHttpHeaders;
  /** The answer went past the body limit and was cut there. */
  truncated: boolean;
}

/**
 * One request from the appliance to an LMS (its key set, token endpoint, score endpoint), under
 * the webhooks' address rules (`requestPinned`): a private or loopback target is refused unless
 * the operator allowed it, and DNS rebinding cannot swap the address. Redirects are not followed.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResult> {
  const result = await requestPinned({
    method: request.method,
    url: request.url,
    headers: { 'User-Agent': 'CampusBridge-LTI/1', ...request.headers },
    body: request.body,
    timeoutMs: request.timeoutMs,
    privateHosts: request.privateHosts,
    resolver: request.resolver,
    bodyLimit: request.bodyLimit ?? OUTBOUND_BODY_LIMIT,
  });
  if (result.status === null) return { status: null, body: '', error: result.error, headers: {}, truncated: false };
  return { status: result.status, body: result.body, error: null, headers: result.headers, truncated: result.truncated };
}
