import { Op, type Transaction } from 'sequelize';
import type { Database } from '../db/index.js';
import { newId } from '../ids.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';
import type { SendResult } from './sender.js';
import type { Claim } from './claims.js';
import { DISABLED_GONE, DISABLED_TOO_MANY_FAILURES, firstBytes, MAX_CONSECUTIVE_FAILURES, maxAttempts } from './deliveries.js';

// What an attempt's answer does to its delivery and endpoint (planOutcome, a pure function), and
// recording the attempts of a batch of sends in one transaction.

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
