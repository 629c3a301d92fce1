import type http from 'node:http';
import type { PrivateHosts } from '../../outbound/address.js';
import { requestPinned } from '../../outbound/pinned-request.js';

/** Why a request to the SIS did not give what was needed; the run records the message. */
export class SisError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SisError';
  }
}

export interface SisRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The `outbound_private_hosts` setting: requests to the SIS obey the webhooks' address rules. */
  privateHosts: PrivateHosts;
  timeoutMs?: number;
}

export interface SisResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A roster page of 2,000 users is about 1 MB: 32 times any page the sync asks for. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** For one whole request, the page's body included. */
export const SIS_REQUEST_TIMEOUT_MS = 60_000;

/**
 * One request to the SIS through `requestPinned`, with the webhooks' address rules
 * (docs/security.md). Redirects are not followed. Any failure is a SisError in words.
 */
export async function sisRequest(request: SisRequest): Promise<SisResponse> {
  const result = await requestPinned({
    method: request.method,
    url: request.url,
    headers: { Accept: 'application/json', 'User-Agent': 'CampusBridge-OneRoster/1', ...request.headers },
    body: request.body,
    timeoutMs: request.timeoutMs ?? SIS_REQUEST_TIMEOUT_MS,
    privateHosts: request.privateHosts,
    bodyLimit: MAX_RESPONSE_BYTES,
  });
  if (result.status === null) throw new SisError(`The SIS request failed: ${result.detail}`);
  const path = new URL(request.url).pathname;
  if (result.truncated) throw new SisError(`The SIS answered ${path} with more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB.`);
  if (result.brokenOff) throw new SisError(`The SIS's answer to ${path} broke off before its end.`);
  return { status: result.status, headers: result.headers, body: result.body };
}

/** The body parsed as a JSON object, or a SisError naming what came back instead. */
export function jsonObject(response: SisResponse, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(response.body);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw new SisError(`The SIS's answer to ${what} is not a JSON object (HTTP ${response.status}).`);
}
