import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import type { EventType } from '../../events/catalog.js';
import { exampleEventData } from '../../events/examples.js';
import { newId } from '../../ids.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../models/webhook.js';
import { curlCommand } from '../../webhooks/curl.js';
import { environmentOf } from '../../webhooks/deliveries.js';
import { endpointSecrets } from '../../webhooks/secrets.js';
import { checkSignature, type SignatureCheckResult } from '../../webhooks/signature-check.js';
import { parseHeaders } from '../../webhooks/signature-headers.js';
import { signatureHeaders } from '../../webhooks/signing.js';
import { findDelivery } from './deliveries.js';
import { findEndpoint } from './endpoints.js';

// Webhook debugging (docs/webhooks.md#debugging-a-webhook-integration): copy as curl, the
// signature checker, replay-since and send-an-example, on the same rows the engine sends from.

/** Replays made by one replay-since call, at most; the rest are counted in `beyond_limit`. */
export const MAX_REPLAY_SINCE = 1000;

const requireActive = (endpoint: WebhookEndpointRow, what: string) => {
  if (endpoint.status !== 'active') {
    throw new AppError('endpoint_inactive', `The endpoint is ${endpoint.status}; set its status to active before ${what}.`);
  }
};

/** The endpoint's secrets as the checker needs them: current, and the previous one with the end of its grace, expired or not. */
function knownSecrets(tenant: Tenant, endpoint: WebhookEndpointRow) {
  // endpointSecrets opens what is valid at a moment: at the start of time every stored secret is.
  const [current, previous] = endpointSecrets(tenant, endpoint, new Date(0));
  return {
    current: current!,
    previous: previous !== undefined && endpoint.previous_secret_expires_at ? { secret: previous, expiresAt: endpoint.previous_secret_expires_at } : null,
  };
}

export interface SignatureCheckRequest {
  body: string;
  headers: string;
  secret?: string;
}

/**
 * The checker on one endpoint: its secrets, and the body that the delivery named by the pasted
 * headers (X-Service-Delivery-Id, else the event id) really sent, when it is one of this endpoint's.
 */
