import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import type { EventRow } from '../models/event.js';
import type { EventType } from './catalog.js';

/**
 * Records an event in the same transaction as the change it describes, so the event exists
 * exactly when the change does. `created_at` is strictly increasing per institution: the write
 * transaction holds SQLite's lock, so reading the newest timestamp and writing the next is atomic.
 * Payloads carry ids and outcomes only, never documents or personal data.
 */
export async function emit(tx: TenantTx, type: EventType, data: Record<string, unknown>): Promise<EventRow> {
  const newest = await tx.events.findOne({ attributes: ['created_at'], order: [['created_at', 'DESC']] });
  const now = Date.now();
  const floor = newest ? newest.created_at.getTime() + 1 : 0;
  const event = await tx.events.create({ id: newId('evt'), type, data, created_at: new Date(Math.max(now, floor)) });

  const listeners = tx.db.committedEventListeners;
  if (listeners.size > 0) {
    tx.tx.afterCommit(() => {
      for (const listener of listeners) listener(event);
    });
  }
  return event;
}
