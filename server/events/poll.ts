import { Op, type WhereOptions } from 'sequelize';
import type { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import { RETENTION_DAYS, retentionCutoff, type EventRecord } from '../models/event.js';
import { patternWhere } from '../webhooks/patterns.js';

export interface PollRequest {
  since?: Date;
  type?: string;
  limit: number;
}

/**
 * Events strictly after `since`, oldest first. Because `created_at` is strictly increasing per
 * institution, passing the newest `created_at` seen as the next `since` never skips or repeats.
 */
export async function pollEvents(tenant: Tenant, request: PollRequest, now = Date.now()): Promise<{ items: EventRecord[]; has_more: boolean }> {
  if (request.since && request.since < retentionCutoff(now)) {
    throw new AppError('event_pruned', `Events older than ${RETENTION_DAYS} days are pruned; resume from a later "since" or resynchronise.`);
  }
  const conditions: WhereOptions[] = [];
  if (request.since) conditions.push({ created_at: { [Op.gt]: request.since } });
  if (request.type) conditions.push(patternWhere(request.type));
  const rows = await tenant.events.findAllPlain({
    where: conditions.length ? { [Op.and]: conditions } : undefined,
    order: [['created_at', 'ASC']],
    limit: request.limit + 1,
  });
  return { items: rows.slice(0, request.limit), has_more: rows.length > request.limit };
}
