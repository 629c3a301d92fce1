import { iso } from './common.js';
import { presentExamArchive } from './exam.js';
import type { FileLinker } from './submission.js';
import type { AssignedExam } from '../commands/learner/exams.js';
import type { AttemptRow } from '../models/attempt.js';
import type { DeviceSeatRow } from '../models/device-seat.js';
import type { LearnerSessionRow } from '../models/learner.js';
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

type FileRef = string | { ref: string };
const asRef = (value: unknown): FileRef | undefined =>
  typeof value === 'string' ? value : value && typeof value === 'object' && 'ref' in value ? { ref: String(value.ref) } : undefined;

/**
 * A coding exam's `code_spec` as its student sees it: the hidden tests' IV stays out (with the
 * key it would open them), as would any key an older row may hold; only the named fields pass.
 */
export function presentLearnerCodeSpec(spec: Record<string, unknown> | null) {
  if (!spec) return null;
  const hidden = spec.hidden_tests as { file?: unknown; sha256?: unknown } | undefined;
  return {
    toolchain: typeof spec.toolchain === 'string' ? spec.toolchain : undefined,
    starter: asRef(spec.starter),
    sample_tests: asRef(spec.sample_tests),
    hidden_tests: hidden ? { file: String(hidden.file), sha256: String(hidden.sha256) } : undefined,
    commands: spec.commands as Record<string, string | string[]> | undefined,
    ai_policy: spec.ai_policy as { allowed?: boolean; model_tier?: string; max_interactions?: number } | undefined,
  };
}

/** The student's unsubmitted attempt of an exam: enough for the page to show its clock after a reload. */
function presentOwnAttemptState(row: AttemptRow | null) {
  return row ? { id: row.id, started_at: row.started_at.toISOString(), expires_at: iso(row.expires_at) } : null;
}

/**
 * An assigned exam as a student sees it: no owner or hidden-tests IV; a coding exam's archives
 * with links made for this student (they open only during an open attempt).
 */
export function presentLearnerExam({ exam, submission, attempt }: AssignedExam, archives: StoredFileRow[], link: FileLinker) {
  return {
    id: exam.id,
    title: exam.title,
    description: exam.description,
    exam_type: exam.exam_type,
    app: exam.app,
    due_date: iso(exam.due_date),
    time_limit_minutes: exam.time_limit_minutes,
    max_score: exam.max_score,
    proctoring: exam.proctoring,
    status: exam.status,
    code_spec: presentLearnerCodeSpec(exam.code_spec),
    files: archives.map((file) => presentExamArchive(file, link)),
    submission: presentOwnSubmissionState(submission),
    attempt: presentOwnAttemptState(attempt),
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

/** One of the learner's own device seats; the device's own identifier stays internal. */
export function presentLearnerDevice(row: DeviceSeatRow, session: LearnerSessionRow) {
  return {
    seat_id: row.id,
    app: row.app,
    device_name: row.device_name,
    activated_at: row.activated_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    status: row.status,
    current: session.seat_id === row.id,
  };
}
