import { MAX_REPLAY_SINCE } from '../../commands/webhooks/debugging.js';
import { EVENT_TYPES, type EventType } from '../../events/catalog.js';
import { isoDateTime } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { FINDING_CODES, TIMESTAMP_TOLERANCE_SECONDS } from '../../webhooks/signature-check.js';

const ENDPOINT_ID = 'whe_8Tq3mLx7Kw2Pz9Rb4Nc1Vd6Y';
const DELIVERY_ID = 'dlv_3Fq8mKx2Lw7Pz1Rb9Tn4Vc6Y';

export const replaySinceBody = z
  .strictObject({
    since: isoDateTime.openapi({ description: 'Deliveries created at or after this time (ISO 8601 with an offset).' }),
    status: z.enum(['dead', 'failed']).default('dead').openapi({
      description:
        '`dead` (the default): deliveries whose attempts are exhausted. `failed`: deliveries waiting for a retry, sent again now instead of at `next_attempt_at`.',
    }),
    dry_run: z.boolean().default(false).openapi({ description: 'Count what would be replayed without replaying it.' }),
  })
  .openapi('WebhookReplaySince');

export const replaySinceResponse = z
  .object({
    replayed: z.number().int().openapi({ description: 'Replays created now (on a dry run: that would be).', example: 42 }),
    already_replayed: z
      .number()
      .int()
      .openapi({ description: 'Matching deliveries skipped because they have a replay already: each delivery is replayed once.', example: 3 }),
    beyond_limit: z
      .number()
      .int()
      .openapi({ description: `Matching deliveries left for another call: at most ${MAX_REPLAY_SINCE} are replayed per call, oldest first.`, example: 0 }),
    limit: z.number().int().openapi({ example: MAX_REPLAY_SINCE }),
    dry_run: z.boolean(),
    delivery_ids: z.array(z.string()).openapi({ description: 'The replays created, oldest original first (empty on a dry run).', example: [DELIVERY_ID] }),
  })
  .openapi('WebhookReplaySinceResult');

const eventTypes = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];

export const sendExampleBody = z
  .strictObject({
    type: z.enum(eventTypes).openapi({ description: 'An event type of `GET /events/types`.', example: 'exam.graded' }),
  })
  .openapi('WebhookExampleRequest');

// ---------------------------------------------------------------------------------------------
// Portal-only: the signature checker and copy as curl.

const institutionId = z.string().min(1).max(40).openapi({ description: 'Institution id.', example: 'ins_4Jd8sKq2Lm7Np3Rt9Vb1Xc6Z' });

export const checkerParams = z.strictObject({
  id: institutionId,
  endpointId: z.string().min(1).max(320).openapi({ description: 'Webhook endpoint id.', example: ENDPOINT_ID }),
});

export const curlParams = z.strictObject({
  id: institutionId,
  deliveryId: z.string().min(1).max(320).openapi({ description: 'Webhook delivery id.', example: DELIVERY_ID }),
});

export const signatureCheckBody = z
  .strictObject({
    body: z.string().max(60_000).openapi({ description: 'The raw request body as the receiver got it.' }),
    headers: z
      .string()
      .max(16_000)
      .openapi({ description: 'The request headers as logged: `Name: value` lines, or a JSON object.', example: 'X-Service-Signature: t=1789372800,v1=5f0c…' }),
    secret: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((value) => (value === '' ? undefined : value))
      .openapi({ description: 'The secret the receiver verifies with; never stored or logged.' }),
  })
  .openapi('WebhookSignatureCheck');

const findingSchema = z.object({
  code: z.enum(FINDING_CODES),
  level: z.enum(['ok', 'warning', 'error']),
  schemes: z.array(z.enum(['x-service-signature', 'standard-webhooks'])),
  message: z.string(),
  expected: z.string().optional(),
  received: z.string().optional(),
});

export const signatureCheckResponse = z
  .object({
    verdict: z.enum(FINDING_CODES).openapi({ description: 'The first error found (else warning, else `valid`).' }),
    findings: z.array(findingSchema),
    delivery_id: z.string().nullable().openapi({ description: "The endpoint's delivery the headers name, whose sent body was compared; null when none." }),
    tolerance_seconds: z.number().int().openapi({ example: TIMESTAMP_TOLERANCE_SECONDS }),
  })
  .openapi('WebhookSignatureCheckResult');

export const curlResponse = z
  .object({
    command: z.string(),
    timestamp: z.number().int().openapi({ description: 'The signature timestamp: when the command was made, not when the attempts were.' }),
    url: z.string(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })),
    body: z.string(),
  })
  .openapi('WebhookDeliveryCurl');
