import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../../errors.js';
import { plainHttpAllowed, resolveDeliveryAddress, type PrivateHosts } from '../../webhooks/address.js';

/** Why a request to the SIS did not give what was needed; the run records the message. */
export class SisError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SisError';
  }
}

export interface SisRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The `webhook_private_hosts` setting: requests to the SIS obey the webhooks' address rules. */
  privateHosts: PrivateHosts;
  timeoutMs?: number;
}

export interface SisResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A roster page of 2,000 users is about 1 MB; far more than any page the sync asks for. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * One request to the SIS, with the webhooks' address rules (docs/security.md): the host is
 * resolved and checked, and the connection made to exactly that address (no DNS rebinding);
 * `http://` only toward a private host the setting allows. Redirects are not followed.
 */
export async function sisRequest(request: SisRequest): Promise<SisResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new SisError(`${request.url} is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SisError(`${request.url} is neither https:// nor http://.`);
  let pinned;
  try {
    pinned = await resolveDeliveryAddress(url, { privateHosts: request.privateHosts });
  } catch (error) {
    throw new SisError(error instanceof AppError ? error.message : `The host ${url.hostname} could not be resolved.`);
  }
  if (url.protocol === 'http:' && !plainHttpAllowed(request.privateHosts, url.hostname, pinned)) {
    throw new SisError(`The SIS must be reached over https:// (http:// only toward a host the webhook_private_hosts setting allows).`);
  }
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options && (options as { all?: boolean }).all) {
      (callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SisResponse>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: request.method,
        lookup,
        headers: {
          Accept: 'application/json',
          'User-Agent': 'CampusBridge-OneRoster/1',
          ...request.headers,
          ...(request.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(request.body)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(new SisError(`The SIS answered ${url.pathname} with more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => reject(new SisError(`The SIS's answer to ${url.pathname} broke off: ${error.message}`)));
      },
    );
    req.setTimeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => {
      req.destroy();
      reject(new SisError(`The SIS did not answer ${url.pathname} within ${(request.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s.`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => reject(new SisError(`Could not reach the SIS at ${url.host}: ${error.code ?? error.message}`)));
    req.end(request.body);
  });
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
