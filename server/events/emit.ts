import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import type { EventRow } from '../models/event.js';
import { createDeliveriesForEvents } from '../webhooks/deliveries.js';
import type { EventType } from './catalog.js';

export interface NewEvent {
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Records events in the same transaction as the change they describe, so an event exists exactly
 * when the change does. `created_at` is strictly increasing per institution, and in the order the
 * transactions commit: the transaction holds its institution's write lock (SQLite's one writer, or
 * the lock `Tenant.inTransaction` takes on PostgreSQL) until it ends, so reading the newest
 * timestamp and writing the next ones is atomic, and no later writer of the institution can
 * commit first. A batch takes one millisecond per event, in the order given.
 * Payloads carry ids and outcomes only, never documents or personal data.
 * The webhook deliveries of every subscribed endpoint are written here too: an event exists with
 * its deliveries or not at all, and they go out after the commit (or from the sweep, after a crash).
 * A batch is three statements whatever its size (docs/decisions/batched-writes.md).
 */
export async function emitAll(tx: TenantTx, events: readonly NewEvent[]): Promise<EventRow[]> {
  if (events.length === 0) return [];
  const newest = await tx.events.findOne({ attributes: ['created_at'], order: [['created_at', 'DESC']] });
  const now = Date.now();
  const first = Math.max(now, newest ? newest.created_at.getTime() + 1 : 0);
  const rows = await tx.events.bulkCreate(
    events.map((event, index) => ({ id: newId('evt'), type: event.type, data: event.data, created_at: new Date(first + index) })),
  );
  // Due at `now`, not at the events' (possibly bumped) created_at, so the post-commit dispatch finds them.
  await createDeliveriesForEvents(tx, rows, new Date(now));
  tx.afterCommitEvents(rows);
  return rows;
}

/** One event: `emitAll` with a batch of one. */
export async function emit(tx: TenantTx, type: EventType, data: Record<string, unknown>): Promise<EventRow> {
  const [event] = await emitAll(tx, [{ type, data }]);
  return event!;
}
