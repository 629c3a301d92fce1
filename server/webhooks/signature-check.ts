import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { parseServiceHeader, parseStandardHeaders, type ParsedScheme, type SchemeParse, type SignatureScheme } from './signature-headers.js';

export type { SignatureScheme } from './signature-headers.js';

/**
 * The signature checker (docs/webhooks.md#debugging-a-webhook-integration): given a body and
 * headers as an integrator pasted them from their logs, and optionally the secret they verify
 * with, it says exactly why their check fails. Pure: the secrets of the endpoint and the body the
 * delivery really sent are passed in, so every diagnosis is tested without a server. It never
 * returns a secret, nor a signature made with one of the endpoint's secrets over a pasted body
 * (that would be a signing oracle); expected signatures are shown only for the pasted secret.
 */

/** Receivers reject signatures older (or further in the future) than this (docs/api.md#signatures). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export const FINDING_CODES = [
  'valid',
  'no_signature_header',
  'malformed_header',
  'body_reserialized',
  'trailing_newline',
  'body_changed',
  'whsec_string_as_key',
  'decoded_key_as_service_key',
  'wrong_secret',
  'previous_secret',
  'previous_secret_expired',
  'unknown_signer',
  'stale_timestamp',
  'future_timestamp',
  'secret_format',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export interface Finding {
  code: FindingCode;
  level: 'ok' | 'warning' | 'error';
  schemes: SignatureScheme[];
  message: string;
  expected?: string;
  received?: string;
}

export interface KnownSecrets {
  current: string;
  /** The secret replaced by the last rotation, with the end of its grace period (past or not). */
  previous: { secret: string; expiresAt: Date } | null;
}

export interface SignatureCheckInput {
  body: string;
  /** Header names in lower case (see parseHeaders). */
  headers: Record<string, string>;
  /** The secret the integrator verifies with, when they gave it. */
  secret?: string;
  secrets: KnownSecrets;
  /** The raw body the delivery named by the headers sent, when one of this endpoint's was found. */
  original?: string | null;
  now: Date;
}

export interface SignatureCheckResult {
  verdict: FindingCode;
  findings: Finding[];
}

// ---------------------------------------------------------------------------------------------
// Keys and bodies tried

type SecretRole = 'pasted' | 'current' | 'previous';
type Derivation = 'correct' | 'mistaken';

interface Candidate {
  secret: string;
  roles: SecretRole[];
}

/** The HMAC key a scheme uses for a secret, or the key of the usual mistake for it. */
function keyFor(scheme: SignatureScheme, secret: string, derivation: Derivation): Buffer {
  const decoded = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const whole = Buffer.from(secret, 'utf8');
  const serviceKey = derivation === 'correct';
  return scheme === 'x-service-signature' ? (serviceKey ? whole : decoded) : serviceKey ? decoded : whole;
}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const signs = (parsed: ParsedScheme, key: Buffer, body: string) => {
  const expected = hmac(key, parsed.signed(body));
  return parsed.signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
};
const display = (parsed: ParsedScheme, digest: Buffer) =>
  parsed.scheme === 'x-service-signature' ? `v1=${digest.toString('hex')}` : `v1,${digest.toString('base64')}`;

/** A short, safe name for a secret: the first 8 hex digits of its SHA-256 (24 random bytes cannot be guessed from it). */
export const secretFingerprint = (secret: string) => `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}`;

/** JSON with sorted keys and no whitespace: two serializations of one value compare equal. */
function canonicalJson(text: string): string | null {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
          )
        : value;
  try {
    return JSON.stringify(sort(JSON.parse(text)));
  } catch {
    return null;
  }
}

type BodyKind = 'as_pasted' | 'original' | 'trimmed' | 'compact';

