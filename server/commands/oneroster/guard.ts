import type { TenantTx } from '../../db/tenant.js';
import type { OneRosterConnectionRow } from '../../models/oneroster.js';
import type { SyncPlan } from './plan-steps.js';

export interface GuardVerdict {
  held: boolean;
  reason: string | null;
}

const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

/**
 * The guard (docs/lms.md#what-the-sync-does): a sync that would suspend more than the connection's share of a
 * class (and at least its minimum of people) or of the school's active students is held back.
 * A class is a group as it is now: its members who would be suspended, out of all its members.
 */
export async function guardPlan(tx: TenantTx, connection: OneRosterConnectionRow, plan: SyncPlan): Promise<GuardVerdict> {
  const suspended = new Set(plan.updatePeople.filter((update) => update.role === 'student' && update.status === 'suspended').map((update) => update.id));
  if (suspended.size === 0) return { held: false, reason: null };
  const activeStudents = await tx.people.count({ where: { role: 'student', status: 'active' } });
  if (suspended.size > connection.school_share * activeStudents) {
    return {
      held: true,
      reason: `It would suspend ${suspended.size} of the school's ${activeStudents} active students, more than ${percent(connection.school_share)}.`,
    };
  }
  const memberships = await tx.groupMembers.findAllPlain({ attributes: ['group_id', 'student_id'] });
  const sizes = new Map<string, { members: number; suspended: number }>();
  for (const row of memberships) {
    const entry = sizes.get(row.group_id) ?? { members: 0, suspended: 0 };
    entry.members++;
    if (suspended.has(row.student_id)) entry.suspended++;
    sizes.set(row.group_id, entry);
  }
  for (const [groupId, entry] of sizes) {
    if (entry.suspended >= connection.class_minimum && entry.suspended > connection.class_share * entry.members) {
      const group = await tx.groups.findById(groupId, { attributes: ['name'] });
      return {
        held: true,
        reason: `It would suspend ${entry.suspended} of the ${entry.members} members of the group "${group?.name ?? groupId}", more than ${percent(connection.class_share)}.`,
      };
    }
  }
  return { held: false, reason: null };
}