export async function checkEndpointSignature(
  tenant: Tenant,
  endpointId: string,
  request: SignatureCheckRequest,
  now = new Date(),
): Promise<SignatureCheckResult & { delivery_id: string | null }> {
  const endpoint = await findEndpoint(tenant, endpointId);
  const headers = parseHeaders(request.headers);
  const deliveryId = headers['x-service-delivery-id'];
  const eventId = headers['webhook-id'] ?? headers['x-service-event-id'];
  let delivery: WebhookDeliveryRow | null = null;
  if (deliveryId) delivery = await tenant.webhookDeliveries.findOne({ where: { id: deliveryId, endpoint_id: endpoint.id } });
  if (!delivery && eventId) {
    delivery = await tenant.webhookDeliveries.findOne({
      where: { event_id: eventId, endpoint_id: endpoint.id },
      order: [
        ['created_at', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }
  const result = checkSignature({
    body: request.body,
    headers,
    secret: request.secret,
    secrets: knownSecrets(tenant, endpoint),
    original: delivery ? JSON.stringify(delivery.payload) : null,
    now,
  });
  return { ...result, delivery_id: delivery?.id ?? null };
}

export interface ReplaySinceRequest {
  since: Date;
  /** `dead` (attempts exhausted; the default) or `failed` (a retry is scheduled: replaying sends it now). */
  status: 'dead' | 'failed';
  dry_run: boolean;
}

export interface ReplaySinceResult {
  /** Replays created (or, on a dry run, that would be). */
  replayed: number;
  /** Matching deliveries skipped because a replay of them exists already. */
  already_replayed: number;
  /** Matching deliveries left for another call, beyond MAX_REPLAY_SINCE. */
  beyond_limit: number;
  limit: number;
  dry_run: boolean;
  delivery_ids: string[];
}

/**
 * Replays every delivery of the endpoint with `status` created at or after `since`, oldest first,
 * at most MAX_REPLAY_SINCE per call. Each delivery is replayed once: one that has a replay already
 * (by this or by a single replay) is skipped, so calling again replays only what failed since; a
 * replay that failed in turn is a delivery like the others and is replayed by a later call.
 * Replays are made as the single replay makes them (`replay_of`, signed when sent).
 */
export async function replayFailedSince(tenant: Tenant, endpointId: string, request: ReplaySinceRequest, now = new Date()): Promise<ReplaySinceResult> {
  return tenant.inTransaction(async (tx) => {
    const endpoint = await findEndpoint(tx, endpointId);
    requireActive(endpoint, 'replaying');
    const since = { [Op.gte]: request.since };
    const matching = await tx.webhookDeliveries.findAll({
      attributes: ['id'],
      where: { endpoint_id: endpoint.id, status: request.status, created_at: since },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    // A replay is made after what it replays, so the replays of these are all created since `since` too.
    const replays = await tx.webhookDeliveries.findAll({
      attributes: ['replay_of'],
      where: { endpoint_id: endpoint.id, replay_of: { [Op.ne]: null }, created_at: since },
    });
    const replayed = new Set(replays.map((row) => row.replay_of));
    const eligible = matching.filter((row) => !replayed.has(row.id));
    const chosen = eligible.slice(0, MAX_REPLAY_SINCE).map((row) => row.id);
    let ids: string[] = [];
    if (!request.dry_run && chosen.length > 0) {
      const originals = await tx.webhookDeliveries.findAll({ where: { id: { [Op.in]: chosen } } });
      const byId = new Map(originals.map((row) => [row.id, row]));
      const rows = chosen.map((id) => {
        const original = byId.get(id)!;
        return {
          // Derived from the original: a second replay-since of it could not be written even by a racing call.
          id: `dlv_${tx.fieldCrypto.blindIndex(original.id, `webhook_deliveries.replay_since:${tx.institutionId}`).slice(0, 24)}`,
          endpoint_id: original.endpoint_id,
          event_id: original.event_id,
          event_type: original.event_type,
          payload: original.payload,
          status: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: now,
          last_attempt_at: null,
          response_status: null,
          response_time_ms: null,
          response_body: null,
          replay_of: original.id,
        };
      });
      ids = (await tx.webhookDeliveries.bulkCreate(rows)).map((row) => row.id);
    }
    return {
      replayed: chosen.length,
      already_replayed: matching.length - eligible.length,
      beyond_limit: eligible.length - chosen.length,
      limit: MAX_REPLAY_SINCE,
      dry_run: request.dry_run,
      delivery_ids: ids,
    };
  });
}

/**
 * A normal delivery (a row, signed when sent, retried, in the log) of a realistic sample event of
 * `type` to the endpoint, whatever it subscribes to. Its payload carries `"example": true` beside
 * the usual fields, inside what is signed, so a receiver can tell it from a real event. No event
 * row is written: other endpoints and the events feed never see it.
 */
export async function sendExampleEvent(tenant: Tenant, endpointId: string, type: EventType, now = new Date()): Promise<WebhookDeliveryRow> {
  return tenant.inTransaction(async (tx) => {
    const endpoint = await findEndpoint(tx, endpointId);
    requireActive(endpoint, 'sending an example');
    const eventId = newId('evt');
    // The event JSON of server/webhooks/deliveries.ts (WebhookPayload), plus the example mark.
    const payload = {
      id: eventId,
      type,
      created_at: now.toISOString(),
      institution_id: tx.institutionId,
      environment: await environmentOf(tx),
      data: exampleEventData(type, now),
      example: true as const,
    };
    return tx.webhookDeliveries.create({
      id: newId('dlv'),
      endpoint_id: endpoint.id,
      event_id: eventId,
      event_type: type,
      payload,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: now,
      last_attempt_at: null,
      response_status: null,
      response_time_ms: null,
      response_body: null,
      replay_of: null,
    });
  });
}

export interface DeliveryCurl {
  command: string;
  /** The signature timestamp of the command: now, not the attempts' (their headers are not stored). */
  timestamp: number;
  url: string;
  headers: Array<{ name: string; value: string }>;
  body: string;
}

/**
 * The delivery as a curl command that sends what an attempt sends: the same body bytes and ids,
 * signed now with the secrets valid now (an attempt's own signatures are not stored, and would be
 * past the 5-minute tolerance anyway). Receivers idempotent on the event id treat it as a repeat.
 */
export async function deliveryAsCurl(tenant: Tenant, deliveryId: string, now = new Date()): Promise<DeliveryCurl> {
  const delivery = await findDelivery(tenant, deliveryId);
  const endpoint = await findEndpoint(tenant, delivery.endpoint_id);
  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(now.getTime() / 1000);
  const signed = signatureHeaders(endpointSecrets(tenant, endpoint, now), delivery.event_id, body, timestamp);
  const headers = [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'User-Agent', value: 'CampusBridge-Webhooks/1' },
    { name: 'X-Service-Event-Id', value: delivery.event_id },
    { name: 'X-Service-Delivery-Id', value: delivery.id },
    ...Object.entries(signed).map(([name, value]) => ({ name, value })),
  ];
  return { command: curlCommand({ url: endpoint.url, headers, body }), timestamp, url: endpoint.url, headers, body };
}