/** The bodies tried: the pasted one, then the one the delivery sent (or, unknown, the pasted one trimmed and compacted). */
function bodiesToTry(body: string, original: string | null | undefined): Array<{ kind: BodyKind; text: string }> {
  const bodies: Array<{ kind: BodyKind; text: string }> = [{ kind: 'as_pasted', text: body }];
  if (original != null) {
    if (original !== body) bodies.push({ kind: 'original', text: original });
    return bodies;
  }
  const trimmed = body.replace(/\s+$/, '');
  if (trimmed !== body) bodies.push({ kind: 'trimmed', text: trimmed });
  try {
    const compact = JSON.stringify(JSON.parse(body));
    if (compact !== body && compact !== trimmed) bodies.push({ kind: 'compact', text: compact });
  } catch {
    // Not JSON: nothing to compact.
  }
  return bodies;
}

/** What differs between the body as received and the one that was signed. */
function bodyFinding(kind: BodyKind, pasted: string, signed: string, scheme: SignatureScheme): Finding | null {
  if (kind === 'as_pasted') return null;
  const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);
  if (pasted.replace(/\s+$/, '') === signed) {
    return {
      code: 'trailing_newline',
      level: 'error',
      schemes: [scheme],
      message: `The body has ${JSON.stringify(pasted.slice(signed.length))} at its end that was not sent: something (a log line, an editor, a framework) added it. Verify the raw bytes as received.`,
      expected: excerpt(signed),
      received: excerpt(pasted),
    };
  }
  const canonicalPasted = canonicalJson(pasted);
  if (canonicalPasted !== null && canonicalPasted === canonicalJson(signed)) {
    // Same keys in the same order once compacted: only the formatting (whitespace, escaping) differs.
    const sameOrder = JSON.stringify(JSON.parse(pasted)) === JSON.stringify(JSON.parse(signed));
    const differences = sameOrder ? 'whitespace or escaping' : 'key order';
    return {
      code: 'body_reserialized',
      level: 'error',
      schemes: [scheme],
      message: `The body was re-serialized: it holds the same JSON as the one that was signed, but not the same bytes (${differences} differ). Verify the signature over the raw request bytes, before any JSON parser touches them (docs/webhooks.md).`,
      expected: excerpt(signed),
      received: excerpt(pasted),
    };
  }
  return {
    code: 'body_changed',
    level: 'error',
    schemes: [scheme],
    message: 'This is not the body that was signed: its content differs from what the delivery sent.',
    expected: excerpt(signed),
    received: excerpt(pasted),
  };
}

/** Human time: `7 min 12 s`, `3 h 2 min`. */
export function describeSeconds(seconds: number): string {
  const s = Math.abs(Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  if (s < 172_800) return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86_400)} days`;
}

function timestampFinding(parsed: ParsedScheme, now: Date): Finding | null {
  const skew = Math.floor(now.getTime() / 1000) - parsed.timestamp;
  const at = new Date(parsed.timestamp * 1000).toISOString();
  if (skew > TIMESTAMP_TOLERANCE_SECONDS) {
    return {
      code: 'stale_timestamp',
      level: 'error',
      schemes: [parsed.scheme],
      message: `The signature's timestamp (${at}) is ${describeSeconds(skew)} old, past the ${TIMESTAMP_TOLERANCE_SECONDS / 60}-minute tolerance, so a verifier rejects it as a possible replay. Every attempt is signed afresh: check the receiver's clock, and that it verifies a delivery when it arrives rather than from a queue later.`,
      expected: `within ${TIMESTAMP_TOLERANCE_SECONDS} s of ${now.toISOString()}`,
      received: String(parsed.timestamp),
    };
  }
  if (-skew > TIMESTAMP_TOLERANCE_SECONDS) {
    return {
      code: 'future_timestamp',
      level: 'error',
      schemes: [parsed.scheme],
      message: `The signature's timestamp (${at}) is ${describeSeconds(skew)} in the future, past the ${TIMESTAMP_TOLERANCE_SECONDS / 60}-minute tolerance: one of the two clocks is wrong (set both by NTP).`,
      expected: `within ${TIMESTAMP_TOLERANCE_SECONDS} s of ${now.toISOString()}`,
      received: String(parsed.timestamp),
    };
  }
  return null;
}

