// @tier integration
// @databases none
// Webhook signatures (docs/api.md#signatures): what server/webhooks/signing.ts produces is checked by a
// verifier written here from that text, and by the three snippets of docs/webhooks.md,
// run as integrators would run them (node, python3, php).
import { spawnSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeaders } from '../server/webhooks/signing.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SNIPPETS = path.join(ROOT, 'docs', 'snippets');
/** PHP is optional on a build machine; PHP_BIN points at another binary than `php` on the PATH. */
const PHP = process.env.PHP_BIN ?? 'php';
const hasPhp = spawnSync(PHP, ['--version'], { encoding: 'utf8' }).status === 0;

const NOW = 1_789_372_800;

interface Outcome {
  service: boolean;
  standard: boolean;
}

/** What a snippet's CLI reads on stdin. */
interface Vector {
  secret: string;
  headers: Record<string, string>;
  body: string;
  now: number;
}

interface Case {
  name: string;
  vector: Vector;
  expected: Outcome;
}

function eventBody(eventId: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: eventId, type: 'exam.graded', created_at: '2026-09-14T08:00:00.000Z', institution_id: 'inst_SigningTests0000000000000', data });
}

/** The headers of one delivery as the engine sends them. */
function deliveryHeaders(secrets: string[], eventId: string, body: string, t: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Service-Event-Id': eventId,
    'X-Service-Delivery-Id': 'dlv_SigningTests00000000000000',
    ...signatureHeaders(secrets, eventId, body, t),
  };
}

const current = newWebhookSecret();
const previous = newWebhookSecret();
const stranger = newWebhookSecret();
const eventId = 'evt_SigningTests00000000000000';
const body = eventBody(eventId, { submission_id: 'sub_1', score: 55, max_score: 100 });
const unicodeBody = eventBody(eventId, { note: 'Zoë – naïve café, 李小龙, Ελληνικά, emoji 🎓✅, Ω≈ç√∫' });
const spacedBody = `{\n  "id": "${eventId}",\r\n  "type": "exam.graded",\n\t"data": { "note": "two  spaces, an escaped\\ttab, trailing "  }  \n}\n`;

const ok: Outcome = { service: true, standard: true };
const refused: Outcome = { service: false, standard: false };

function signed(
  name: string,
  options: { secrets?: string[]; verifyWith?: string; body?: string; sentBody?: string; t?: number; now?: number },
  expected: Outcome,
): Case {
  const signedBody = options.body ?? body;
  const t = options.t ?? NOW;
  return {
    name,
    vector: {
      secret: options.verifyWith ?? current,
      headers: deliveryHeaders(options.secrets ?? [current], eventId, signedBody, t),
      body: options.sentBody ?? signedBody,
      now: options.now ?? NOW,
    },
    expected,
  };
}

function withHeaders(base: Case, name: string, change: (headers: Record<string, string>) => Record<string, string>, expected: Outcome): Case {
  return { name, vector: { ...base.vector, headers: change({ ...base.vector.headers }) }, expected };
}

const oneSecret = signed('one secret', {}, ok);
const CASES: Case[] = [
  oneSecret,
  signed('rotation: verified with the new secret', { secrets: [current, previous], verifyWith: current }, ok),
  signed('rotation: verified with the previous secret during the grace period', { secrets: [current, previous], verifyWith: previous }, ok),
  signed('unicode body', { body: unicodeBody }, ok),
  signed('body with spaces, tabs, CRLF and newlines', { body: spacedBody }, ok),
  signed('tampered body', { sentBody: body.replace('"score":55', '"score":95') }, refused),
  signed('body re-serialised instead of raw', { body: spacedBody, sentBody: JSON.stringify(JSON.parse(spacedBody)) }, refused),
  signed('wrong secret', { verifyWith: stranger }, refused),
  signed('secret rotated out (grace over): only the new secret signs', { secrets: [current], verifyWith: previous }, refused),
  signed('stale timestamp (6 minutes old)', { t: NOW - 360 }, refused),
  signed('timestamp 5 minutes old, just inside the tolerance', { t: NOW - 299 }, ok),
  signed('timestamp more than 5 minutes in the future', { t: NOW + 301 }, refused),
  withHeaders(
    signed('replay', { t: NOW - 3600 }, refused),
    'replay with the timestamp swapped for a fresh one',
    (headers) => ({
      ...headers,
      'X-Service-Signature': headers['X-Service-Signature']!.replace(/^t=\d+/, `t=${NOW}`),
      'webhook-timestamp': String(NOW),
    }),
    refused,
  ),
  withHeaders(
    oneSecret,
    'header names in another case',
    (headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase() === k ? k.toUpperCase() : k.toLowerCase(), v])),
    ok,
  ),
  withHeaders(oneSecret, 'another event id in webhook-id', (headers) => ({ ...headers, 'webhook-id': 'evt_Other' }), { service: true, standard: false }),
  withHeaders(oneSecret, 'no signature headers', (headers) => ({ 'Content-Type': headers['Content-Type']! }), refused),
];

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** A verifier written from docs/api.md#signatures alone, independent of the snippets. */
function docsVerify({ secret, headers, body: raw, now }: Vector): Outcome {
  const equal = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
  const fresh = (t: string | undefined): t is string => t !== undefined && /^\d+$/.test(t) && Math.abs(now - Number(t)) <= 300;

  // X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret as UTF-8, "<t>.<raw body>")>[,v1=…]
  let service = false;
  const value = headerOf(headers, 'x-service-signature');
  const t = value?.match(/^t=(\d+)(?:,|$)/)?.[1];
  if (value && fresh(t)) {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from(`${t}.${raw}`, 'utf8'))
      .digest();
    service = [...value.matchAll(/(?:^|,)v1=([0-9a-f]+)/g)].some((m) => equal(Buffer.from(m[1]!, 'hex'), expected));
  }

  // Standard Webhooks: v1,<base64 HMAC-SHA256(base64-decoded part after whsec_, "<id>.<t>.<raw body>")>, space-separated
  let standard = false;
  const id = headerOf(headers, 'webhook-id');
  const ts = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (id && signatures && fresh(ts)) {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(Buffer.from(`${id}.${ts}.${raw}`, 'utf8'))
      .digest();
    standard = signatures.split(' ').some((entry) => entry.startsWith('v1,') && equal(Buffer.from(entry.slice(3), 'base64'), expected));
  }
  return { service, standard };
}

