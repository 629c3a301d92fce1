import { Op } from 'sequelize';
import type { TenantTx } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import type { ExamRow } from '../../models/exam.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { LtiResourceLinkRow } from '../../models/lti-launch.js';
import type { PersonRole } from '../../models/person.js';
import { GUARD_DEFAULTS } from '../oneroster/connections.js';
import { placeholderName } from './claims.js';
import type { ContextRoster } from './nrps-read.js';

/** What a class list sync counts: the shape of `oneroster sync`'s object, with what only NRPS has. */
export interface MembersCounts {
  created: { students: number; faculty: number; groups: number };
  updated: { students: number; faculty: number; groups: number };
  suspended: { students: number; faculty: number; groups: number };
  reactivated: { students: number; faculty: number };
  memberships: { added: number; removed: number };
  /** Members left out: unmatched with provisioning off, a learner who is a faculty member here, no usable role. */
  skipped: number;
  /** Members found here by their stored LMS subject, and by login email (their subject is then stored). */
  matched: { subject: number; email: number };
  /** Members the class list named (every page), and its pages. */
  members: number;
  pages: number;
}

export const emptyMembersCounts = (): MembersCounts => ({
  created: { students: 0, faculty: 0, groups: 0 },
  updated: { students: 0, faculty: 0, groups: 0 },
  suspended: { students: 0, faculty: 0, groups: 0 },
  reactivated: { students: 0, faculty: 0 },
  memberships: { added: 0, removed: 0 },
  skipped: 0,
  matched: { subject: 0, email: 0 },
  members: 0,
  pages: 0,
});

/** A student the group will hold: one here already, or one the sync creates (by LMS subject). */
export type MemberRef = { id: string } | { subject: string };

/** What a class list sync would do; `applyMembersPlan` carries it out, a dry run only counts it. */
export interface MembersPlan {
  /** The group kept equal to the context's learners: an existing one, or one to make for the context. */
  group: { id: string; name: string } | { create: { name: string; faculty_id: string } };
  create: Array<{ subject: string; role: PersonRole; full_name: string; email: string | null }>;
  /** LMS subjects to store for people matched by email. */
  subjects: Array<{ subject: string; personId: string }>;
  /** People provisioned under a placeholder name that the class list now names. */
  rename: Array<{ id: string; role: PersonRole; full_name: string }>;
  add: MemberRef[];
  remove: string[];
  /** Members of the group before the sync (what the guard weighs removals against). */
  groupSize: number;
  counts: MembersCounts;
}

const inChunks = async <T, R>(items: readonly T[], read: (chunk: T[]) => Promise<R[]>): Promise<R[]> => {
  const out: R[] = [];
  for (let start = 0; start < items.length; start += 500) out.push(...(await read(items.slice(start, start + 500))));
  return out;
};

/**
 * The group a link's class list keeps (docs/decisions/nrps.md): the one an earlier sync chose, if
 * it still exists; else the exam's only assigned group that no other link and no OneRoster class
 * keeps (the SIS's class is the SIS's: the course gets a group of its own beside it); else, among
 * several, the one named as the context; else a new group named after the context, owned by the
 * exam's teacher (assigned to the exam when the sync is applied).
 */
async function chooseGroup(tx: TenantTx, link: LtiResourceLinkRow, exam: ExamRow, contextTitle: string | null): Promise<MembersPlan['group']> {
  if (link.members_group_id) {
    const kept = await tx.groups.findById(link.members_group_id, { attributes: ['id', 'name'] });
    if (kept) return { id: kept.id, name: kept.name };
  }
  const name = (contextTitle ?? link.context_title ?? link.title ?? `LMS course ${link.context_id ?? link.resource_link_id}`).slice(0, 200);
  const assigned = (await tx.examAssignments.findAll({ attributes: ['group_id'], where: { exam_id: exam.id } })).map((row) => row.group_id);
  const keptByOthers = new Set(
    (await tx.ltiResourceLinks.findAll({ attributes: ['members_group_id'], where: { id: { [Op.ne]: link.id }, members_group_id: { [Op.ne]: null } } })).map(
      (row) => row.members_group_id,
    ),
  );
  const keptBySis = new Set(
    assigned.length > 0
      ? (await tx.onerosterLinks.findAll({ attributes: ['target_id'], where: { kind: 'class', target_id: { [Op.in]: assigned } } })).map((row) => row.target_id)
      : [],
  );
  const free = assigned.filter((groupId) => !keptByOthers.has(groupId) && !keptBySis.has(groupId));
  const groups = free.length > 0 ? await tx.groups.findAll({ attributes: ['id', 'name'], where: { id: { [Op.in]: free } } }) : [];
  const chosen = groups.length === 1 ? groups[0] : groups.find((group) => group.name === name);
  if (chosen) return { id: chosen.id, name: chosen.name };
  return { create: { name, faculty_id: exam.faculty_id } };
}

/**
 * The plan of a class list sync, read in one transaction. Each member is matched by the LMS
 * subject stored for the platform, then by login email; an active member no one matches is
 * created when the platform provisions at launch (Learner → student, Instructor → faculty), as a
 * launch would. The group's members become the context's active learners: the others (Inactive,
 * Deleted, or no longer in the context) are removed from the group, never deleted as people.
 */
