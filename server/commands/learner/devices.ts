import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { notFound } from '../../errors.js';
import type { DeviceSeatRow } from '../../models/device-seat.js';
import type { LearnerAuth } from './auth.js';

/** `last_seen_at` moves at most once a minute per seat (docs/api.md#learner-sessions), so a busy session costs one write a minute. */
export const SEAT_SEEN_RESOLUTION_MS = 60_000;

/**
 * Records that the seat's session was just used, when its `last_seen_at` is a minute old or more.
 * The UPDATE repeats the age condition, so concurrent requests of one session write it once.
 * Returns whether it wrote.
 */
export async function touchSeat(db: Database, seat: DeviceSeatRow, now = new Date()): Promise<boolean> {
  const staleBefore = new Date(now.getTime() - SEAT_SEEN_RESOLUTION_MS);
  if (seat.last_seen_at.getTime() > staleBefore.getTime()) return false;
  // In a (queued) transaction like every other write, never blocking a pool thread on the lock.
  const [changed] = await db.sequelize.transaction((transaction) =>
    db.models.DeviceSeat.update({ last_seen_at: now }, { where: { id: seat.id, status: 'active', last_seen_at: { [Op.lte]: staleBefore } }, transaction }),
  );
  return changed === 1;
}

/** Ids of every license the signed-in person holds: their seats, whichever license took them. */
async function ownLicenseIds(learner: LearnerAuth): Promise<string[]> {
  const licenses = await learner.tenant.licenses.findAll({ attributes: ['id'], where: { user_id: learner.person.id } });
  return licenses.map((license) => license.id);
}

/** GET /app/devices: the person's active seats, the most recently seen first. */
export async function listOwnSeats(learner: LearnerAuth): Promise<DeviceSeatRow[]> {
  const licenseIds = await ownLicenseIds(learner);
  if (licenseIds.length === 0) return [];
  return learner.tenant.deviceSeats.findAll({
    where: { license_id: { [Op.in]: licenseIds }, status: 'active' },
    order: [
      ['last_seen_at', 'DESC'],
      ['id', 'DESC'],
    ],
  });
}

/**
 * POST /app/devices/{seatId}/release: frees one of the person's own seats (anyone else's, or an
 * unknown id, is `404 not_found`). Releasing the seat of the calling session ends that session,
 * as a revoke by the school does; releasing a released seat changes nothing.
 */
export function releaseOwnSeat(learner: LearnerAuth, seatId: string, now = new Date()): Promise<DeviceSeatRow> {
  return learner.tenant.inTransaction(async (tx) => {
    const licenses = await tx.licenses.findAll({ attributes: ['id'], where: { user_id: learner.person.id } });
    const seat = await tx.deviceSeats.findOne({ where: { id: seatId, license_id: { [Op.in]: licenses.map((license) => license.id) } } });
    if (!seat) throw notFound('device');
    if (seat.status === 'revoked') return seat;
    await tx.deviceSeats.update({ status: 'revoked', revoked_at: now }, { id: seat.id, status: 'active' });
    await seat.reload({ transaction: tx.tx });
    return seat;
  });
}
