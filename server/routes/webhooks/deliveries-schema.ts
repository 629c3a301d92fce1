import { sortQuery } from '../../validation/sort.js';
import { isEventPattern } from '../../webhooks/patterns.js';
import { idParam, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { DELIVERY_STATUSES } from '../../webhooks/deliveries.js';

const DELIVERY_ID = 'dlv_3Fq8mKx2Lw7Pz1Rb9Tn4Vc6Y';
const ENDPOINT_ID = 'whe_8Tq3mLx7Kw2Pz9Rb4Nc1Vd6Y';
const EVENT_ID = 'evt_9Kd2mXq7Lw3Pz8Rb1Tn5Vc4Y';

const deliveryStatus = z.enum(DELIVERY_STATUSES).openapi({
  description:
    '`pending` (waiting for its first attempt, or for a paused endpoint or suspended institution), `delivering` (a request is in flight), `succeeded` (a 2xx came back), `failed` (a retry is scheduled at `next_attempt_at`), `dead` (six attempts failed, or the receiver answered 410).',
});

export const listDeliveriesQuery = z.strictObject({
  endpoint_id: z.string().min(1).max(320).optional().openapi({ description: 'Only deliveries to this endpoint.', example: ENDPOINT_ID }),
  status: deliveryStatus.optional(),
  event_type: z
    .string()
    .max(120)
    .refine(isEventPattern, 'Use "*", a family such as "exam.*", or an exact type such as "exam.graded".')
    .optional()
    .openapi({ description: 'An exact event type, a family such as `exam.*`, or `*`.', example: 'exam.*' }),
  sort: sortQuery(['created_at'], 'newest first (`-created_at`)'),
  ...pageQuery,
});

export const deliverySchema = z
  .object({
    id: z.string().openapi({ example: DELIVERY_ID }),
    endpoint_id: z.string().openapi({ example: ENDPOINT_ID }),
    event_id: z.string().openapi({ description: 'Also sent as `X-Service-Event-Id`; receivers are idempotent on it.', example: EVENT_ID }),
    event_type: z.string().openapi({ example: 'exam.graded' }),
    status: deliveryStatus,
    attempt_count: z.number().int().openapi({ description: 'Attempts made, at most six.', example: 1 }),
    next_attempt_at: timestamp.nullable().openapi({ description: 'When the next attempt is due; null once succeeded or dead.' }),
    last_attempt_at: timestamp.nullable().openapi({ description: 'When the latest attempt started.' }),
    response_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "HTTP status of the receiver's latest answer; null when none came (timeout, connection error).", example: 202 }),
    response_time_ms: z.number().int().nullable().openapi({ example: 84 }),
    response_body: z.string().nullable().openapi({ description: "First 2048 bytes of the receiver's latest answer.", example: '{"received":true}' }),
    replay_of: z.string().nullable().openapi({ description: 'On a replay: the delivery it replays.', example: null }),
    created_at: timestamp,
  })
  .openapi('WebhookDelivery');

const payloadSchema = z
  .object({
    id: z.string().openapi({ example: EVENT_ID }),
    type: z.string().openapi({ example: 'exam.graded' }),
    created_at: timestamp,
    institution_id: z.string().openapi({ example: 'inst_5Hc2kR8xLq3Wz7Pb1Nm9Vt4Y' }),
    environment: z.enum(['live', 'sandbox']).optional().openapi({
      description: "`sandbox` for an event of the institution's sandbox; absent only on deliveries stored before sandboxes existed (live).",
      example: 'live',
    }),
    data: z.record(z.string(), z.unknown()).openapi({ example: { submission_id: 'sub_3Jx8', exam_id: 'exm_7Qa2', student_id: 'stu_1Lm4', score: 87 } }),
    example: z
      .literal(true)
      .optional()
      .openapi({ description: 'Present (`true`) only on a sample event sent by "send an example"; its ids name no real record.' }),
  })
  .openapi('WebhookPayload', { description: 'The event JSON, exactly as POSTed to the receiver.' });

const attemptSchema = z
  .object({
    at: timestamp.openapi({ description: 'When the attempt started.' }),
    response_status: z.number().int().nullable().openapi({ example: 500 }),
    error: z.string().nullable().openapi({
      description:
        'Why it failed when no 2xx came back: `http_<status>`, `redirect`, `timeout`, `connection_error: <code>`, `private_host`, `https_required`, `dns_error`, or `send_error` (the request could not be prepared; see the log); null on success.',
      example: 'http_500',
    }),
    response_time_ms: z.number().int().nullable().openapi({ example: 112 }),
    response_body: z.string().nullable().openapi({ description: "The receiver's answer to this attempt, first 2048 bytes.", example: 'ok' }),
  })
  .openapi('WebhookAttempt');

const requestHeaderSchema = z.object({ name: z.string(), value: z.string() }).openapi('WebhookRequestHeader');

export const deliveryDetailSchema = deliverySchema
  .extend({
    payload: payloadSchema,
    attempts: z.array(attemptSchema).openapi({ description: 'Every attempt, oldest first.' }),
    request_headers: z.array(requestHeaderSchema).openapi({
      description: "The headers every attempt sends. Signatures depend on the attempt's time and the secrets valid then, so they are described, not stored.",
    }),
  })
  .openapi('WebhookDeliveryDetail');

export const deliveryPage = pageOf(deliverySchema);
export const deliveryParams = idParam('Delivery id.', DELIVERY_ID);

export const replayDeliveryBody = z
  .strictObject({
    ref: z.string().trim().min(1).max(100).optional().openapi({
      description:
        'Makes the replay idempotent: the same `ref` again answers the replay it made, with `replayed: true`, and sends nothing more; the same `ref` for another delivery is `409 conflict`.',
      example: 'lms-resync-2026-09-14',
    }),
  })
  .openapi('WebhookDeliveryReplay');

export const replayDeliveryResponse = deliverySchema
  .extend({ replayed: z.boolean().openapi({ description: 'true when `ref` was used before: this is the replay it made then.' }) })
  .openapi('WebhookDeliveryReplayed');
