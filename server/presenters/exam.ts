import { iso } from './common.js';
import type { ExamFileKind } from '../commands/exams/coding.js';
import type { ScoreRow } from '../commands/exams/results.js';
import type { ExamAssignmentView } from '../commands/exams/audience.js';
import type { ExamDetail, StudentExam } from '../commands/exams/lists.js';
import type { ExamRow } from '../models/exam.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { FileLinker } from './submission.js';

/** Only the keys the Exam object documents, whatever else an older row may hold. */
function pick(source: Record<string, unknown> | null | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (source && source[key] !== undefined) out[key] = source[key];
  return out;
}

/** The Exam object. */
export function presentExam(row: ExamRow) {
  return {
    id: row.id,
    faculty_id: row.faculty_id,
    title: row.title,
    description: row.description,
    exam_type: row.exam_type,
    app: row.app,
    status: row.status,
    max_score: row.max_score,
    due_date: iso(row.due_date),
    time_limit_minutes: row.time_limit_minutes,
    proctoring: pick(row.proctoring, ['camera', 'screen']),
    ai_policy: pick(row.ai_policy, ['allowed', 'model_tier', 'max_interactions']),
    code_spec: row.code_spec ?? null,
    published_at: iso(row.published_at),
    closed_at: iso(row.closed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** One of a coding exam's archives with its signed link; where it lies on disk stays internal. */
export function presentExamArchive(file: StoredFileRow, link: FileLinker) {
  // Exam-owned files are only ever stored with an exam kind (uploadExamFile).
  return { ref: file.id, kind: file.kind as ExamFileKind, name: file.name, size: Number(file.size), sha256: file.sha256, ...link(file) };
}

/** The single GET: the Exam object plus its groups, counts and the archives its `code_spec` names. */
export function presentExamDetail(detail: ExamDetail, archives: StoredFileRow[], link: FileLinker) {
  return {
    ...presentExam(detail.exam),
    groups: detail.groups.map((group) => ({ id: group.group_id, name: group.name, student_count: group.studentCount })),
    stats: detail.stats,
    files: archives.map((file) => presentExamArchive(file, link)),
  };
}

export function presentAssignment(assignment: ExamAssignmentView) {
  return {
    group_id: assignment.group_id,
    name: assignment.name,
    student_count: assignment.studentCount,
    assigned_at: assignment.assignedAt.toISOString(),
  };
}

/** An exam as one student sees it in GET /students/{id}/exams: the exam and their own submission state. */
export function presentStudentExam(item: StudentExam) {
  return {
    exam: presentExam(item.exam),
    submission: item.submission ? { id: item.submission.id, status: item.submission.status, score: item.submission.score } : null,
  };
}

/** A row of GET /exams/{id}/scores (the CSV export adds the two timestamps). */
export function presentScoreRow(row: ScoreRow) {
  return {
    student_id: row.student_id,
    login_email: row.login_email,
    full_name: row.full_name,
    submission_id: row.submission_id,
    status: row.status,
    score: row.score,
    max_score: row.max_score,
  };
}
