import { Op } from 'sequelize';
import { searchTextOf } from '../../db/search-text.js';
import type { TenantTx } from '../../db/tenant.js';
import type { PersonRole, PersonStatus } from '../../models/person.js';
import type { OneRosterConnectionRow, OneRosterSyncKind } from '../../models/oneroster.js';
import { personalEmailIndex } from '../people/people.js';
import type { Roster, SisUser } from './client.js';
import type { GroupChange, PersonRef, PersonUpdate, SyncPlan } from './plan-steps.js';

/** A person as the plan reads them. */
interface KnownPerson {
  id: string;
  role: PersonRole;
  login_email: string;
  full_name: string;
  external_id: string | null;
  personal_email_index: string | null;
  status: PersonStatus;
  created_at: Date;
}

const fullName = (user: SisUser) => `${user.givenName} ${user.familyName}`.trim().slice(0, 200) || (user.identifier ?? user.sourcedId).slice(0, 200);
const newer = (a: string | null, b: string | null) => (!a ? b : !b ? a : a > b ? a : b);
const refKey = (ref: PersonRef) => ('id' in ref ? ref.id : `new:${ref.sourcedId}`);

/**
 * The plan of a sync, read inside the transaction that will apply it (so nothing changes between
 * the plan and its writes). Users are matched by their link (sourcedId), then by `identifier`
 * (the person's student_id or faculty_id), then by email; the rest are created. A full sync
 * also retires what it linked before and no longer finds; a delta sync only applies what it was given.
 */
