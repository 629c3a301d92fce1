import { Op } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { emit } from '../../events/emit.js';
import { newId } from '../../ids.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { PersonRole } from '../../models/person.js';
import { assignGroups } from '../exams/assignments.js';
import { createPeople, updatePerson } from '../people/people.js';
import type { MembersPlan } from './nrps-plan.js';

/** New people per transaction, as a OneRoster sync makes them: the institution's other writers take turns between them. */
export const MEMBERS_PER_TRANSACTION = 250;
/** Licenses of people a class list creates: a school year, as at launch. */
const LICENSE_DAYS = 365;

/**
 * The plan's new people, MEMBERS_PER_TRANSACTION to a transaction, each with their LMS subject in
 * the same transaction: a sync cut short leaves them findable by subject, and the next one does
 * not make them again. A subject a launch stored meanwhile is that launch's person. Returns the
 * person id of each subject.
 */
async function createMembers(tenant: Tenant, platform: LtiPlatformRow, plan: MembersPlan): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  for (let from = 0; from < plan.create.length; from += MEMBERS_PER_TRANSACTION) {
    const slice = plan.create.slice(from, from + MEMBERS_PER_TRANSACTION);
    await tenant.inTransaction(async (tx) => {
      const taken = await tx.ltiSubjects.findAllPlain({
        attributes: ['subject', 'person_id'],
        where: { platform_id: platform.id, subject: { [Op.in]: slice.map((member) => member.subject) } },
      });
      for (const row of taken) made.set(row.subject, row.person_id);
      const now = new Date();
      for (const role of ['faculty', 'student'] as PersonRole[]) {
        const inputs = slice.filter((member) => member.role === role && !made.has(member.subject));
        const rows = await createPeople(
          tx,
          role,
          inputs.map((member) => ({ full_name: member.full_name, personal_email: member.email, license_days: LICENSE_DAYS })),
        );
        await tx.ltiSubjects.bulkCreate(
          rows.map((row, index) => ({ id: newId('ltu'), platform_id: platform.id, subject: inputs[index]!.subject, person_id: row.id, created_at: now })),
        );
        rows.forEach((row, index) => made.set(inputs[index]!.subject, row.id));
      }
    });
  }
  return made;
}

/**
 * Carries out a class list plan: new people first (createMembers), then in one transaction the
 * subjects of people matched by email, placeholder names replaced, the group made (when the
 * exam had none for it) and its membership set, with the events the same changes through the API
 * emit (`group.created`, `group.updated`, `student.updated`), and the group assigned to the exam
 * (`exam.assigned`, and the notices of a published exam) and remembered on the link.
 */
export async function applyMembersPlan(tenant: Tenant, platform: LtiPlatformRow, linkId: string, examId: string, plan: MembersPlan): Promise<string> {
  const made = await createMembers(tenant, platform, plan);
  return tenant.inTransaction(async (tx: TenantTx) => {
    const now = new Date();
    const taken = new Set(
      (
        await tx.ltiSubjects.findAllPlain({
          attributes: ['subject'],
          where: { platform_id: platform.id, subject: { [Op.in]: plan.subjects.map((row) => row.subject) } },
        })
      ).map((row) => row.subject),
    );
    const subjects = plan.subjects.filter((row) => !taken.has(row.subject));
    if (subjects.length > 0) {
      await tx.ltiSubjects.bulkCreate(
        subjects.map((row) => ({ id: newId('ltu'), platform_id: platform.id, subject: row.subject, person_id: row.personId, created_at: now })),
      );
    }
    for (const person of plan.rename) await updatePerson(tx, person.role, person.id, { full_name: person.full_name });

    const studentIds = [...new Set(plan.add.flatMap((ref) => ('id' in ref ? [ref.id] : made.has(ref.subject) ? [made.get(ref.subject)!] : [])))];
    const students =
      studentIds.length > 0 ? await tx.people.findAllPlain({ attributes: ['id', 'created_at'], where: { role: 'student', id: { [Op.in]: studentIds } } }) : [];
    const newGroup = 'create' in plan.group ? plan.group.create : null;
    const groupId = 'id' in plan.group ? plan.group.id : newId('grp');
    if (newGroup) {
      await tx.groups.create({
        id: groupId,
        name: newGroup.name,
        description: 'Class list from the LMS (LTI Names and Role Provisioning).',
        faculty_id: newGroup.faculty_id,
      });
    }
    if (plan.remove.length > 0) await tx.groupMembers.destroy({ group_id: groupId, student_id: { [Op.in]: plan.remove } });
    const already = new Set(
      students.length > 0
        ? (
            await tx.groupMembers.findAllPlain({
              attributes: ['student_id'],
              where: { group_id: groupId, student_id: { [Op.in]: students.map((row) => row.id) } },
            })
          ).map((row) => row.student_id)
        : [],
    );
    const joining = students.filter((student) => !already.has(student.id));
    if (joining.length > 0) {
      await tx.groupMembers.bulkCreate(
        joining.map((student) => ({ group_id: groupId, student_id: student.id, added_at: now, student_created_at: student.created_at })),
      );
    }
    const studentCount = await tx.groupMembers.count({ where: { group_id: groupId } });
    if (newGroup) {
      await emit(tx, 'group.created', { group_id: groupId, faculty_id: newGroup.faculty_id, student_count: studentCount });
    } else if (joining.length > 0 || plan.remove.length > 0) {
      await tx.groups.update({ updated_at: now }, { id: groupId });
      await emit(tx, 'group.updated', { group_id: groupId, changed: ['members'], student_count: studentCount });
    }
    // Idempotent: a group the exam already has stays as it is (no event, no notice).
    await assignGroups(tx, examId, [groupId]);
    await tx.ltiResourceLinks.update({ members_group_id: groupId }, { id: linkId });
    return groupId;
  });
}
