import { sortedOrder } from '../../db/sort.js';
import type { ListSort } from '../../validation/sort.js';
import { Op, Sequelize, type WhereOptions } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { DeliveryStatus, WebhookAttemptRow, WebhookDeliveryRow } from '../../models/webhook.js';

// The Deliveries API an institution sees: list, read with attempts, replay. The engine that sends
// them (claiming, attempts, retries, pruning) is server/webhooks/deliveries.ts.

/** `*`, a family `a.*` or an exact type, on the `event_type` column (a prefix test, no LIKE escaping). */
function eventTypeWhere(pattern: string): WhereOptions {
  if (pattern === '*') return {};
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return Sequelize.where(Sequelize.fn('substr', Sequelize.col('event_type'), 1, prefix.length), Op.eq, prefix);
  }
  return { event_type: pattern };
}

export interface DeliveryFilter extends PageRequest {
  endpoint_id?: string;
  status?: DeliveryStatus;
  event_type?: string;
  sort?: ListSort<'created_at'>;
}

/** Newest first. The payload is left out of the list (the single GET has it). */
export function listDeliveries(tenant: Tenant, filter: DeliveryFilter): Promise<Page<WebhookDeliveryRow>> {
  const where: WhereOptions[] = [];
  if (filter.endpoint_id) where.push({ endpoint_id: filter.endpoint_id });
  if (filter.status) where.push({ status: filter.status });
  if (filter.event_type) where.push(eventTypeWhere(filter.event_type));
  return tenant.webhookDeliveries.page(
    {
      attributes: { exclude: ['payload'] },
      where: where.length ? { [Op.and]: where } : undefined,
      order: sortedOrder(filter.sort, { created_at: 'created_at' }, [
        ['created_at', 'DESC'],
        ['id', 'DESC'],
      ]),
    },
    filter,
  );
}

export async function findDelivery(tenant: Tenant, id: string): Promise<WebhookDeliveryRow> {
  const delivery = await tenant.webhookDeliveries.findById(id);
  if (!delivery) throw notFound('webhook delivery');
  return delivery;
}

/** The delivery with its attempts, oldest first. */
export async function getDeliveryDetail(tenant: Tenant, id: string): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }> {
  const delivery = await findDelivery(tenant, id);
  const attempts = await tenant.webhookAttempts.findAll({
    where: { delivery_id: delivery.id },
    order: [
      ['at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return { delivery, attempts };
}

/**
 * The id of the replay made with `ref`: derived from the institution and the ref under the master
 * key, so the same ref finds the same replay without a column of its own.
 */
const replayIdFor = (tenant: Tenant, ref: string) =>
  `dlv_${tenant.fieldCrypto.blindIndex(ref, `webhook_deliveries.replay_ref:${tenant.institutionId}`).slice(0, 24)}`;

/**
 * A new pending delivery of the same event payload to the same endpoint, with `replay_of` set;
 * the original is not touched. It is signed when it is sent, so its timestamp is fresh. The
 * endpoint must be active (`409 endpoint_inactive`). Replays emit no event.
 * With `ref`: the same ref again answers the replay it made (`replayed: true`) and creates
 * nothing; the same ref for another delivery is `409 conflict`.
 */
export async function replayDelivery(tenant: Tenant, id: string, ref?: string): Promise<{ delivery: WebhookDeliveryRow; replayed: boolean }> {
  return tenant.inTransaction(async (tx) => {
    const original = await findDelivery(tx, id);
    if (ref !== undefined) {
      const earlier = await tx.webhookDeliveries.findById(replayIdFor(tx, ref));
      if (earlier) {
        if (earlier.replay_of !== original.id) throw new AppError('conflict', 'This ref was already used to replay another delivery.');
        return { delivery: earlier, replayed: true };
      }
    }
    const endpoint = await tx.webhookEndpoints.findById(original.endpoint_id);
    if (!endpoint || endpoint.status !== 'active') {
      throw new AppError('endpoint_inactive', `The endpoint is ${endpoint?.status ?? 'gone'}; set its status to active before replaying.`);
    }
    const delivery = await tx.webhookDeliveries.create({
      id: ref === undefined ? newId('dlv') : replayIdFor(tx, ref),
      endpoint_id: original.endpoint_id,
      event_id: original.event_id,
      event_type: original.event_type,
      payload: original.payload,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: new Date(),
      last_attempt_at: null,
      response_status: null,
      response_time_ms: null,
      response_body: null,
      replay_of: original.id,
    });
    return { delivery, replayed: false };
  });
}
