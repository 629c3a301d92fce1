import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { retentionCutoff } from '../models/event.js';

/** Deletes events older than the retention window, for every institution. Returns how many went. */
export async function pruneEvents(db: Database, now = Date.now()): Promise<number> {
  return db.models.Event.destroy({ where: { created_at: { [Op.lt]: retentionCutoff(now) } } });
}
