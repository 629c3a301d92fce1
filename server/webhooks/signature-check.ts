import { parseServiceHeader, parseStandardHeaders, type ParsedScheme, type SchemeParse, type SignatureScheme } from './signature-headers.js';

import {
  bodiesToTry,
  bodyFinding,
  display,
  hmac,
  keyFor,
  secretFinding,
  signs,
  timestampFinding,
  type BodyKind,
  type Candidate,
  type Derivation,
  type SecretRole,
} from './signature-findings.js';

export type { SignatureScheme } from './signature-headers.js';
export { describeSeconds, secretFingerprint, TIMESTAMP_TOLERANCE_SECONDS } from './signature-findings.js';

/**
 * The signature checker (docs/webhooks.md#debugging-a-webhook-integration): given a body and
 * headers as an integrator pasted them from their logs, and optionally the secret they verify
 * with, it says exactly why their check fails. Pure: the secrets of the endpoint and the body the
 * delivery really sent are passed in, so every diagnosis is tested without a server. It never
 * returns a secret, nor a signature made with one of the endpoint's secrets over a pasted body
 * (that would be a signing oracle); expected signatures are shown only for the pasted secret.
 */

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