/** What the secret that signed says: right, someone else's, the previous one during or after its grace. */
function secretFinding(match: Candidate, input: SignatureCheckInput, scheme: SignatureScheme): Finding {
  const schemes = [scheme];
  const previous = input.secrets.previous;
  const pastedIs = (role: SecretRole) =>
    input.secret !== undefined && (role === 'current' ? input.secret === input.secrets.current : input.secret === previous?.secret);
  const previousInGrace = previous !== null && previous.expiresAt.getTime() > input.now.getTime();
  const pastedIsExpiredPrevious = pastedIs('previous') && !previousInGrace && !pastedIs('current');
  if (input.secret !== undefined && !match.roles.includes('pasted')) {
    if (pastedIsExpiredPrevious) {
      return {
        code: 'previous_secret_expired',
        level: 'error',
        schemes,
        message: `The secret you verify with is this endpoint's previous secret: it stopped signing at ${previous!.expiresAt.toISOString()}, when the rotation's grace period ended, so deliveries since carry only the current secret's signature. Use the secret the rotation returned.`,
        expected: secretFingerprint(input.secrets.current),
        received: secretFingerprint(input.secret),
      };
    }
    if (pastedIs('current') && match.roles.includes('previous')) {
      return {
        code: 'previous_secret',
        level: 'warning',
        schemes,
        message: 'This delivery was signed before the rotation, with the previous secret only; your secret (the current one) verifies deliveries made since.',
      };
    }
    return {
      code: 'wrong_secret',
      level: 'error',
      schemes,
      message: `The secret you verify with does not sign this delivery${pastedIs('previous') ? '' : ', and it is not one of this endpoint’s'}; the endpoint's ${match.roles.includes('current') ? 'current' : 'previous'} secret does. Copy the secret again (it is shown once, when the endpoint is made or its secret rotated), or rotate it.`,
      expected: secretFingerprint(match.roles.includes('current') ? input.secrets.current : previous!.secret),
      received: secretFingerprint(input.secret),
    };
  }
  const isPrevious = match.roles.includes('previous') && !match.roles.includes('current');
  if (isPrevious && previous) {
    if (previousInGrace) {
      return {
        code: 'previous_secret',
        level: 'warning',
        schemes,
        message: `Signed with this endpoint's previous secret, which keeps signing beside the current one until ${previous.expiresAt.toISOString()} (the rotation's grace period). Check every v1 signature of the header, not only the first, and switch to the current secret before then.`,
      };
    }
    return {
      code: 'previous_secret_expired',
      level: 'error',
      schemes,
      message: `Signed with this endpoint's previous secret, which stopped signing at ${previous.expiresAt.toISOString()}: deliveries since carry only the current secret's signature. Use the secret the rotation returned.`,
    };
  }
  return { code: 'valid', level: 'ok', schemes, message: 'The signature is valid for this body with this endpoint’s current secret.' };
}

