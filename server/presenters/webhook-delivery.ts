import type { WebhookAttemptRow, WebhookDeliveryRow } from '../models/webhook.js';
import type { WebhookPayload } from '../webhooks/deliveries.js';
import { iso } from './common.js';

/** The Delivery object of contract §5; the payload only in the single GET. */
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
  return { at: row.at.toISOString(), response_status: row.response_status, error: row.error, response_time_ms: row.response_time_ms };
}

/** GET /webhooks/deliveries/{id}: the delivery, the event JSON it sends, and every attempt, oldest first. */
export function presentWebhookDeliveryDetail({ delivery, attempts }: { delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }) {
  const sent = delivery.payload as unknown as WebhookPayload;
  const payload = { id: sent.id, type: sent.type, created_at: sent.created_at, institution_id: sent.institution_id, data: sent.data };
  return { ...presentWebhookDelivery(delivery), payload, attempts: attempts.map(presentWebhookAttempt) };
}