export async function planSync(tx: TenantTx, connection: OneRosterConnectionRow, roster: Roster, kind: OneRosterSyncKind): Promise<SyncPlan> {
  const plan: SyncPlan = {
    kind,
    createPeople: [],
    updatePeople: [],
    createGroups: [],
    changeGroups: [],
    memberships: new Map(),
    links: { user: new Map(), class: new Map() },
    skipped: roster.skipped,
    watermark: null,
  };
  const linkRows = await tx.onerosterLinks.findAllPlain({ where: { connection_id: connection.id } });
  const userLinks = new Map(linkRows.filter((row) => row.kind === 'user').map((row) => [row.sourced_id, row]));
  const classLinks = new Map(linkRows.filter((row) => row.kind === 'class').map((row) => [row.sourced_id, row]));
  const linkedTargets = new Set(linkRows.map((row) => row.target_id));

  const people = (await tx.people.findAllPlain({
    attributes: ['id', 'role', 'login_email', 'full_name', 'external_id', 'personal_email_index', 'status', 'created_at'],
  })) as KnownPerson[];
  const byId = new Map(people.map((person) => [person.id, person]));
  const byExternal = new Map<string, KnownPerson>();
  const byEmail = new Map<string, KnownPerson>();
  for (const person of people) {
    if (linkedTargets.has(person.id)) continue;
    if (person.external_id) byExternal.set(`${person.role}:${person.external_id}`, person);
    if (person.personal_email_index) byEmail.set(`${person.role}:${person.personal_email_index}`, person);
  }
  const takenExternal = new Set(people.flatMap((person) => (person.external_id ? [`${person.role}:${person.external_id}`] : [])));

  // ---- users → people
  /** Where each SIS user is (or will be) a person here, and their role. */
  const userRefs = new Map<string, { ref: PersonRef; role: PersonRole }>();
  const seen = new Set<string>();
  for (const user of roster.users) {
    plan.watermark = newer(plan.watermark, user.dateLastModified);
    if (seen.has(user.sourcedId)) continue;
    seen.add(user.sourcedId);
    if (user.role === 'other') continue;
    const role: PersonRole = user.role === 'student' ? 'student' : 'faculty';
    const link = userLinks.get(user.sourcedId);
    let person = link ? byId.get(link.target_id) : undefined;
    if (person && person.role !== role) {
      // A role change in the SIS (student to teacher) is not a change of person here: left alone.
      plan.skipped++;
      continue;
    }
    if (!person && user.identifier) person = byExternal.get(`${role}:${user.identifier}`);
    const emailIndex = user.email ? personalEmailIndex(tx, user.email) : null;
    if (!person && emailIndex) person = byEmail.get(`${role}:${emailIndex}`);
    if (person) {
      byExternal.delete(`${role}:${person.external_id}`);
      if (person.personal_email_index) byEmail.delete(`${role}:${person.personal_email_index}`);
      const update: PersonUpdate = { id: person.id, role, sourcedId: user.sourcedId };
      const name = fullName(user);
      if (name !== person.full_name) update.full_name = name;
      const externalKey = `${role}:${user.identifier}`;
      if (user.identifier && user.identifier !== person.external_id && !takenExternal.has(externalKey)) {
        update.external_id = user.identifier;
        takenExternal.add(externalKey);
      }
      if (update.full_name !== undefined || update.external_id !== undefined) {
        update.search_text = searchTextOf({
          full_name: update.full_name ?? person.full_name,
          external_id: update.external_id ?? person.external_id,
          login_email: person.login_email,
        });
      }
      if (user.email && emailIndex !== person.personal_email_index) update.email = user.email;
      const status: PersonStatus = user.active ? 'active' : 'suspended';
      if (status !== person.status) update.status = status;
      if (Object.keys(update).length > 3) plan.updatePeople.push(update);
      userRefs.set(user.sourcedId, { ref: { id: person.id }, role });
      if (!link || link.active !== user.active) plan.links.user.set(user.sourcedId, { target: { id: person.id }, active: user.active });
      continue;
    }
    // Nobody here yet: only an active user is created.
    if (!user.active) continue;
    const externalKey = `${role}:${user.identifier}`;
    const externalId = user.identifier && !takenExternal.has(externalKey) ? user.identifier : null;
    if (externalId) takenExternal.add(externalKey);
    plan.createPeople.push({ sourcedId: user.sourcedId, role, full_name: fullName(user), external_id: externalId, email: user.email });
    userRefs.set(user.sourcedId, { ref: { sourcedId: user.sourcedId }, role });
    plan.links.user.set(user.sourcedId, { target: { sourcedId: user.sourcedId }, active: true });
  }
  if (kind === 'full') {
    for (const [sourcedId, link] of userLinks) {
      if (seen.has(sourcedId) || !link.active) continue;
      const person = byId.get(link.target_id);
      if (person && person.status === 'active') plan.updatePeople.push({ id: person.id, role: person.role, sourcedId, status: 'suspended' });
      plan.links.user.set(sourcedId, { target: { id: link.target_id }, active: false });
    }
  }
  /** A SIS user as a person here: mapped in this sync, or linked before (a delta names only what changed). */
  const personOf = (sourcedId: string): { ref: PersonRef; role: PersonRole } | null => {
    const mapped = userRefs.get(sourcedId);
    if (mapped) return mapped;
    const link = userLinks.get(sourcedId);
    const person = link ? byId.get(link.target_id) : undefined;
    return person ? { ref: { id: person.id }, role: person.role } : null;
  };

  // ---- classes → groups (teacher: the primary teacher enrollment, else the first teacher's)
  const teacherOf = new Map<string, PersonRef>();
  const teacherIsPrimary = new Set<string>();
  for (const enrollment of roster.enrollments) {
    if (!enrollment.active || enrollment.role !== 'teacher') continue;
    const teacher = personOf(enrollment.userSourcedId);
    if (!teacher || teacher.role !== 'faculty') continue;
    if (teacherIsPrimary.has(enrollment.classSourcedId)) continue;
    if (enrollment.primary || !teacherOf.has(enrollment.classSourcedId)) teacherOf.set(enrollment.classSourcedId, teacher.ref);
    if (enrollment.primary) teacherIsPrimary.add(enrollment.classSourcedId);
  }
  const groupIds = classLinks.size > 0 ? [...classLinks.values()].map((link) => link.target_id) : [];
  const groups = groupIds.length > 0 ? await tx.groups.findAllPlain({ where: { id: { [Op.in]: groupIds } } }) : [];
  const groupById = new Map(groups.map((group) => [group.id, group]));
  /** A SIS class as a group here: its id, or `new:<sourcedId>` for one this sync creates. */
  const groupKeys = new Map<string, string>();
  const seenClasses = new Set<string>();
  const retired = new Set<string>();
  for (const sisClass of roster.classes) {
    plan.watermark = newer(plan.watermark, sisClass.dateLastModified);
    if (seenClasses.has(sisClass.sourcedId)) continue;
    seenClasses.add(sisClass.sourcedId);
    const link = classLinks.get(sisClass.sourcedId);
    const group = link ? groupById.get(link.target_id) : undefined;
    const teacher = teacherOf.get(sisClass.sourcedId);
    const name = sisClass.title.slice(0, 200);
    const description = sisClass.classCode ? `OneRoster class ${sisClass.classCode}`.slice(0, 2000) : '';
    if (group) {
      groupKeys.set(sisClass.sourcedId, group.id);
      if (!sisClass.active) {
        if (link!.active) {
          plan.changeGroups.push({ id: group.id, sourcedId: sisClass.sourcedId, retire: true });
          retired.add(group.id);
          plan.links.class.set(sisClass.sourcedId, { target: group.id, active: false });
        }
        continue;
      }
      const change: GroupChange = { id: group.id, sourcedId: sisClass.sourcedId };
      if (name !== group.name) change.name = name;
      if (description !== group.description) change.description = description;
      if (teacher && refKey(teacher) !== group.faculty_id) change.teacher = teacher;
      if (Object.keys(change).length > 2) plan.changeGroups.push(change);
      if (!link!.active) plan.links.class.set(sisClass.sourcedId, { target: group.id, active: true });
      continue;
    }
    if (!sisClass.active) continue;
    if (!teacher) {
      // Every group has an owning teacher; a class without one waits for its teacher's enrollment.
      plan.skipped++;
      continue;
    }
    plan.createGroups.push({ sourcedId: sisClass.sourcedId, name, description, teacher });
    groupKeys.set(sisClass.sourcedId, `new:${sisClass.sourcedId}`);
    plan.links.class.set(sisClass.sourcedId, { target: null, active: true });
  }
  if (kind === 'full') {
    for (const [sourcedId, link] of classLinks) {
      if (seenClasses.has(sourcedId) || !link.active || !groupById.has(link.target_id)) continue;
      plan.changeGroups.push({ id: link.target_id, sourcedId, retire: true });
      retired.add(link.target_id);
      plan.links.class.set(sourcedId, { target: link.target_id, active: false });
    }
  }
  // A delta names only changed classes: the others keep the group they were linked to.
  for (const [sourcedId, link] of classLinks)
    if (!groupKeys.has(sourcedId) && link.active && groupById.has(link.target_id)) groupKeys.set(sourcedId, link.target_id);

  // ---- enrollments → membership
  const syncedGroupIds = [...new Set([...groupKeys.values()].filter((key) => !key.startsWith('new:')))];
  const memberRows =
    syncedGroupIds.length > 0
      ? await tx.groupMembers.findAllPlain({ attributes: ['group_id', 'student_id'], where: { group_id: { [Op.in]: syncedGroupIds } } })
      : [];
  const current = new Map<string, Set<string>>();
  for (const row of memberRows) {
    const set = current.get(row.group_id) ?? new Set<string>();
    set.add(row.student_id);
    current.set(row.group_id, set);
  }
  const wanted = new Map<string, Map<string, PersonRef>>();
  const unwanted = new Map<string, Set<string>>();
  for (const enrollment of roster.enrollments) {
    plan.watermark = newer(plan.watermark, enrollment.dateLastModified);
    if (enrollment.role !== 'student') continue;
    const groupKey = groupKeys.get(enrollment.classSourcedId);
    const student = personOf(enrollment.userSourcedId);
    if (!groupKey || !student || student.role !== 'student') continue;
    if (enrollment.active) {
      const set = wanted.get(groupKey) ?? new Map<string, PersonRef>();
      set.set(refKey(student.ref), student.ref);
      wanted.set(groupKey, set);
    } else if ('id' in student.ref) {
      const set = unwanted.get(groupKey) ?? new Set<string>();
      set.add(student.ref.id);
      unwanted.set(groupKey, set);
    }
  }
  for (const groupKey of new Set([...groupKeys.values()])) {
    const members = current.get(groupKey) ?? new Set<string>();
    const want = wanted.get(groupKey) ?? new Map<string, PersonRef>();
    let add: PersonRef[];
    let remove: string[];
    if (retired.has(groupKey)) {
      add = [];
      remove = [...members];
    } else if (kind === 'full') {
      add = [...want.entries()].filter(([key]) => !members.has(key)).map(([, ref]) => ref);
      remove = [...members].filter((id) => !want.has(id));
    } else {
      add = [...want.entries()].filter(([key]) => !members.has(key)).map(([, ref]) => ref);
      remove = [...(unwanted.get(groupKey) ?? [])].filter((id) => members.has(id) && !want.has(id));
    }
    if (add.length > 0 || remove.length > 0) plan.memberships.set(groupKey, { add, remove });
  }
  return plan;
}
