import type { EventRecord } from '../models/event.js';

export function presentEvent(row: EventRecord) {
  return { id: row.id, type: row.type, created_at: row.created_at.toISOString(), data: row.data };
}
