import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ParsedScheme, SignatureScheme } from './signature-headers.js';
import type { Finding, SignatureCheckInput } from './signature-check.js';

// The keys and bodies the checker tries, and what each match or mismatch tells the integrator.

/** Receivers reject signatures older (or further in the future) than this (docs/api.md#signatures). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

// ---------------------------------------------------------------------------------------------
// Keys and bodies tried

export type SecretRole = 'pasted' | 'current' | 'previous';
export type Derivation = 'correct' | 'mistaken';

export interface Candidate {
  secret: string;
  roles: SecretRole[];
}

/** The HMAC key a scheme uses for a secret, or the key of the usual mistake for it. */
export function keyFor(scheme: SignatureScheme, secret: string, derivation: Derivation): Buffer {
  const decoded = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const whole = Buffer.from(secret, 'utf8');
  const serviceKey = derivation === 'correct';
  return scheme === 'x-service-signature' ? (serviceKey ? whole : decoded) : serviceKey ? decoded : whole;
}

export const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
export const signs = (parsed: ParsedScheme, key: Buffer, body: string) => {
  const expected = hmac(key, parsed.signed(body));
  return parsed.signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
};
export const display = (parsed: ParsedScheme, digest: Buffer) =>
  parsed.scheme === 'x-service-signature' ? `v1=${digest.toString('hex')}` : `v1,${digest.toString('base64')}`;

/** A short, safe name for a secret: the first 8 hex digits of its SHA-256 (24 random bytes cannot be guessed from it). */
export const secretFingerprint = (secret: string) => `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}`;

/** JSON with sorted keys and no whitespace: two serializations of one value compare equal. */
export function canonicalJson(text: string): string | null {
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

export type BodyKind = 'as_pasted' | 'original' | 'trimmed' | 'compact';

/** The bodies tried: the pasted one, then the one the delivery sent (or, unknown, the pasted one trimmed and compacted). */
export function bodiesToTry(body: string, original: string | null | undefined): Array<{ kind: BodyKind; text: string }> {
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
export function bodyFinding(kind: BodyKind, pasted: string, signed: string, scheme: SignatureScheme): Finding | null {
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

export function timestampFinding(parsed: ParsedScheme, now: Date): Finding | null {
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
export function secretFinding(match: Candidate, input: SignatureCheckInput, scheme: SignatureScheme): Finding {
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
