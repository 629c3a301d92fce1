import { iso } from './common.js';
import type { ExamRow } from '../models/exam.js';
import type { PersonRow } from '../models/person.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { SubmissionRow } from '../models/submission.js';

/** The signed-in user as the learner side sees themself: no status, no institution ids, no personal email. */
export function presentLearnerUser(row: PersonRow) {
  return { id: row.id, login_email: row.login_email, full_name: row.full_name, role: row.role };
}

/** The student's own latest submission for an exam: state and score only (no feedback, answers or files). */
export function presentOwnSubmissionState(row: SubmissionRow | null) {
  return row ? { id: row.id, status: row.status, score: row.score } : null;
}

/** An assigned exam as a student sees it: no code_spec, ai_policy, owner or description internals. */
export function presentLearnerExam(exam: ExamRow, submission: SubmissionRow | null) {
  return {
    id: exam.id,
    title: exam.title,
    exam_type: exam.exam_type,
    app: exam.app,
    due_date: iso(exam.due_date),
    time_limit_minutes: exam.time_limit_minutes,
    max_score: exam.max_score,
    proctoring: exam.proctoring,
    status: exam.status,
    submission: presentOwnSubmissionState(submission),
  };
}

/** An uploaded attempt file; where it is stored stays internal. */
export function presentAttemptFile(row: StoredFileRow) {
  return { ref: row.id, name: row.name, size: Number(row.size), sha256: row.sha256 };
}

/** The receipt of a submission: what was recorded and when, nothing of its content. */
export function presentSubmissionReceipt(row: SubmissionRow) {
  return {
    id: row.id,
    exam_id: row.exam_id,
    student_id: row.student_id,
    attempt_id: row.attempt_id,
    status: row.status,
    submitted_at: row.submitted_at.toISOString(),
  };
}
