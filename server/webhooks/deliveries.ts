import { rowLockedTransaction } from '../db/postgres.js';
import { Op, QueryTypes, Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import type { Database } from '../db/index.js';
import type { Tenant, TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import { retentionCutoff, type EventRow } from '../models/event.js';
import type { DeliveryStatus, EndpointStatus, WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';
import { matchesPattern } from './patterns.js';
import { RESPONSE_BODY_LIMIT, type SendResult } from './sender.js';

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

export interface Claim {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
  /** Written to `last_attempt_at` by the claim; the attempt's result is recorded only while it is still there. */
  claimedAt: Date;
}

export interface ClaimRequest {
  now: Date;
  /** The claiming process's lease id (`sender_leases`). */
  sender: string;
  /** Sends in flight per endpoint in this process. */
  inFlight: ReadonlyMap<string, number>;
  perEndpoint: number;
  /** How many may be claimed in all. */
  limit: number;
}

interface DueRow {
  id: string;
  endpoint_id: string;
}

/**
 * Claims due deliveries (pending or failed, `next_attempt_at` reached, endpoint active,
 * institution approved) by a conditional UPDATE to `delivering`, oldest due first, at most
 * `perEndpoint` in flight per endpoint, so one slow receiver cannot take every slot. Runs in the
 * caller's write transaction (the engine's step, which records finished sends in the same one);
 * the UPDATE repeats the status condition, so two runs (or two processes) never claim the same row.
 */
export async function claimDueIn(db: Database, transaction: Transaction, request: ClaimRequest): Promise<Claim[]> {
  if (request.limit <= 0) return [];
  const busy = [...request.inFlight].filter(([, count]) => count >= request.perEndpoint).map(([endpointId]) => endpointId);
  // ROW_NUMBER keeps each endpoint's share of the batch to its free slots (SQLite ≥ 3.25 and PostgreSQL alike).
  const candidates = await db.sequelize.query<DueRow>(
    `SELECT id, endpoint_id FROM (
       SELECT d.id AS id, d.endpoint_id AS endpoint_id, d.next_attempt_at AS next_attempt_at, d.created_at AS created_at,
              ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.created_at, d.id) AS position
         FROM webhook_deliveries AS d
         JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
         JOIN institutions AS i ON i.id = d.institution_id
        WHERE d.status IN ('pending', 'failed')
          AND d.next_attempt_at <= :now
          AND e.status = 'active'
          AND i.status = 'approved'
          ${busy.length ? 'AND d.endpoint_id NOT IN (:busy)' : ''}
     ) AS due
     WHERE position <= :perEndpoint
     ORDER BY next_attempt_at, created_at, id
     LIMIT :candidates`,
    {
      type: QueryTypes.SELECT,
      transaction,
      replacements: { now: request.now, busy, perEndpoint: request.perEndpoint, candidates: request.limit * request.perEndpoint },
    },
  );

  const taken = new Map<string, number>();
  const chosen: DueRow[] = [];
  for (const row of candidates) {
    if (chosen.length >= request.limit) break;
    const used = (request.inFlight.get(row.endpoint_id) ?? 0) + (taken.get(row.endpoint_id) ?? 0);
    if (used >= request.perEndpoint) continue;
    taken.set(row.endpoint_id, (taken.get(row.endpoint_id) ?? 0) + 1);
    chosen.push(row);
  }
  if (chosen.length === 0) return [];

  const { WebhookDelivery, WebhookEndpoint } = db.models;
  // One UPDATE for the batch; its status condition is what makes a claim exclusive. Inside this
  // write transaction the rows now `delivering` since `now` by this process among those chosen are
  // exactly ours (another process may claim in the same millisecond: the sender tells them apart).
  const chosenIds = chosen.map((row) => row.id);
  await WebhookDelivery.update(
    { status: 'delivering', last_attempt_at: request.now, claimed_by: request.sender },
    { where: { id: { [Op.in]: chosenIds }, status: { [Op.in]: ['pending', 'failed'] } }, transaction },
  );
  const deliveries = await WebhookDelivery.findAll({
    where: { id: { [Op.in]: chosenIds }, status: 'delivering', last_attempt_at: request.now, claimed_by: request.sender },
    transaction,
  });
  if (deliveries.length === 0) return [];
  const endpoints = await WebhookEndpoint.findAll({
    where: { id: { [Op.in]: [...new Set(deliveries.map((row) => row.endpoint_id))] } },
    transaction,
    lock: transaction.LOCK.UPDATE,
  });
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const order = new Map(chosenIds.map((id, index) => [id, index]));
  return deliveries
    .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
    .map((delivery) => ({ delivery, endpoint: byId.get(delivery.endpoint_id)!, claimedAt: request.now }));
}

/**
 * Claims older than `olderThan` whose send is not running here and whose process is gone (its
 * lease not renewed since `olderThan`, or no lease: an older version, or a process that stopped)
 * belong to a process that died mid-delivery: they become due again at once. A claim of a living
 * process is left to it however long it takes, so each attempt is sent once. The interrupted
 * attempt is not counted (its result is unknown, and the receiver may have it: receivers are
 * idempotent on the event id).
 */
export async function releaseStaleClaims(db: Database, olderThan: Date, runningHere: ReadonlySet<string>, sender: string, now = new Date()): Promise<string[]> {
  return db.sequelize.transaction(rowLockedTransaction(db.sequelize), async (transaction) => {
    const living = await db.models.SenderLease.findAll({ attributes: ['id'], where: { renewed_at: { [Op.gte]: olderThan } }, transaction });
    const others = living.map((lease) => lease.id).filter((id) => id !== sender);
    const where: WhereOptions[] = [{ status: 'delivering' }, { last_attempt_at: { [Op.lt]: olderThan } }];
    if (runningHere.size > 0) where.push({ id: { [Op.notIn]: [...runningHere] } });
    if (others.length > 0) where.push({ [Op.or]: [{ claimed_by: null }, { claimed_by: { [Op.notIn]: others } }] });
    const stale = await db.models.WebhookDelivery.findAll({ attributes: ['id', 'attempt_count'], where: { [Op.and]: where }, transaction });
    for (const row of stale) {
      await db.models.WebhookDelivery.update(
        { status: row.attempt_count === 0 ? 'pending' : 'failed', next_attempt_at: now, claimed_by: null },
        { where: { id: row.id, status: 'delivering' }, transaction },
      );
    }
    return stale.map((row) => row.id);
  });
}

/** Starts or renews a sending process's lease; leases not renewed for a day are removed on the way. */
export async function renewSenderLease(db: Database, sender: string, now = new Date()): Promise<void> {
  await db.sequelize.transaction(rowLockedTransaction(db.sequelize), async (transaction) => {
    const [renewed] = await db.models.SenderLease.update({ renewed_at: now }, { where: { id: sender }, transaction });
    if (renewed === 0) {
      await db.models.SenderLease.destroy({ where: { renewed_at: { [Op.lt]: new Date(now.getTime() - 86_400_000) } }, transaction });
      await db.models.SenderLease.create({ id: sender, renewed_at: now }, { transaction });
    }
  });
}

/** Gives a stopping process's lease up: what it left claimed is released by the others at once, not after a wait. */
export async function endSenderLease(db: Database, sender: string): Promise<void> {
  await db.sequelize.transaction(rowLockedTransaction(db.sequelize), (transaction) => db.models.SenderLease.destroy({ where: { id: sender }, transaction }));
}

export interface OutcomeInput {
  /** Attempts recorded before this one. */
  attemptCount: number;
  result: Pick<SendResult, 'ok' | 'status' | 'body' | 'timeMs'>;
  schedule: readonly number[];
  now: Date;
  endpoint: Pick<WebhookEndpointRow, 'status' | 'consecutive_failures'> | null;
}

export interface Outcome {
  delivery: Pick<WebhookDeliveryRow, 'status' | 'attempt_count' | 'next_attempt_at' | 'response_status' | 'response_time_ms' | 'response_body'>;
  endpoint: Partial<Pick<WebhookEndpointRow, 'status' | 'disabled_reason' | 'consecutive_failures'>> | null;
}

/** What one attempt's result does to its delivery and endpoint; pure, so the rules read in one place. */
export function planOutcome(input: OutcomeInput): Outcome {
  const attempt_count = input.attemptCount + 1;
  const response = {
    response_status: input.result.status,
    response_time_ms: Math.round(input.result.timeMs),
    response_body: firstBytes(input.result.body),
  };
  const endpoint = input.endpoint;
  if (input.result.ok) {
    return {
      delivery: { status: 'succeeded', attempt_count, next_attempt_at: null, ...response },
      // Any success resets the counter (docs/api.md#webhooks-and-events).
      endpoint: endpoint && endpoint.consecutive_failures !== 0 ? { consecutive_failures: 0 } : null,
    };
  }

  const gone = input.result.status === 410;
  const dead = gone || attempt_count >= maxAttempts(input.schedule);
  const gapSeconds = input.schedule[Math.min(attempt_count - 1, input.schedule.length - 1)] ?? 0;
  const delivery: Outcome['delivery'] = {
    status: dead ? 'dead' : 'failed',
    attempt_count,
    next_attempt_at: dead ? null : new Date(input.now.getTime() + gapSeconds * 1000),
    ...response,
  };
  if (!endpoint) return { delivery, endpoint: null };

  const consecutive_failures = endpoint.consecutive_failures + 1;
  // An endpoint already disabled keeps the reason it was disabled for.
  if (endpoint.status !== 'disabled' && gone) return { delivery, endpoint: { consecutive_failures, status: 'disabled', disabled_reason: DISABLED_GONE } };
  if (endpoint.status !== 'disabled' && consecutive_failures >= MAX_CONSECUTIVE_FAILURES) {
    return { delivery, endpoint: { consecutive_failures, status: 'disabled', disabled_reason: DISABLED_TOO_MANY_FAILURES } };
  }
  return { delivery, endpoint: { consecutive_failures } };
}

export type RecordedAttempt =
  | { kind: 'recorded'; outcome: Outcome }
  /** The claim was released meanwhile (stale-claim recovery): the attempt is kept as history only. */
  | { kind: 'superseded' }
  /** The delivery is gone (its endpoint was deleted while the request was in flight). */
  | { kind: 'vanished' };

/** One finished send, to be recorded. */
export interface FinishedSend {
  claim: Claim;
  result: SendResult;
}

/**
 * Stores attempts (webhook_attempts rows) and moves their deliveries and endpoints on, in the
 * caller's write transaction, a batch at a time (docs/decisions/webhook-throughput.md). Only the holder of a
 * claim moves the state: if the claim was released and taken again meanwhile, its late result is
 * history, not state. Several results for one endpoint are applied in the order given, so its
 * failure counter and disabling come out as if they had been recorded one by one.
 */
export async function recordAttemptsIn(
  db: Database,
  transaction: Transaction,
  sends: readonly FinishedSend[],
  schedule: readonly number[],
  now: Date,
): Promise<RecordedAttempt[]> {
  if (sends.length === 0) return [];
  const { WebhookAttempt, WebhookDelivery, WebhookEndpoint } = db.models;
  const deliveries = await WebhookDelivery.findAll({
    attributes: ['id', 'institution_id', 'endpoint_id', 'status', 'attempt_count', 'last_attempt_at', 'claimed_by'],
    where: { id: { [Op.in]: sends.map((send) => send.claim.delivery.id) } },
    transaction,
    lock: transaction.LOCK.UPDATE,
  });
  const deliveryById = new Map(deliveries.map((delivery) => [delivery.id, delivery]));
  await WebhookAttempt.bulkCreate(
    sends.flatMap(({ claim, result }) => {
      const delivery = deliveryById.get(claim.delivery.id);
      if (!delivery) return [];
      return [
        {
          id: newId('wat'),
          institution_id: delivery.institution_id,
          delivery_id: delivery.id,
          at: claim.claimedAt,
          response_status: result.status,
          response_time_ms: Math.round(result.timeMs),
          response_body: firstBytes(result.body),
          error: result.error ? result.error.slice(0, 200) : null,
        },
      ];
    }),
    { transaction },
  );
  const endpoints = await WebhookEndpoint.findAll({
    where: { id: { [Op.in]: [...new Set(deliveries.map((row) => row.endpoint_id))] } },
    transaction,
    lock: transaction.LOCK.UPDATE,
  });
  const endpointById = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  // Each endpoint as the earlier results of this batch left it.
  const endpointNow = new Map(endpoints.map((endpoint) => [endpoint.id, { status: endpoint.status, consecutive_failures: endpoint.consecutive_failures }]));
  const endpointChanges = new Map<string, NonNullable<Outcome['endpoint']>>();

  const recorded: RecordedAttempt[] = [];
  for (const { claim, result } of sends) {
    const delivery = deliveryById.get(claim.delivery.id);
    if (!delivery) {
      recorded.push({ kind: 'vanished' });
      continue;
    }
    const stillOurs =
      delivery.status === 'delivering' &&
      delivery.last_attempt_at?.getTime() === claim.claimedAt.getTime() &&
      (delivery.claimed_by === null || delivery.claimed_by === claim.delivery.claimed_by);
    if (!stillOurs) {
      recorded.push({ kind: 'superseded' });
      continue;
    }
    const endpoint = endpointNow.get(delivery.endpoint_id) ?? null;
    const outcome = planOutcome({ attemptCount: delivery.attempt_count, result, schedule, now, endpoint });
    await WebhookDelivery.update(outcome.delivery, { where: { id: delivery.id }, transaction });
    if (endpoint && outcome.endpoint) {
      Object.assign(endpoint, outcome.endpoint);
      endpointChanges.set(delivery.endpoint_id, { ...endpointChanges.get(delivery.endpoint_id), ...outcome.endpoint });
    }
    recorded.push({ kind: 'recorded', outcome });
  }
  for (const [endpointId, change] of endpointChanges) await endpointById.get(endpointId)!.update(change, { transaction });
  return recorded;
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
