import { Op } from 'sequelize';
import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { syncRoster } from './sync.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * The connections whose scheduled sync is due: a schedule of N hours and no sync (other than a dry
 * run) started in the last N hours. An appliance that was off is caught up by the first check
 * after it starts, since its last sync is then older than its period.
 */
export async function dueConnections(db: Database, now: number): Promise<string[]> {
  const connections = await db.models.OneRosterConnection.findAll({
    attributes: ['id', 'institution_id', 'schedule_hours'],
    where: { schedule_hours: { [Op.gt]: 0 } },
  });
  const due: string[] = [];
  for (const connection of connections) {
    const last = await db.models.OneRosterRun.findOne({
      attributes: ['started_at'],
      where: { connection_id: connection.id, dry_run: false },
      order: [['started_at', 'DESC']],
    });
    if (!last || now - last.started_at.getTime() >= connection.schedule_hours! * HOUR_MS) due.push(connection.institution_id);
  }
  return due;
}

/**
 * Runs every due scheduled sync, one after another, each honouring the guard: a held-back run is
 * recorded (and shown in the portal) and changes nothing. One institution's failure is its run's,
 * never another's.
 */
export async function runScheduledSyncs(db: Database, config: Config, now = Date.now()) {
  const counts = { synced: 0, held_back: 0, failed: 0 };
  for (const institutionId of await dueConnections(db, now)) {
    let result;
    try {
      result = await syncRoster(db, config, institutionId, { trigger: 'scheduled' });
    } catch (error) {
      // A sync already running (started from the portal or the CLI) is this period's sync.
      if (error instanceof AppError && error.code === 'conflict') continue;
      throw error;
    }
    if (result.outcome === 'applied') counts.synced++;
    else if (result.outcome === 'held_back') counts.held_back++;
    else counts.failed++;
  }
  return counts;
}
