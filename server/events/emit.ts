import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import type { EventRow } from '../models/event.js';
import { createDeliveriesForEvent } from '../webhooks/deliveries.js';
import type { EventType } from './catalog.js';

/**
 * Records an event in the same transaction as the change it describes, so the event exists
 * exactly when the change does. `created_at` is strictly increasing per institution: the write
 * transaction holds SQLite's lock, so reading the newest timestamp and writing the next is atomic.
 * Payloads carry ids and outcomes only, never documents or personal data.
 * The webhook deliveries of every subscribed endpoint are written here too: an event exists with
 * its deliveries or not at all, and they go out after the commit (or from the sweep, after a crash).
 */
export async function emit(tx: TenantTx, type: EventType, data: Record<string, unknown>): Promise<EventRow> {
  const newest = await tx.events.findOne({ attributes: ['created_at'], order: [['created_at', 'DESC']] });
  const now = Date.now();
  const floor = newest ? newest.created_at.getTime() + 1 : 0;
  const event = await tx.events.create({ id: newId('evt'), type, data, created_at: new Date(Math.max(now, floor)) });
  // Due at `now`, not at the event's (possibly bumped) created_at, so the post-commit dispatch finds them.
  await createDeliveriesForEvent(tx, event, new Date(now));

  tx.afterCommitEvent(event);
  return event;
}
