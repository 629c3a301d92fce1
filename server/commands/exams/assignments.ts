import type { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { assignedGroupIds, assignmentsOf, createAssignments, notifyAssigned, resolveGroups, studentsOfGroups, type ExamAssignmentView } from './audience.js';
import { findExam, saveExam } from './exams.js';

/** The exam's groups, oldest assignment first. */
export async function listAssignments(tenant: Tenant, examId: string): Promise<ExamAssignmentView[]> {
  const exam = await findExam(tenant, examId);
  return assignmentsOf(tenant, exam.id);
}

export interface AssignResult {
  items: ExamAssignmentView[];
  /** Group ids this call assigned; those already assigned are not repeated. */
  assigned: string[];
}

/**
 * Assigns groups (already assigned ones stay as they are). When the exam is published, the
 * students it newly reaches (not already reached through another of its groups) and their
 * verified guardians are mailed; a draft mails on publish, a closed exam never.
 */
export function assignGroups(tenant: Tenant, id: string, groupIds: readonly string[]): Promise<AssignResult> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    const groups = await resolveGroups(tx, groupIds);
    const current = await assignedGroupIds(tx, exam.id);
    const fresh = groups.filter((groupId) => !current.includes(groupId));
    if (fresh.length > 0) {
      const reachedBefore = await studentsOfGroups(tx, current);
      await createAssignments(tx, exam.id, fresh);
      await saveExam(tx, exam);
      await emit(tx, 'exam.assigned', { exam_id: exam.id, group_ids: fresh });
      if (exam.status === 'published') {
        const reached = await studentsOfGroups(tx, fresh);
        await notifyAssigned(tx, exam, new Set([...reached].filter((studentId) => !reachedBefore.has(studentId))));
      }
    }
    return { items: await assignmentsOf(tx, exam.id), assigned: fresh };
  });
}

/** Unassigns one group; a group that is not assigned (or not this institution's) is `404 not_found`. No event type exists for it. */
export function unassignGroup(tenant: Tenant, id: string, groupId: string): Promise<{ exam_id: string; group_id: string; deleted: true }> {
  return tenant.inTransaction(async (tx) => {
    const exam = await findExam(tx, id);
    const removed = await tx.examAssignments.destroy({ exam_id: exam.id, group_id: groupId });
    if (removed === 0) throw new AppError('not_found', 'That group is not assigned to this exam.');
    await saveExam(tx, exam);
    return { exam_id: exam.id, group_id: groupId, deleted: true as const };
  });
}
