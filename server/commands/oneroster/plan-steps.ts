import type { PersonRole, PersonStatus } from '../../models/person.js';
import type { OneRosterSyncKind } from '../../models/oneroster.js';

/** Who a plan step is about: a person already here, or one the sync is about to create (by sourcedId). */
export type PersonRef = { id: string } | { sourcedId: string };

export interface PersonCreate {
  sourcedId: string;
  role: PersonRole;
  full_name: string;
  external_id: string | null;
  email: string | null;
}

export interface PersonUpdate {
  id: string;
  role: PersonRole;
  sourcedId: string;
  /** Only the fields that change. */
  full_name?: string;
  external_id?: string;
  /** Set with a new name or id: what `q` finds the person by (server/db/search-text.ts). */
  search_text?: string;
  email?: string;
  /** Set when the status changes: `suspended` (tobedeleted, disabled or gone) or `active` again. */
  status?: PersonStatus;
}

export interface GroupCreate {
  sourcedId: string;
  name: string;
  description: string;
  teacher: PersonRef;
}

export interface GroupChange {
  id: string;
  sourcedId: string;
  name?: string;
  description?: string;
  teacher?: PersonRef;
  /** The class is tobedeleted or gone: the group keeps its exams, its members are removed. */
  retire?: boolean;
}

export interface MembershipChange {
  group: PersonRef | { groupSourcedId: string };
  student: PersonRef;
  add: boolean;
}

/** What a sync would do, step by step; `apply` carries it out, a dry run only counts it. */
export interface SyncPlan {
  kind: OneRosterSyncKind;
  createPeople: PersonCreate[];
  updatePeople: PersonUpdate[];
  createGroups: GroupCreate[];
  changeGroups: GroupChange[];
  /** Membership changes per group: group id (existing) or `new:<sourcedId>`. */
  memberships: Map<string, { add: PersonRef[]; remove: string[] }>;
  /** Link activity to record: sourcedId → active, per kind (new links come from the creations and matches). */
  links: { user: Map<string, { target: PersonRef; active: boolean }>; class: Map<string, { target: string | null; active: boolean }> };
  skipped: number;
  /** The newest `dateLastModified` in what was fetched. */
  watermark: string | null;
}
