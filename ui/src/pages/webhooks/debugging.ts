import type { z } from 'zod';
import type {
  curlResponse,
  replaySinceBody,
  replaySinceResponse,
  signatureCheckBody,
  signatureCheckResponse,
} from '../../../../server/routes/webhooks/debugging-schema';

/** Webhook debugging's wire types: type-only imports of the server's schemas, as in ./webhooks. */
export type DeliveryCurl = z.input<typeof curlResponse>;
export type ReplaySinceRequest = z.input<typeof replaySinceBody>;
export type ReplaySinceResult = z.input<typeof replaySinceResponse>;
export type SignatureCheckRequest = z.input<typeof signatureCheckBody>;
export type SignatureCheckResult = z.input<typeof signatureCheckResponse>;
export type SignatureFinding = SignatureCheckResult['findings'][number];

/** The checker's verdicts in a few words, for the heading of its answer. */
export const VERDICT_TITLES: Record<SignatureCheckResult['verdict'], string> = {
  valid: 'Valid signature',
  no_signature_header: 'No signature header',
  malformed_header: 'Malformed signature header',
  body_reserialized: 'Re-serialized body',
  trailing_newline: 'Trailing newline in the body',
  body_changed: 'Not the body that was signed',
  whsec_string_as_key: 'Whole whsec_ string used as the key',
  decoded_key_as_service_key: 'Decoded key used for X-Service-Signature',
  wrong_secret: 'Wrong secret',
  previous_secret: 'Signed with the previous secret',
  previous_secret_expired: 'Previous secret has expired',
  unknown_signer: 'Not signed by this endpoint',
  stale_timestamp: 'Stale timestamp',
  future_timestamp: 'Timestamp in the future',
  secret_format: 'Secret does not look like one of ours',
};
