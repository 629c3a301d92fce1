/**
 * Verifies a webhook delivery with either of the appliance's signature schemes
 * (docs/webhooks.md#verifying-a-delivery), using Web Crypto only, so it runs on Node 20+, Deno,
 * Bun, Cloudflare Workers and in browsers:
 * - `X-Service-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 of `"<t>.<raw body>"`,
 *   keyed with the whole secret string (`whsec_…`) as UTF-8;
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>[ v1,…]`:
 *   HMAC-SHA256 of `"<id>.<t>.<raw body>"`, keyed with the base64-decoded part after `whsec_`.
 * During a secret rotation a delivery carries one signature per valid secret; one match is enough.
 */
import type { WebhookEvent } from './events.js';

export type WebhookScheme = 'standard' | 'service';

export type WebhookVerificationReason = 'missing_signature' | 'malformed_signature' | 'stale_timestamp' | 'signature_mismatch' | 'invalid_body';

/** A delivery that is not proven to come from the appliance; `reason` says why. Answer it with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as `fetch` (`Headers`), Express or node:http (`req.headers`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: parse it only after verifying. */
  body: string | Uint8Array;
  headers: WebhookHeaders;
  /** The endpoint's secret (`whsec_…`), or several while you rotate it on your side. */
  secret: string | readonly string[];
  /** How far the signed timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Which scheme to check (default: Standard Webhooks when its headers are present, else X-Service-Signature). */
  scheme?: WebhookScheme;
  /** Now, in milliseconds (tests). */
  now?: number;
}

/** The delivered event once its signature and timestamp hold; throws `WebhookVerificationError` otherwise. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const header = headerReader(options.headers);
  const body = typeof options.body === 'string' ? options.body : new TextDecoder().decode(options.body);
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  const scheme = options.scheme ?? (header('webhook-signature') !== undefined ? 'standard' : 'service');
  const signed = scheme === 'standard' ? standardSignatures(header) : serviceSignatures(header);

  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const ageSeconds = Math.abs((options.now ?? Date.now()) / 1000 - signed.timestamp);
  if (ageSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `The signed timestamp is ${Math.round(ageSeconds)} s from now, more than the ${toleranceSeconds} s allowed.`,
    );
  }

  const message = new TextEncoder().encode(scheme === 'standard' ? `${header('webhook-id')}.${signed.timestamp}.${body}` : `${signed.timestamp}.${body}`);
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey('raw', keyBytes(secret, scheme), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const signature of signed.signatures) {
      // subtle.verify compares in constant time.
      if (await crypto.subtle.verify('HMAC', key, signature, message)) return parseEvent(body);
    }
  }
  throw new WebhookVerificationError(
    'signature_mismatch',
    `No ${scheme === 'standard' ? 'webhook-signature' : 'X-Service-Signature'} entry matches the body with the given secret${secrets.length > 1 ? 's' : ''}: a wrong secret, or a body changed after signing (verify the raw bytes, before any JSON parsing).`,
  );
}

interface Signed {
  timestamp: number;
  signatures: Uint8Array<ArrayBuffer>[];
}

function serviceSignatures(header: (name: string) => string | undefined): Signed {
  const value = header('x-service-signature');
  if (value === undefined)
    throw new WebhookVerificationError('missing_signature', 'No X-Service-Signature header (nor webhook-signature): not a signed delivery.');
  const parts = value.split(',').map((part) => part.trim().split('='));
  const t = parts.find(([name]) => name === 't')?.[1];
  const signatures = parts.filter(([name, hex]) => name === 'v1' && hex !== undefined && /^[0-9a-f]{64}$/i.test(hex)).map(([, hex]) => hexBytes(hex!));
  if (t === undefined || !/^\d+$/.test(t) || signatures.length === 0) {
    throw new WebhookVerificationError('malformed_signature', 'X-Service-Signature must be t=<unix seconds>,v1=<64 hex digits>[,v1=…].');
  }
  return { timestamp: Number(t), signatures };
}

function standardSignatures(header: (name: string) => string | undefined): Signed {
  const id = header('webhook-id');
  const t = header('webhook-timestamp');
  const value = header('webhook-signature');
  if (id === undefined || t === undefined || value === undefined) {
    throw new WebhookVerificationError('missing_signature', 'Standard Webhooks needs the webhook-id, webhook-timestamp and webhook-signature headers.');
  }
  if (!/^\d+$/.test(t)) throw new WebhookVerificationError('malformed_signature', 'webhook-timestamp must be Unix seconds.');
  const signatures = value
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, signature]) => version === 'v1' && signature !== undefined && signature.length > 0)
    .map(([, signature]) => base64Bytes(signature!));
  if (signatures.length === 0)
    throw new WebhookVerificationError('malformed_signature', 'webhook-signature must hold v1,<base64> entries separated by spaces.');
  return { timestamp: Number(t), signatures };
}

function keyBytes(secret: string, scheme: WebhookScheme): Uint8Array<ArrayBuffer> {
  if (scheme === 'service') return new TextEncoder().encode(secret);
  return base64Bytes(secret.replace(/^whsec_/, ''));
}

function parseEvent(body: string): WebhookEvent {
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The signature holds but the body is not JSON.');
  }
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  if (headers instanceof Headers) return (name) => headers.get(name) ?? undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]));
  return (name) => lower.get(name);
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  } catch {
    throw new WebhookVerificationError('malformed_signature', 'A signature or the secret is not valid base64.');
  }
}
