import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { deliveriesByDay, type DayDeliveries } from './deliveries.js';
import { activeLicenseCount } from './licenses.js';
import { lastDays, perBucket, type Buckets } from './windows.js';

/** The parts of the overview; the caller leaves out those the role may not read. */
export type OverviewPart = 'students' | 'faculty' | 'groups' | 'licenses' | 'deliveries';

export interface DayCount {
  day: string;
  count: number;
}

export interface Overview {
  /** The first day's start and the last day's end (exclusive), UTC. */
  from: string;
  to: string;
  /** Null where the part was left out. */
  counts: { students: number | null; faculty: number | null; groups: number | null; active_licenses: number | null };
  deliveries: DayDeliveries[] | null;
  new_students: DayCount[] | null;
}

/** Students and faculty of every status, from the counts the database keeps (docs/decisions/counted-totals.md). */
async function peopleCounts(tenant: Tenant): Promise<{ student: number; faculty: number }> {
  const rows = await tenant.personCounts.findAll({ attributes: ['role', 'total'], raw: true });
  const totals = { student: 0, faculty: 0 };
  for (const row of rows) totals[row.role] += Number(row.total);
  return totals;
}

/** Students created on each day: ranges of the `(institution_id, role, created_at)` index. */
async function newStudentsByDay(tenant: Tenant, buckets: Buckets): Promise<DayCount[]> {
  const counts = await perBucket(buckets, (from, to) => tenant.people.count({ where: { role: 'student', created_at: { [Op.gte]: from, [Op.lt]: to } } }));
  return counts.map((count, i) => ({ day: buckets.labels[i]!, count }));
}

/**
 * The portal's overview: how many students, faculty, groups and active licenses the institution
 * has now, and per UTC day of the last `days` (today so far included) its finished webhook
 * deliveries and its new students. Every figure is a count in the database (docs/decisions/portal-charts.md).
 */
export async function overviewStats(tenant: Tenant, parts: ReadonlySet<OverviewPart>, days: number, now = new Date()): Promise<Overview> {
  const buckets = lastDays(days, now);
  const wants = (part: OverviewPart) => parts.has(part);
  const [people, groups, activeLicenses, deliveries, newStudents] = await Promise.all([
    wants('students') || wants('faculty') ? peopleCounts(tenant) : null,
    wants('groups') ? tenant.groups.count() : null,
    wants('licenses') ? activeLicenseCount(tenant, now) : null,
    wants('deliveries') ? deliveriesByDay(tenant, buckets) : null,
    wants('students') ? newStudentsByDay(tenant, buckets) : null,
  ]);
  return {
    from: buckets.bounds[0]!.toISOString(),
    to: buckets.bounds.at(-1)!.toISOString(),
    counts: {
      students: wants('students') ? (people?.student ?? 0) : null,
      faculty: wants('faculty') ? (people?.faculty ?? 0) : null,
      groups,
      active_licenses: activeLicenses,
    },
    deliveries,
    new_students: newStudents,
  };
}
