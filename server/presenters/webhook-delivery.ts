import type { WebhookAttemptRow, WebhookDeliveryRow } from '../models/webhook.js';
import type { WebhookPayload } from '../webhooks/deliveries.js';
import { iso } from './common.js';

/** The Delivery object (docs/api.md#webhooks-and-events); the payload only in the single GET. */
export function presentWebhookDelivery(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: iso(row.next_attempt_at),
    last_attempt_at: iso(row.last_attempt_at),
    response_status: row.response_status,
    response_time_ms: row.response_time_ms,
    response_body: row.response_body,
    replay_of: row.replay_of,
    created_at: row.created_at.toISOString(),
  };
}

export function presentWebhookAttempt(row: WebhookAttemptRow) {
  return {
    at: row.at.toISOString(),
    response_status: row.response_status,
    error: row.error,
    response_time_ms: row.response_time_ms,
    response_body: row.response_body,
  };
}

/**
 * The request a delivery makes (see docs/webhooks.md). The headers of each attempt are not
 * stored: the ids are the delivery's own, and the signatures depend on the attempt's time and on
 * the secrets valid then, so they are described rather than invented.
 */
function requestHeaders(delivery: WebhookDeliveryRow) {
  return [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'X-Service-Event-Id', value: delivery.event_id },
    { name: 'X-Service-Delivery-Id', value: delivery.id },
    { name: 'X-Service-Signature', value: 't=<unix seconds of the attempt>,v1=<hex HMAC-SHA256 per valid secret, newest first>' },
    { name: 'webhook-id', value: delivery.event_id },
    { name: 'webhook-timestamp', value: '<unix seconds of the attempt>' },
    { name: 'webhook-signature', value: 'v1,<base64 HMAC-SHA256 per valid secret, space-separated>' },
  ];
}

/** GET /webhooks/deliveries/{id}: the delivery, the event JSON it sends, every attempt (oldest first) and the request headers. */
export function presentWebhookDeliveryDetail({ delivery, attempts }: { delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }) {
  const sent = delivery.payload as unknown as WebhookPayload;
  const payload = {
    id: sent.id,
    type: sent.type,
    created_at: sent.created_at,
    institution_id: sent.institution_id,
    ...(sent.environment ? { environment: sent.environment } : {}),
    data: sent.data,
    // Only on "send an example" deliveries (docs/webhooks.md#debugging-a-webhook-integration).
    ...((sent as { example?: unknown }).example === true ? { example: true as const } : {}),
  };
  return { ...presentWebhookDelivery(delivery), payload, attempts: attempts.map(presentWebhookAttempt), request_headers: requestHeaders(delivery) };
}
