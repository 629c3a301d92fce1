import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { LicenseType } from '../../models/license.js';
import { nextMonths, perBucket } from './windows.js';

type ByType = Record<LicenseType, number>;

const LICENSE_TYPES: readonly LicenseType[] = ['student', 'faculty'];

export interface LicenseExpiry {
  /** From now to the start of the month after the last one, UTC. */
  from: string;
  to: string;
  /** Active licenses by the UTC month they expire in, this month (from now) first. */
  months: Array<{ month: string } & ByType>;
  /** Active licenses expiring after the last month. */
  later: ByType;
}

/** Active licenses of `type` expiring in [from, to) (to null: no end), never before now: one range of the index. */
function countActive(tenant: Tenant, type: LicenseType, now: Date, from: Date, to: Date | null): Promise<number> {
  return tenant.licenses.count({ where: { status: 'active', type, expires_at: { [Op.gt]: now, [Op.gte]: from, ...(to ? { [Op.lt]: to } : {}) } } });
}

/** Licenses active now: per type, so each count is a range of the index rather than every active license's row. */
export async function activeLicenseCount(tenant: Tenant, now: Date): Promise<number> {
  const counts = await Promise.all(LICENSE_TYPES.map((type) => countActive(tenant, type, now, now, null)));
  return counts.reduce((sum, n) => sum + n, 0);
}

/**
 * Active licenses by type and expiry month: per type and month, a count of one range of the
 * `(institution_id, status, type, expires_at)` index. Active is `status = 'active' AND expires_at
 * > now`, the rule of every other read of an active license: the first month starts at now.
 */
export async function licenseExpiry(tenant: Tenant, months: number, now = new Date()): Promise<LicenseExpiry> {
  const buckets = nextMonths(months, now);
  const byType = async (from: Date, to: Date | null): Promise<ByType> => {
    const [student, faculty] = await Promise.all([countActive(tenant, 'student', now, from, to), countActive(tenant, 'faculty', now, from, to)]);
    return { student, faculty };
  };
  const [counts, later] = await Promise.all([perBucket(buckets, byType), byType(buckets.bounds.at(-1)!, null)]);
  return {
    from: buckets.bounds[0]!.toISOString(),
    to: buckets.bounds.at(-1)!.toISOString(),
    months: counts.map((cell, i) => ({ month: buckets.labels[i]!, ...cell })),
    later,
  };
}
