import { Op, Sequelize } from 'sequelize';
import type { Tenant, TenantTx } from '../../db/tenant.js';
import { validationError } from '../../errors.js';
import { examAssignedGuardianNotice, examAssignedNotice } from '../../mail/exam-notices.js';
import { queueMail } from '../../mail/outbox.js';
import type { ExamRow } from '../../models/exam.js';

// Who an exam reaches: the groups assigned to it, their students, and the notice each of them and
// their verified guardians get when it opens to them. Shared by the exam lifecycle (exams.ts) and
// the assignment operations (exam-assignments.ts), so neither imports the other.

/** Personal emails are sealed under this context (see people.ts); the same string opens them. */
const PERSONAL_EMAIL = 'people.personal_email';

/** Member counts of several groups in one query; groups without members are absent (0). */
async function memberCounts(tenant: Tenant, groupIds: readonly string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = (await tenant.groupMembers.findAll({
    attributes: ['group_id', [Sequelize.fn('COUNT', Sequelize.col('student_id')), 'student_count']],
    where: { group_id: { [Op.in]: [...groupIds] } },
    group: ['group_id'],
    raw: true,
  })) as unknown as Array<{ group_id: string; student_count: number | string }>;
  return new Map(rows.map((row) => [row.group_id, Number(row.student_count)]));
}

/** Distinct ids of the students in these groups. */
export async function studentsOfGroups(tenant: Tenant, groupIds: readonly string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await tenant.groupMembers.findAll({ attributes: ['student_id'], where: { group_id: { [Op.in]: [...groupIds] } } });
  return new Set(rows.map((row) => row.student_id));
}

export async function assignedGroupIds(tenant: Tenant, examId: string): Promise<string[]> {
  const rows = await tenant.examAssignments.findAll({ attributes: ['group_id'], where: { exam_id: examId } });
  return rows.map((row) => row.group_id);
}

/** Ids of every student the exam reaches through its groups. */
export async function assignedStudentIds(tenant: Tenant, examId: string): Promise<Set<string>> {
  return studentsOfGroups(tenant, await assignedGroupIds(tenant, examId));
}

/** An assigned group as the assignments list and the single GET show it. */
export interface ExamAssignmentView {
  group_id: string;
  name: string;
  studentCount: number;
  assignedAt: Date;
}

export async function assignmentsOf(tenant: Tenant, examId: string): Promise<ExamAssignmentView[]> {
  const assignments = await tenant.examAssignments.findAll({
    where: { exam_id: examId },
    order: [
      ['assigned_at', 'ASC'],
      ['group_id', 'ASC'],
    ],
  });
  if (assignments.length === 0) return [];
  const groupIds = assignments.map((row) => row.group_id);
  const [groups, counts] = await Promise.all([
    tenant.groups.findAll({ attributes: ['id', 'name'], where: { id: { [Op.in]: groupIds } } }),
    memberCounts(tenant, groupIds),
  ]);
  const names = new Map(groups.map((group) => [group.id, group.name]));
  const views: ExamAssignmentView[] = [];
  for (const assignment of assignments) {
    const name = names.get(assignment.group_id);
    if (name === undefined) continue;
    views.push({ group_id: assignment.group_id, name, studentCount: counts.get(assignment.group_id) ?? 0, assignedAt: assignment.assigned_at });
  }
  return views;
}

/** Groups of this institution by id; any other id (unknown, another institution's) is `422 validation_error`. */
export async function resolveGroups(tx: TenantTx, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = new Set((await tx.groups.findAll({ attributes: ['id'], where: { id: { [Op.in]: unique } } })).map((group) => group.id));
  const unknown = unique.filter((id) => !found.has(id));
  if (unknown.length > 0) {
    throw validationError(
      unknown.map((id) => ({ path: `group_ids.${ids.indexOf(id)}`, message: `No group "${id}" in this institution.` })),
      `Unknown group ids: ${unknown.join(', ')}.`,
    );
  }
  return unique;
}

export async function createAssignments(tx: TenantTx, examId: string, groupIds: readonly string[]): Promise<void> {
  const assignedAt = new Date();
  for (const groupId of groupIds) await tx.examAssignments.create({ exam_id: examId, group_id: groupId, assigned_at: assignedAt });
}

/**
 * Mails the students (at their personal email, when they have one) and their verified guardians
 * that the exam is now open to them, in the caller's transaction. Suspended students, who cannot
 * sign in, are skipped. Addresses are never logged nor returned: only the outbox holds them, sealed.
 */
export async function notifyAssigned(tx: TenantTx, exam: ExamRow, studentIds: ReadonlySet<string>): Promise<void> {
  if (studentIds.size === 0) return;
  const students = await tx.people.findAll({
    where: { role: 'student', status: 'active', id: { [Op.in]: [...studentIds] } },
    order: [
      ['full_name', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  if (students.length === 0) return;
  const institution = await tx.institution();
  const guardians = await tx.guardianLinks.findAll({
    where: { verified: true, student_id: { [Op.in]: students.map((student) => student.id) } },
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  for (const student of students) {
    if (student.personal_email_sealed) {
      await queueMail(tx, {
        to: tx.fieldCrypto.decrypt(student.personal_email_sealed, PERSONAL_EMAIL),
        ...examAssignedNotice(exam, student, institution),
        kind: 'exam_assigned',
        about: { kind: 'exam', id: exam.id },
      });
    }
    for (const guardian of guardians.filter((link) => link.student_id === student.id)) {
      await queueMail(tx, {
        to: guardian.guardian_email,
        ...examAssignedGuardianNotice(exam, student, institution, guardian.guardian_name),
        kind: 'exam_assigned_guardian',
        about: { kind: 'exam', id: exam.id },
      });
    }
  }
}
