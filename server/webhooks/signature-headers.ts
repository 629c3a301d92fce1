/**
 * Reading a webhook request as an integrator pasted it from their logs, for the signature checker
 * (./signature-check.ts): the headers in whatever form they were copied, and each of the two
 * signature header sets taken apart, or why it cannot be.
 */

export type SignatureScheme = 'x-service-signature' | 'standard-webhooks';

// ---------------------------------------------------------------------------------------------
// Headers as pasted

/**
 * Headers copied from a log, in any reasonable form: a JSON object (`{"name": "value"}`), a JSON
 * list of `{name, value}`, or lines `Name: value` (also `-H 'Name: value'` from a curl command).
 * Names come back in lower case; lines that are none of these are ignored.
 */
export function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      const entries = Array.isArray(parsed)
        ? parsed.map((item: { name?: unknown; value?: unknown }) => [item?.name, item?.value] as const)
        : Object.entries(parsed as Record<string, unknown>);
      for (const [name, value] of entries) {
        if (typeof name === 'string' && value !== undefined && value !== null)
          headers[name.trim().toLowerCase()] = (Array.isArray(value) ? value.join(', ') : String(value)).trim();
      }
      return headers;
    } catch {
      // Not JSON after all: read it as lines.
    }
  }
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim().replace(/\\$/, '').trim();
    const curl = line.match(/^(?:-H|--header)\s+(['"])(.*)\1$/);
    if (curl) line = curl[2]!;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line
      .slice(0, colon)
      .trim()
      .replace(/^["']|["']$/g, '');
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) continue;
    headers[name.toLowerCase()] = line
      .slice(colon + 1)
      .trim()
      .replace(/^["']|["'],?$/g, '');
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------
// The two header sets

export interface ParsedScheme {
  scheme: SignatureScheme;
  timestamp: number;
  signatures: Buffer[];
  /** The string that was signed, for a given body. */
  signed: (body: string) => string;
}

/** A header set as read: its parts, or why it is malformed (in words, with the value received); null when absent. */
export type SchemeParse = { ok: true; parsed: ParsedScheme } | { ok: false; scheme: SignatureScheme; message: string; received?: string } | null;

const malformed = (scheme: SignatureScheme, message: string, received?: string): SchemeParse => ({
  ok: false,
  scheme,
  message,
  ...(received !== undefined && { received }),
});

export function parseServiceHeader(headers: Record<string, string>): SchemeParse {
  const value = headers['x-service-signature'];
  if (value === undefined) return null;
  const scheme = 'x-service-signature' as const;
  const parts = value.split(',').map((part) => part.trim());
  const t = parts.find((part) => part.startsWith('t='))?.slice(2);
  if (t === undefined) return malformed(scheme, 'X-Service-Signature has no `t=<unix seconds>` part; the header reads `t=<t>,v1=<hex>[,v1=<hex>]`.', value);
  if (!/^\d{1,12}$/.test(t)) return malformed(scheme, `X-Service-Signature's timestamp \`t=${t}\` is not whole Unix seconds.`, value);
  const entries = parts.filter((part) => part.startsWith('v1='));
  if (entries.length === 0) return malformed(scheme, 'X-Service-Signature has no `v1=` signature.', value);
  const bad = entries.find((entry) => !/^v1=[0-9a-f]{64}$/i.test(entry));
  if (bad) return malformed(scheme, `\`${bad.slice(0, 80)}\` is not a v1 signature: 64 hexadecimal digits are expected (was the header cut short?).`, value);
  return {
    ok: true,
    parsed: { scheme, timestamp: Number(t), signatures: entries.map((entry) => Buffer.from(entry.slice(3), 'hex')), signed: (body) => `${t}.${body}` },
  };
}

export function parseStandardHeaders(headers: Record<string, string>): SchemeParse {
  const id = headers['webhook-id'];
  const t = headers['webhook-timestamp'];
  const value = headers['webhook-signature'];
  if (id === undefined && t === undefined && value === undefined) return null;
  const scheme = 'standard-webhooks' as const;
  const missing = [id === undefined && 'webhook-id', t === undefined && 'webhook-timestamp', value === undefined && 'webhook-signature'].filter(Boolean);
  if (missing.length > 0) return malformed(scheme, `The Standard Webhooks headers come as three; missing: ${missing.join(', ')}.`);
  if (!/^\d{1,12}$/.test(t!)) return malformed(scheme, `webhook-timestamp \`${t!.slice(0, 40)}\` is not whole Unix seconds.`, t);
  const entries = value!.split(' ').filter(Boolean);
  const bad = entries.find((entry) => !/^v1,[A-Za-z0-9+/]{43}=$/.test(entry));
  if (entries.length === 0 || bad !== undefined) {
    return malformed(
      scheme,
      `webhook-signature entries read \`v1,<base64 of 32 bytes>\`, separated by spaces; \`${(bad ?? value!).slice(0, 80)}\` is not one.`,
      value,
    );
  }
  return {
    ok: true,
    parsed: { scheme, timestamp: Number(t), signatures: entries.map((entry) => Buffer.from(entry.slice(3), 'base64')), signed: (body) => `${id}.${t}.${body}` },
  };
}