function runSnippet(command: string, file: string, vector: Vector): Outcome {
  const args = command === PHP ? ['-n', file] : [file];
  const result = spawnSync(command, args, { input: JSON.stringify(vector), encoding: 'utf8', timeout: 20_000 });
  expect(result.error).toBeUndefined();
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Outcome;
}

describe('signatureHeaders', () => {
  it('matches a known answer computed outside Node (Python hmac)', () => {
    const secret = `whsec_${Buffer.from(Array.from({ length: 24 }, (_, i) => i)).toString('base64')}`;
    expect(secret).toBe('whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX');
    const id = 'evt_KnownAnswer000000000000000';
    const raw = `{"id":"${id}","type":"exam.graded","created_at":"2026-09-14T08:00:00.000Z","institution_id":"inst_KnownAnswer00000000000000","data":{"score":87}}`;
    expect(signatureHeaders([secret], id, raw, 1_789_372_800)).toEqual({
      'X-Service-Signature': 't=1789372800,v1=ba2d8eed524161c70bcc2e9538bac7ef298c4834096d8c6d98d7778864a3520b',
      'webhook-id': id,
      'webhook-timestamp': '1789372800',
      'webhook-signature': 'v1,WE15jdbLhihmnD1vytHB5osEENhRsjXJ9xl567pfC5U=',
    });
  });

  it('has the documented shape with one secret', () => {
    const headers = signatureHeaders([current], eventId, body, NOW);
    expect(headers['X-Service-Signature']).toMatch(new RegExp(`^t=${NOW},v1=[0-9a-f]{64}$`));
    expect(headers['webhook-id']).toBe(eventId);
    expect(headers['webhook-timestamp']).toBe(String(NOW));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('carries one entry per secret during a rotation, newest first', () => {
    const both = signatureHeaders([current, previous], eventId, body, NOW);
    const onlyNew = signatureHeaders([current], eventId, body, NOW);
    const onlyOld = signatureHeaders([previous], eventId, body, NOW);
    expect(both['X-Service-Signature']).toBe(`${onlyNew['X-Service-Signature']},${onlyOld['X-Service-Signature']!.replace(/^t=\d+,/, '')}`);
    expect(both['webhook-signature']).toBe(`${onlyNew['webhook-signature']} ${onlyOld['webhook-signature']}`);
    expect(both['X-Service-Signature']!.split(',')).toHaveLength(3);
    expect(both['webhook-signature']!.split(' ')).toHaveLength(2);
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ followed by the base64 of 24 random bytes', () => {
    const secrets = Array.from({ length: 50 }, () => newWebhookSecret());
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
      expect(bytes).toHaveLength(24);
      expect(`whsec_${bytes.toString('base64')}`).toBe(secret);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});

describe('the verifier written from docs/api.md alone', () => {
  it.each(CASES)('$name', ({ vector, expected }) => {
    expect(docsVerify(vector)).toEqual(expected);
  });
});

describe('docs/snippets/verify.mjs (node)', () => {
  it.each(CASES)('$name', ({ vector, expected }) => {
    expect(runSnippet(process.execPath, path.join(SNIPPETS, 'verify.mjs'), vector)).toEqual(expected);
  });
});

describe('docs/snippets/verify.py (python3)', () => {
  it.each(CASES)('$name', ({ vector, expected }) => {
    expect(runSnippet('python3', path.join(SNIPPETS, 'verify.py'), vector)).toEqual(expected);
  });
});

describe('docs/snippets/verify.php (php)', () => {
  it.skipIf(!hasPhp).each(CASES)('$name', ({ vector, expected }) => {
    expect(runSnippet(PHP, path.join(SNIPPETS, 'verify.php'), vector)).toEqual(expected);
  });
});

describe('docs/webhooks.md', () => {
  it.each(['verify.mjs', 'verify.py', 'verify.php'])('embeds %s exactly as the file holds it', (file) => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'webhooks.md'), 'utf8');
    const code = readFileSync(path.join(SNIPPETS, file), 'utf8').trimEnd();
    expect(doc).toContain(code);
  });
});
