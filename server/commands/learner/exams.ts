import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import type { LearnerAuth } from './auth.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { ExamRow } from '../../models/exam.js';
import type { PersonRow } from '../../models/person.js';
import type { SubmissionRow } from '../../models/submission.js';

/* What a student's exam list is made of; the attempt and submission commands (learner.ts) share these reads. */

/** Only students take exams; a faculty member's learner session is `403 forbidden` on every exam operation. */
export function studentOf(learner: LearnerAuth): PersonRow {
  if (learner.person.role !== 'student') throw new AppError('forbidden', 'Only students take exams; this session belongs to a faculty member.');
  return learner.person;
}

/** Ids of every exam assigned to the student through the groups they belong to, whatever its status. */
export async function assignedExamIds(tenant: Tenant, student: PersonRow): Promise<string[]> {
  const memberships = await tenant.groupMembers.findAll({ attributes: ['group_id'], where: { student_id: student.id } });
  if (memberships.length === 0) return [];
  const assignments = await tenant.examAssignments.findAll({
    attributes: ['exam_id'],
    where: { group_id: { [Op.in]: memberships.map((row) => row.group_id) } },
  });
  return [...new Set(assignments.map((row) => row.exam_id))];
}

/** The student's newest submission for each of the given exams. */
export async function latestSubmissions(tenant: Tenant, student: PersonRow, examIds: string[]): Promise<Map<string, SubmissionRow>> {
  const latest = new Map<string, SubmissionRow>();
  if (examIds.length === 0) return latest;
  const rows = await tenant.submissions.findAll({
    where: { student_id: student.id, exam_id: { [Op.in]: examIds } },
    order: [
      ['submitted_at', 'DESC'],
      ['created_at', 'DESC'],
    ],
  });
  for (const row of rows) if (!latest.has(row.exam_id)) latest.set(row.exam_id, row);
  return latest;
}

/** The student's newest unsubmitted attempt for each of the given exams (open, or with its time run out). */
async function unsubmittedAttempts(tenant: Tenant, student: PersonRow, examIds: string[]): Promise<Map<string, AttemptRow>> {
  const newest = new Map<string, AttemptRow>();
  if (examIds.length === 0) return newest;
  const rows = await tenant.attempts.findAll({
    where: { student_id: student.id, exam_id: { [Op.in]: examIds }, submitted_at: null },
    order: [['started_at', 'DESC']],
  });
  for (const row of rows) if (!newest.has(row.exam_id)) newest.set(row.exam_id, row);
  return newest;
}

export interface AssignedExam {
  exam: ExamRow;
  submission: SubmissionRow | null;
  /** The attempt `startAttempt` would look at: a reload finds its clock here. */
  attempt: AttemptRow | null;
}

/**
 * GET /app/exams: the published exams assigned to the student, each with the student's newest
 * submission. Ordered by due date (exams without one last), then title.
 */
export async function listAssignedExams(learner: LearnerAuth): Promise<AssignedExam[]> {
  const student = studentOf(learner);
  const { tenant } = learner;
  const ids = await assignedExamIds(tenant, student);
  if (ids.length === 0) return [];
  const exams = await tenant.exams.findAll({ where: { id: { [Op.in]: ids }, status: 'published' } });
  const examIds = exams.map((exam) => exam.id);
  const [submissions, attempts] = await Promise.all([latestSubmissions(tenant, student, examIds), unsubmittedAttempts(tenant, student, examIds)]);
  const due = (exam: ExamRow) => exam.due_date?.getTime() ?? Number.POSITIVE_INFINITY;
  exams.sort((a, b) => due(a) - due(b) || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return exams.map((exam) => ({ exam, submission: submissions.get(exam.id) ?? null, attempt: attempts.get(exam.id) ?? null }));
}

/** GET /app/exams/{id}: one of the exams GET /app/exams lists; any other id is `404 not_found`. */
export async function getAssignedExam(learner: LearnerAuth, examId: string): Promise<AssignedExam> {
  const student = studentOf(learner);
  const { tenant } = learner;
  const exam = await tenant.exams.findById(examId);
  if (!exam || exam.status !== 'published' || !(await assignedExamIds(tenant, student)).includes(exam.id)) throw notFound('exam');
  const [submissions, attempts] = await Promise.all([latestSubmissions(tenant, student, [exam.id]), unsubmittedAttempts(tenant, student, [exam.id])]);
  return { exam, submission: submissions.get(exam.id) ?? null, attempt: attempts.get(exam.id) ?? null };
}
