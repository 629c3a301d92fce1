// Verify a CampusBridge webhook in Node.js (18 or later), with node:crypto only.
// verify():         the X-Service-Signature header.
// verifyStandard(): the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
// `headers` is an object of header name -> value (any case, as in req.headers);
// `rawBody` is the request body exactly as received (Buffer or string), before any JSON parsing.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const TOLERANCE_SECONDS = 5 * 60;

function header(headers, name) {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

// Rejects timestamps more than 5 minutes away from now (replays of old deliveries).
function fresh(timestamp, now) {
  return /^\d+$/.test(timestamp) && Math.abs(now - Number(timestamp)) <= TOLERANCE_SECONDS;
}

function sameText(expected, candidate) {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(candidate, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function verify(secret, headers, rawBody, now = Math.floor(Date.now() / 1000)) {
  const value = header(headers, 'x-service-signature');
  if (typeof value !== 'string') return false;
  let timestamp;
  const candidates = [];
  for (const part of value.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    if (key === 't') timestamp = part.slice(at + 1).trim();
    if (key === 'v1') candidates.push(part.slice(at + 1).trim());
  }
  if (timestamp === undefined || !fresh(timestamp, now)) return false;
  // The key is the whole secret, whsec_ included, as UTF-8 text.
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  // During a secret rotation there are two v1 entries: accept when any one matches.
  return candidates.some((candidate) => sameText(expected, candidate));
}

export function verifyStandard(secret, headers, rawBody, now = Math.floor(Date.now() / 1000)) {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!fresh(timestamp, now)) return false;
  // The key is the base64-decoded part after whsec_.
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
  return signatures.split(' ').some((entry) => {
    const comma = entry.indexOf(',');
    return comma > 0 && entry.slice(0, comma) === 'v1' && sameText(expected, entry.slice(comma + 1));
  });
}

// Test vector from stdin: {"secret", "headers", "body", "now"} -> {"service": bool, "standard": bool}
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let input = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) input += chunk;
  const { secret, headers, body, now } = JSON.parse(input);
  const raw = Buffer.from(body, 'utf8');
  console.log(JSON.stringify({ service: verify(secret, headers, raw, now), standard: verifyStandard(secret, headers, raw, now) }));
}
