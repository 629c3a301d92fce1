import { Op } from 'sequelize';
import type { Database } from '../db/index.js';

export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export const retentionCutoff = (now: number) => new Date(now - RETENTION_DAYS * DAY_MS);

/** Deletes events older than the retention window, for every institution. Returns how many went. */
export async function pruneEvents(db: Database, now = Date.now()): Promise<number> {
  return db.models.Event.destroy({ where: { created_at: { [Op.lt]: retentionCutoff(now) } } });
}