function checkScheme(parsed: ParsedScheme, input: SignatureCheckInput, candidates: Candidate[]): Finding[] {
  const bodies = bodiesToTry(input.body, input.original);
  const findings: Finding[] = [];
  let matched: { candidate: Candidate; derivation: Derivation; kind: BodyKind; text: string } | null = null;
  search: for (const derivation of ['correct', 'mistaken'] as const) {
    for (const body of bodies) {
      for (const candidate of candidates) {
        if (signs(parsed, keyFor(parsed.scheme, candidate.secret, derivation), body.text)) {
          matched = { candidate, derivation, kind: body.kind, text: body.text };
          break search;
        }
      }
    }
  }
  if (!matched) {
    const differs = input.original != null && input.original !== input.body;
    findings.push({
      code: 'unknown_signer',
      level: 'error',
      schemes: [parsed.scheme],
      message: `No secret this endpoint has (current or previous)${input.secret !== undefined ? ', nor the one you pasted,' : ''} signs this body with these headers${differs ? ', nor the body the delivery sent' : ''}. Was it sent to another endpoint, or by another appliance, or was a header edited?`,
      ...(input.secret !== undefined && {
        expected: display(parsed, hmac(keyFor(parsed.scheme, input.secret, 'correct'), parsed.signed(input.body))),
        received: 'the header’s signatures',
      }),
    });
  } else {
    const body = bodyFinding(matched.kind, input.body, matched.text, parsed.scheme);
    if (body) findings.push(body);
    if (matched.derivation === 'mistaken') {
      const pasted = matched.candidate.roles.includes('pasted');
      // The right signature is shown only for a secret the caller gave: never an oracle for the endpoint's own.
      const expected = pasted ? { expected: display(parsed, hmac(keyFor(parsed.scheme, input.secret!, 'correct'), parsed.signed(matched.text))) } : {};
      findings.push(
        parsed.scheme === 'standard-webhooks'
          ? {
              code: 'whsec_string_as_key',
              level: 'error',
              schemes: [parsed.scheme],
              message:
                'This webhook-signature was computed with the whole `whsec_…` string as the HMAC key. Standard Webhooks uses the bytes that the part after `whsec_` decodes to from base64.',
              ...expected,
            }
          : {
              code: 'decoded_key_as_service_key',
              level: 'error',
              schemes: [parsed.scheme],
              message:
                'This X-Service-Signature was computed with the base64-decoded secret as the HMAC key. X-Service-Signature uses the whole secret string, `whsec_` included, as UTF-8.',
              ...expected,
            },
      );
    }
    const secret = secretFinding(matched.candidate, input, parsed.scheme);
    if (secret.code !== 'valid' || findings.length === 0) findings.push(secret);
  }
  const time = timestampFinding(parsed, input.now);
  if (time) findings.push(time);
  return findings;
}

/** Findings in this order (`valid` last); the verdict is the first error, else the first warning, else valid. */
const ORDER: readonly FindingCode[] = [...FINDING_CODES.filter((code) => code !== 'valid'), 'valid'];

export function checkSignature(input: SignatureCheckInput): SignatureCheckResult {
  const schemes = [parseServiceHeader(input.headers), parseStandardHeaders(input.headers)].filter((parse): parse is NonNullable<SchemeParse> => parse !== null);
  const findings: Finding[] = [];
  if (schemes.length === 0) {
    findings.push({
      code: 'no_signature_header',
      level: 'error',
      schemes: [],
      message:
        'No signature header was found: paste the request headers including X-Service-Signature, or webhook-id, webhook-timestamp and webhook-signature. A proxy in front of the receiver may be dropping them.',
    });
  }
  const candidates: Candidate[] = [];
  const add = (secret: string, role: SecretRole) => {
    const known = candidates.find((candidate) => candidate.secret === secret);
    if (known) known.roles.push(role);
    else candidates.push({ secret, roles: [role] });
  };
  if (input.secret !== undefined) add(input.secret, 'pasted');
  add(input.secrets.current, 'current');
  if (input.secrets.previous) add(input.secrets.previous.secret, 'previous');
  if (input.secret !== undefined && !/^whsec_[A-Za-z0-9+/]{32}$/.test(input.secret)) {
    findings.push({
      code: 'secret_format',
      level: 'warning',
      schemes: [],
      message: 'The secret you pasted does not look like one of ours (`whsec_` and 32 base64 characters): was it cut short, or does it carry spaces or quotes?',
    });
  }
  for (const parse of schemes) {
    if (!parse.ok) {
      findings.push({
        code: 'malformed_header',
        level: 'error',
        schemes: [parse.scheme],
        message: parse.message,
        ...(parse.received !== undefined && { received: parse.received }),
      });
    } else findings.push(...checkScheme(parse.parsed, input, candidates));
  }
  // One finding per code and message, naming every scheme it concerns.
  const merged: Finding[] = [];
  for (const finding of findings) {
    const same = merged.find((known) => known.code === finding.code && known.message === finding.message);
    if (same) same.schemes.push(...finding.schemes.filter((scheme) => !same.schemes.includes(scheme)));
    else merged.push({ ...finding, schemes: [...finding.schemes] });
  }
  merged.sort((a, b) => ORDER.indexOf(a.code) - ORDER.indexOf(b.code));
  const worst = merged.find((finding) => finding.level === 'error') ?? merged.find((finding) => finding.level === 'warning');
  return { verdict: worst?.code ?? 'valid', findings: merged };
}
