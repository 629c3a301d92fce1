import type { PersonRole } from '../../models/person.js';
import type { SyncPlan } from './plan-steps.js';

export interface PlanCounts {
  created: { students: number; faculty: number; groups: number };
  updated: { students: number; faculty: number; groups: number };
  suspended: { students: number; faculty: number; groups: number };
  reactivated: { students: number; faculty: number };
  memberships: { added: number; removed: number };
  skipped: number;
}

export function countPlan(plan: SyncPlan): PlanCounts {
  const by = (role: PersonRole) => (role === 'student' ? 'students' : 'faculty');
  const counts: PlanCounts = {
    created: { students: 0, faculty: 0, groups: plan.createGroups.length },
    updated: { students: 0, faculty: 0, groups: 0 },
    suspended: { students: 0, faculty: 0, groups: 0 },
    reactivated: { students: 0, faculty: 0 },
    memberships: { added: 0, removed: 0 },
    skipped: plan.skipped,
  };
  for (const person of plan.createPeople) counts.created[by(person.role)]++;
  for (const update of plan.updatePeople) {
    if (update.status === 'suspended') counts.suspended[by(update.role)]++;
    else if (update.status === 'active') counts.reactivated[by(update.role)]++;
    if (update.full_name !== undefined || update.external_id !== undefined || update.email !== undefined || update.status === 'active') {
      counts.updated[by(update.role)]++;
    }
  }
  for (const change of plan.changeGroups) {
    if (change.retire) counts.suspended.groups++;
    else counts.updated.groups++;
  }
  for (const change of plan.memberships.values()) {
    counts.memberships.added += change.add.length;
    counts.memberships.removed += change.remove.length;
  }
  return counts;
}
