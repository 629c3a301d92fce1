import { Op, Sequelize } from 'sequelize';
import type { Database } from '../db/index.js';
import type { Tenant, TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import { retentionCutoff, type EventRow } from '../models/event.js';
import type { DeliveryStatus, EndpointStatus, WebhookDeliveryRow } from '../models/webhook.js';
import { matchesPattern } from './patterns.js';
import { RESPONSE_BODY_LIMIT } from './sender.js';

/**
 * The delivery state machine (docs/api.md#webhooks-and-events, docs/decisions/webhooks.md), kept
 * in the table: a delivery is a row before it is a request, and every step is a conditional
 * write, so a crash at any point leaves a row the next run can pick up.
 *
 *   pending ─claim→ delivering ─2xx→ succeeded
 *                     │ non-2xx, timeout, redirect, connection or private-host error
 *                     ├→ failed (next_attempt_at = now + schedule[n-1]) ─claim→ delivering …
 *                     └→ dead (attempt schedule.length + 1 failed, or the receiver answered 410)
 */

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'dead'] as const satisfies readonly DeliveryStatus[];

/** Failed attempts in a row (over all of an endpoint's deliveries) that disable the endpoint. */
export const MAX_CONSECUTIVE_FAILURES = 30;

/** `disabled_reason` values the engine writes. */
export const DISABLED_TOO_MANY_FAILURES = 'too_many_failures';
/** The receiver answered 410 Gone: it told us the endpoint no longer exists. */
export const DISABLED_GONE = 'gone';

/** Attempts in total: the first plus one per gap of the schedule (six with the default five gaps). */
export const maxAttempts = (schedule: readonly number[]) => schedule.length + 1;

/** The event JSON a delivery sends, as stored in `payload`. */
export interface WebhookPayload {
  id: string;
  type: string;
  created_at: string;
  institution_id: string;
  /** `sandbox` for events of an institution's sandbox (docs/decisions/sandbox.md); absent on deliveries stored before it existed, which were live. */
  environment?: 'live' | 'sandbox';
  data: Record<string, unknown>;
}

/** Which environment a tenant's events belong to: its institution is a sandbox or it is live. */
export async function environmentOf(tenant: Tenant): Promise<'live' | 'sandbox'> {
  return (await tenant.institution()).sandbox_of ? 'sandbox' : 'live';
}

/** Endpoint states that receive new deliveries; a paused endpoint's rows wait until it is active. */
const SUBSCRIBED_STATES: EndpointStatus[] = ['active', 'paused'];

/**
 * In the events' own transaction: one pending delivery per subscribed endpoint whose patterns
 * match each event's type, all in one INSERT. The payload is exactly the event JSON that is sent,
 * so a replay or a retry sends the same bytes (signed afresh). Disabled endpoints get nothing.
 * A delivery is created at its event's `created_at`, so deliveries due together are claimed in
 * the order of their events.
 */
export async function createDeliveriesForEvents(tx: TenantTx, events: readonly EventRow[], now: Date): Promise<WebhookDeliveryRow[]> {
  const endpoints = await tx.webhookEndpoints.findAll({
    attributes: ['id', 'events'],
    where: { status: { [Op.in]: SUBSCRIBED_STATES } },
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  if (endpoints.length === 0) return [];
  const environment = await environmentOf(tx);
  const rows = events.flatMap((event) => {
    const subscribed = endpoints.filter((endpoint) => endpoint.events.some((pattern) => matchesPattern(pattern, event.type)));
    if (subscribed.length === 0) return [];
    const payload = {
      id: event.id,
      type: event.type,
      created_at: event.created_at.toISOString(),
      institution_id: event.institution_id,
      environment,
      data: event.data,
    } satisfies WebhookPayload;
    return subscribed.map((endpoint) => ({
      id: newId('dlv'),
      endpoint_id: endpoint.id,
      event_id: event.id,
      event_type: event.type,
      payload,
      status: 'pending' as const,
      attempt_count: 0,
      next_attempt_at: now,
      last_attempt_at: null,
      response_status: null,
      response_time_ms: null,
      response_body: null,
      replay_of: null,
      created_at: event.created_at,
    }));
  });
  return rows.length === 0 ? [] : tx.webhookDeliveries.bulkCreate(rows);
}

/** At most `limit` bytes of UTF-8, never ending in half a character. */
export function firstBytes(text: string | null, limit = RESPONSE_BODY_LIMIT): string | null {
  if (text === null) return null;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  // Back up to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Retention: deliveries created more than RETENTION_DAYS ago, whatever their state, with their
 * attempts, for every institution. Returns how many deliveries went.
 */
export async function pruneDeliveries(db: Database, now = Date.now()): Promise<{ deliveries: number; attempts: number }> {
  const cutoff = retentionCutoff(now);
  const { WebhookAttempt, WebhookDelivery } = db.models;
  return db.sequelize.transaction(async (transaction) => {
    // Attempts first and explicitly: the schema cascades too, but this does not depend on the foreign-keys pragma.
    const attempts = await WebhookAttempt.destroy({
      where: { delivery_id: { [Op.in]: Sequelize.literal(`(SELECT id FROM webhook_deliveries WHERE created_at < ${db.sequelize.escape(cutoff)})`) } },
      transaction,
    });
    const deliveries = await WebhookDelivery.destroy({ where: { created_at: { [Op.lt]: cutoff } }, transaction });
    return { deliveries, attempts };
  });
}
