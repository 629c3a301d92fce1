import { Op } from 'sequelize';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import type { PersonRow } from '../../models/person.js';
import type { SubmissionRow } from '../../models/submission.js';
import type { LearnerAuth } from '../learner/auth.js';
import { getSubmissionDetail, gradeSubmission, listSubmissions, type GradeInput, type SubmissionDetail } from '../exams/submissions.js';

/**
 * Grading from the LMS (docs/lms.md#grading-from-the-lms): an instructor's LTI launch opens a
 * session limited to one exam (`learner_sessions.grading_exam_id`). With it the teacher reads that
 * exam's submissions, grades and comments, without a portal account: the Instructor role of the
 * platform's signed token is the grant. Any other exam's submission is `404 not_found`, as if it
 * did not exist. Each grade is in the institution's audit log under the teacher's name and the
 * platform, in the grade's own transaction.
 */

const notGrading = () => new AppError('forbidden', "This session may not grade: grading opens from an instructor's launch of the exam in the LMS.");

/** The exam this session may grade; `403 forbidden` for any other session. */
async function gradingExam(learner: LearnerAuth): Promise<ExamRow> {
  const examId = learner.session.grading_exam_id;
  if (!examId) throw notGrading();
  const exam = await learner.tenant.exams.findById(examId);
  // The exam was deleted since the launch: the session has nothing left to grade.
  if (!exam) throw new AppError('not_found', 'The exam of this grading session no longer exists.');
  return exam;
}

export interface GradingRow {
  submission: SubmissionRow;
  student: Pick<PersonRow, 'id' | 'full_name' | 'login_email'> | null;
}

export interface GradingPage {
  exam: ExamRow;
  items: GradingRow[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** The exam and a page of its submissions (oldest first), each with its student's name. */
export async function gradingOverview(learner: LearnerAuth, query: { page: number; limit: number }): Promise<GradingPage> {
  const exam = await gradingExam(learner);
  const page = await listSubmissions(learner.tenant, { exam_id: exam.id, page: query.page, limit: query.limit });
  const ids = [...new Set(page.items.map((submission) => submission.student_id))];
  const students = ids.length ? await learner.tenant.people.findAll({ attributes: ['id', 'full_name', 'login_email'], where: { id: { [Op.in]: ids } } }) : [];
  const byId = new Map(students.map((student) => [student.id, student]));
  return { ...page, exam, items: page.items.map((submission) => ({ submission, student: byId.get(submission.student_id) ?? null })) };
}

/** A submission of this session's exam; another exam's is `404 not_found`, exactly as an unknown id. */
async function assertOfExam(learner: LearnerAuth, exam: ExamRow, submissionId: string): Promise<void> {
  const found = await learner.tenant.submissions.findOne({ attributes: ['id'], where: { id: submissionId, exam_id: exam.id } });
  if (!found) throw new AppError('not_found', 'No submission with this id in the exam you are grading.');
}

export async function gradingSubmission(learner: LearnerAuth, submissionId: string): Promise<{ detail: SubmissionDetail; student: PersonRow | null }> {
  const exam = await gradingExam(learner);
  await assertOfExam(learner, exam, submissionId);
  const detail = await getSubmissionDetail(learner.tenant, submissionId, { withRecordings: false });
  return { detail, student: await learner.tenant.people.findById(detail.submission.student_id) };
}

/**
 * Grades (or asks for a resubmission) as gradeSubmission does, with `graded_by` the teacher's name
 * and an audit entry naming the teacher, the platform and the LMS role, both in one transaction:
 * a grade is never recorded without its entry.
 */
export async function gradeFromLms(
  learner: LearnerAuth,
  submissionId: string,
  input: Pick<GradeInput, 'score' | 'feedback'>,
  requestId: string,
): Promise<SubmissionRow> {
  const exam = await gradingExam(learner);
  await assertOfExam(learner, exam, submissionId);
  const teacher = learner.person;
  return learner.tenant.inTransaction(async (tx) => {
    const graded = await gradeSubmission(tx, submissionId, { ...input, graded_by: `${teacher.full_name} (LMS instructor)`.slice(0, 200) });
    await tx.auditLog.create({
      id: newId('aud'),
      account_id: null,
      actor_email: teacher.login_email,
      action: 'POST /v1/app/grading/submissions/{id}/grade',
      description: input.score === -1 ? 'Asked for a resubmission from the LMS (instructor launch)' : 'Graded a submission from the LMS (instructor launch)',
      target: JSON.stringify({
        submission_id: graded.id,
        exam_id: exam.id,
        student_id: graded.student_id,
        person_id: teacher.id,
        session_id: learner.session.id,
        via: 'lti_instructor_launch',
      }),
      ip: learner.ip?.slice(0, 64) ?? null,
      request_id: requestId.slice(0, 100),
    });
    return graded;
  });
}