export async function planMembers(tx: TenantTx, platform: LtiPlatformRow, link: LtiResourceLinkRow, roster: ContextRoster): Promise<MembersPlan> {
  const exam = link.exam_id ? await tx.exams.findById(link.exam_id) : null;
  if (!exam) throw new AppError('conflict', `The LMS link ${link.resource_link_id} is not linked to an exam, so its class list has no group to fill.`);
  const counts = emptyMembersCounts();
  counts.members = roster.members.length;
  counts.pages = roster.pages;
  const group = await chooseGroup(tx, link, exam, roster.context.title);
  if ('create' in group) counts.created.groups = 1;
  const plan: MembersPlan = { group, create: [], subjects: [], rename: [], add: [], remove: [], groupSize: 0, counts };

  const userIds = roster.members.map((member) => member.userId);
  const subjectRows = await inChunks(userIds, (chunk) =>
    tx.ltiSubjects.findAllPlain({ attributes: ['subject', 'person_id'], where: { platform_id: platform.id, subject: { [Op.in]: chunk } } }),
  );
  const emails = [...new Set(roster.members.flatMap((member) => (member.email ? [member.email] : [])))];
  const attributes = ['id', 'role', 'full_name', 'login_email'] as const;
  const bySubjectRows = await inChunks(
    subjectRows.map((row) => row.person_id),
    (chunk) => tx.people.findAllPlain({ attributes: [...attributes], where: { id: { [Op.in]: chunk } } }),
  );
  const byEmailRows = await inChunks(emails, (chunk) => tx.people.findAllPlain({ attributes: [...attributes], where: { login_email: { [Op.in]: chunk } } }));
  const peopleById = new Map(bySubjectRows.map((person) => [person.id, person]));
  const subjectPerson = new Map(subjectRows.flatMap((row) => (peopleById.has(row.person_id) ? [[row.subject, peopleById.get(row.person_id)!] as const] : [])));
  const storedSubjects = new Set(subjectRows.map((row) => row.subject));
  const emailPerson = new Map(byEmailRows.map((person) => [person.login_email, person]));

  const wanted = new Map<string, MemberRef>();
  for (const member of roster.members) {
    let person = subjectPerson.get(member.userId);
    if (person) counts.matched.subject++;
    else if (member.email && (person = emailPerson.get(member.email))) {
      counts.matched.email++;
      // A subject stored for someone since removed is left as it is: the launch's match replaces it.
      if (!storedSubjects.has(member.userId)) plan.subjects.push({ subject: member.userId, personId: person.id });
    }
    if (person) {
      if (member.name && member.name !== person.full_name && person.full_name === placeholderName(platform, member.userId)) {
        plan.rename.push({ id: person.id, role: person.role, full_name: member.name });
        counts.updated[person.role === 'student' ? 'students' : 'faculty']++;
      }
      if (!member.active || member.role !== 'student') continue;
      if (person.role === 'student') wanted.set(person.id, { id: person.id });
      else counts.skipped++;
      continue;
    }
    if (!member.active) continue;
    if (!member.role || !platform.provision_users || storedSubjects.has(member.userId)) {
      counts.skipped++;
      continue;
    }
    plan.create.push({ subject: member.userId, role: member.role, full_name: member.name ?? placeholderName(platform, member.userId), email: member.email });
    counts.created[member.role === 'student' ? 'students' : 'faculty']++;
    if (member.role === 'student') wanted.set(`new:${member.userId}`, { subject: member.userId });
  }

  const current =
    'id' in group ? (await tx.groupMembers.findAllPlain({ attributes: ['student_id'], where: { group_id: group.id } })).map((row) => row.student_id) : [];
  plan.groupSize = current.length;
  const currentSet = new Set(current);
  plan.add = [...wanted.entries()].filter(([key]) => !currentSet.has(key)).map(([, ref]) => ref);
  plan.remove = current.filter((studentId) => !wanted.has(studentId));
  counts.memberships = { added: plan.add.length, removed: plan.remove.length };
  return plan;
}

export interface MembersGuardVerdict {
  held: boolean;
  reason: string | null;
}

/**
 * The OneRoster guard's class rule applied to a class list: removing more than the class share of
 * the group's members, and at least the class minimum, is held back until confirmed. The numbers
 * are the institution's OneRoster connection's when it has one, else the same defaults.
 */
export async function guardMembersPlan(tx: TenantTx, plan: MembersPlan): Promise<MembersGuardVerdict> {
  const removing = plan.remove.length;
  if (removing === 0) return { held: false, reason: null };
  const connection = await tx.onerosterConnections.findOne({ attributes: ['class_share', 'class_minimum'] });
  const share = connection?.class_share ?? GUARD_DEFAULTS.class_share;
  const minimum = connection?.class_minimum ?? GUARD_DEFAULTS.class_minimum;
  if (removing < minimum || removing <= share * plan.groupSize) return { held: false, reason: null };
  const name = 'id' in plan.group ? plan.group.name : plan.group.create.name;
  return {
    held: true,
    reason: `It would remove ${removing} of the ${plan.groupSize} members of the group "${name}", more than ${Math.round(share * 1000) / 10}%.`,
  };
}
