import { rowLockedTransaction } from '../db/postgres.js';
import { Op, QueryTypes, type Transaction, type WhereOptions } from 'sequelize';
import type { Database } from '../db/index.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../models/webhook.js';

// Claiming due deliveries for one sender process, and the lease that says the process is alive:
// a claim is a conditional write, so two processes never send the same delivery, and claims a
// stopped process left behind go back to the queue.

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
