import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import type { Tenant } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { EndpointStatus, WebhookEndpointRow } from '../../models/webhook.js';
import { checkEndpointUrl, type AddressRules } from '../../outbound/address.js';
import { environmentOf } from '../../webhooks/deliveries.js';
import { postWebhook } from '../../webhooks/sender.js';
import { newWebhookSecret, signatureHeaders } from '../../webhooks/signing.js';
import { endpointSecrets, sealSecret } from '../../webhooks/secrets.js';

export const MAX_WEBHOOK_ENDPOINTS = 20;
export const DEFAULT_GRACE_HOURS = 24;
export const MAX_GRACE_HOURS = 168;
/** What a client's `status: 'disabled'` records, so it reads apart from the engine's `too_many_failures`. */
export const DISABLED_BY_USER = 'disabled_by_user';

/** The URL rules of the appliance: the `outbound_private_hosts` setting as it is now, and a resolver tests may replace. */
export type UrlRules = AddressRules;

/** The rules the appliance's settings set now; the API and the portal both check URLs by these. */
export const urlRulesOf = async (db: Database, config: Config): Promise<UrlRules> => ({
  privateHosts: await readApplianceSetting(db, config, 'outbound_private_hosts'),
});

/** The sealing context binds a sealed secret to its row: copied into another row, it does not open. */
export async function findEndpoint(tenant: Tenant, id: string): Promise<WebhookEndpointRow> {
  const endpoint = await tenant.webhookEndpoints.findById(id);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

/** Every endpoint of the institution, oldest first (at most 20, so not paged). */
export function listEndpoints(tenant: Tenant): Promise<WebhookEndpointRow[]> {
  return tenant.webhookEndpoints.findAll({
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

/** A subscription needs at least one pattern (`422 events_required`); repeats are dropped, order kept. */
function subscription(events: readonly string[] | undefined): string[] {
  if (!events || events.length === 0) throw new AppError('events_required', 'A webhook endpoint needs at least one event pattern in `events`.');
  return [...new Set(events)];
}

export interface NewEndpoint {
  url: string;
  description: string;
  events?: readonly string[];
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpointRow;
  /** Shown to the caller once; only its sealed form is stored. */
  secret: string;
}

/**
 * A new endpoint, active, with a fresh signing secret. The URL is checked (and its host resolved)
 * before the write transaction, so a slow DNS answer never holds the database's write lock.
 */
export async function createEndpoint(tenant: Tenant, input: NewEndpoint, rules: UrlRules): Promise<EndpointWithSecret> {
  const events = subscription(input.events);
  await checkEndpointUrl(input.url, rules);
  return tenant.inTransaction(async (tx) => {
    const count = await tx.webhookEndpoints.count();
    if (count >= MAX_WEBHOOK_ENDPOINTS) {
      throw new AppError('endpoint_limit', `An institution can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`);
    }
    const id = newId('whe');
    const secret = newWebhookSecret();
    const endpoint = await tx.webhookEndpoints.create({
      id,
      url: input.url,
      description: input.description,
      events,
      status: 'active',
      disabled_reason: null,
      consecutive_failures: 0,
      secret_sealed: sealSecret(tx, id, secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
    });
    return { endpoint, secret };
  });
}

export interface EndpointPatch {
  url?: string;
  description?: string;
  events?: readonly string[];
  status?: EndpointStatus;
}

type StatusFields = Pick<WebhookEndpointRow, 'status' | 'disabled_reason' | 'consecutive_failures'>;

/**
 * What a client's `status` does:
 * - `active` resumes a paused endpoint or re-enables a disabled one; the failure counter restarts at 0.
 * - `paused` holds deliveries (they queue and go out on resume); leaving `disabled` this way also clears the reason and counter.
 * - `disabled` stops deliveries with `disabled_reason` `disabled_by_user`; an endpoint already disabled keeps its reason.
 */
function statusChange(endpoint: WebhookEndpointRow, status: EndpointStatus): Partial<StatusFields> {
  if (status === 'active') return { status, disabled_reason: null, consecutive_failures: 0 };
  if (status === 'paused') {
    return endpoint.status === 'disabled' ? { status, disabled_reason: null, consecutive_failures: 0 } : { status };
  }
  return endpoint.status === 'disabled' ? {} : { status, disabled_reason: DISABLED_BY_USER };
}

/** PATCH: changes what is given. A new URL is checked as at creation; `events: []` is `422 events_required`. */
export async function updateEndpoint(tenant: Tenant, id: string, patch: EndpointPatch, rules: UrlRules): Promise<WebhookEndpointRow> {
  // Existence first, so another institution's id is 404 whatever the body says.
  await findEndpoint(tenant, id);
  const events = patch.events === undefined ? undefined : subscription(patch.events);
  if (patch.url !== undefined) await checkEndpointUrl(patch.url, rules);
  return tenant.inTransaction(async (tx) => {
    const endpoint = await findEndpoint(tx, id);
    endpoint.set({
      ...(patch.url !== undefined && { url: patch.url }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(events !== undefined && { events }),
      ...(patch.status !== undefined && statusChange(endpoint, patch.status)),
    });
    await endpoint.save({ transaction: tx.tx });
    return endpoint;
  });
}

/**
 * Deletes the endpoint with its deliveries and their attempts (the foreign keys cascade). The
 * engine may be sending and recording those deliveries at that moment, so this takes the rows'
 * locks in the engine's order, deliveries before their endpoint, and runs at the engine's
 * isolation: on PostgreSQL it waits for a recording in progress rather than failing against it.
 */
export function deleteEndpoint(tenant: Tenant, id: string): Promise<{ id: string; deleted: true }> {
  return tenant.inRowLockedTransaction(async (tx) => {
    const endpoint = await findEndpoint(tx, id);
    await tx.webhookDeliveries.findAll({ attributes: ['id'], where: { endpoint_id: endpoint.id }, lock: true });
    await tx.webhookEndpoints.findAll({ attributes: ['id'], where: { id: endpoint.id }, lock: true });
    await tx.webhookEndpoints.destroy({ id: endpoint.id });
    return { id: endpoint.id, deleted: true as const };
  });
}

export interface RotatedSecret extends EndpointWithSecret {
  /** When the secret that was current stops signing: now + grace (now itself for a grace of 0). */
  previousExpiresAt: Date;
}

/**
 * A new current secret. The one it replaces keeps signing until now + `graceHours` (0: not at
 * all). Rotating again during a grace period makes the then-current secret the previous one; the
 * older previous secret stops at once.
 */
export function rotateEndpointSecret(tenant: Tenant, id: string, graceHours: number, now = new Date()): Promise<RotatedSecret> {
  return tenant.inTransaction(async (tx) => {
    const endpoint = await findEndpoint(tx, id);
    const secret = newWebhookSecret();
    const previousExpiresAt = new Date(now.getTime() + graceHours * 3_600_000);
    endpoint.set({
      secret_sealed: sealSecret(tx, endpoint.id, secret),
      // Same row, same sealing context: the sealed value moves over without being opened.
      previous_secret_sealed: graceHours > 0 ? endpoint.secret_sealed : null,
      previous_secret_expires_at: graceHours > 0 ? previousExpiresAt : null,
    });
    await endpoint.save({ transaction: tx.tx });
    return { endpoint, secret, previousExpiresAt };
  });
}

export interface PingResult {
  delivered: boolean;
  response_status: number | null;
  response_time_ms: number;
  response_body: string | null;
  /** Why it was not delivered (`timeout`, `http_500`, …); logged, not part of the response. */
  error: string | null;
}

export interface PingOptions extends UrlRules {
  timeoutMs: number;
  now?: Date;
}

/**
 * Sends one `webhook.ping` event now, signed like any delivery, and reports what the receiver
 * said. It is not a delivery: no row is stored and `consecutive_failures` does not move, so a
 * failing ping can never disable an endpoint. An endpoint that is not active: `409 endpoint_inactive`.
 */
export async function pingEndpoint(tenant: Tenant, id: string, options: PingOptions): Promise<PingResult> {
  const endpoint = await findEndpoint(tenant, id);
  if (endpoint.status !== 'active') {
    throw new AppError('endpoint_inactive', `The endpoint is ${endpoint.status}; set its status to active before sending a test ping.`);
  }
  const now = options.now ?? new Date();
  const eventId = newId('evt');
  const body = JSON.stringify({
    id: eventId,
    type: 'webhook.ping',
    created_at: now.toISOString(),
    institution_id: tenant.institutionId,
    environment: await environmentOf(tenant),
    data: { endpoint_id: endpoint.id },
  });
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Event-Id': eventId,
    'X-Service-Delivery-Id': newId('dlv'),
    ...signatureHeaders(endpointSecrets(tenant, endpoint, now), eventId, body, Math.floor(now.getTime() / 1000)),
  };
  const result = await postWebhook({
    url: endpoint.url,
    body,
    headers,
    timeoutMs: options.timeoutMs,
    privateHosts: options.privateHosts,
    resolver: options.resolver,
  });
  return { delivered: result.ok, response_status: result.status, response_time_ms: result.timeMs, response_body: result.body, error: result.error };
}
