import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import type { AttemptRow } from '../../models/attempt.js';
import { assignedStudentIds } from './audience.js';
import { findExam, type LiveSubmissionStatus } from './exams.js';
import { latestLiveSubmissions } from './lists.js';

/** GET /exams/{id}/attempts: oldest first. */
export async function listExamAttempts(tenant: Tenant, examId: string, request: PageRequest): Promise<Page<AttemptRow>> {
  const exam = await findExam(tenant, examId);
  return tenant.attempts.page(
    {
      where: { exam_id: exam.id },
      order: [
        ['started_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    request,
  );
}

// ---------------------------------------------------------------------------------------------
// Analytics
// ---------------------------------------------------------------------------------------------

export interface HistogramBucket {
  from: number;
  to: number;
  count: number;
}

export interface ExamAnalytics {
  count: number;
  mean: number | null;
  median: number | null;
  min: number | null;
  max: number | null;
  stddev: number | null;
  histogram: HistogramBucket[];
}

export const HISTOGRAM_BUCKETS = 10;

/**
 * Statistics of a list of scores. The histogram has 10 equal buckets from 0 to `maxScore` (the
 * highest score when the exam has none); each holds from ≤ score < to, the last one also `to`,
 * and a score above the top (max_score lowered after grading) counts in the last one.
 */
export function analyzeScores(scores: readonly number[], maxScore: number | null): ExamAnalytics {
  const count = scores.length;
  if (count === 0) return { count: 0, mean: null, median: null, min: null, max: null, stddev: null, histogram: [] };
  const sorted = [...scores].sort((a, b) => a - b);
  const min = sorted[0]!;
  const max = sorted[count - 1]!;
  const mean = sorted.reduce((sum, score) => sum + score, 0) / count;
  const middle = Math.floor(count / 2);
  const median = count % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const stddev = Math.sqrt(sorted.reduce((sum, score) => sum + (score - mean) ** 2, 0) / count);

  const top = maxScore ?? max;
  let histogram: HistogramBucket[];
  if (top <= 0) {
    // Every score is 0 and no max_score: one bucket, since ten of width 0 say nothing more.
    histogram = [{ from: 0, to: 0, count }];
  } else {
    histogram = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => ({
      from: (top * i) / HISTOGRAM_BUCKETS,
      to: (top * (i + 1)) / HISTOGRAM_BUCKETS,
      count: 0,
    }));
    for (const score of sorted) {
      // score * 10 / top rather than score / top * 10: exact for boundary scores such as 30 of 100.
      const index = Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.floor((score * HISTOGRAM_BUCKETS) / top)));
      histogram[index]!.count += 1;
    }
  }
  return { count, mean, median, min, max, stddev, histogram };
}

/** Over every graded submission of the exam (voided and ungraded ones are not graded). */
export async function examAnalytics(tenant: Tenant, examId: string): Promise<ExamAnalytics> {
  const exam = await findExam(tenant, examId);
  const graded = await tenant.submissions.findAll({
    attributes: ['score'],
    where: { exam_id: exam.id, status: 'graded', score: { [Op.ne]: null } },
  });
  return analyzeScores(
    graded.map((row) => Number(row.score)),
    exam.max_score,
  );
}

// ---------------------------------------------------------------------------------------------
// Scores and the CSV export
// ---------------------------------------------------------------------------------------------

export interface ScoreRow {
  student_id: string;
  login_email: string;
  full_name: string;
  submission_id: string | null;
  status: LiveSubmissionStatus | null;
  score: number | null;
  max_score: number | null;
  submitted_at: Date | null;
  graded_at: Date | null;
}

/**
 * One row per student the exam reaches through its groups or who has submitted to it, with
 * their latest submission that is not voided (nulls when none), ordered by full name.
 */
export async function examScores(tenant: Tenant, examId: string): Promise<ScoreRow[]> {
  const exam = await findExam(tenant, examId);
  const [assigned, everySubmitter, latest] = await Promise.all([
    assignedStudentIds(tenant, exam.id),
    tenant.submissions.findAll({ attributes: ['student_id'], where: { exam_id: exam.id } }),
    latestLiveSubmissions(tenant, { exam_id: exam.id }),
  ]);
  const studentIds = new Set([...assigned, ...everySubmitter.map((row) => row.student_id)]);
  if (studentIds.size === 0) return [];
  const students = await tenant.people.findAll({ where: { role: 'student', id: { [Op.in]: [...studentIds] } } });
  const byStudent = new Map(latest.map((row) => [row.student_id, row]));
  return students
    .map((student) => {
      const submission = byStudent.get(student.id);
      return {
        student_id: student.id,
        login_email: student.login_email,
        full_name: student.full_name,
        submission_id: submission?.id ?? null,
        status: (submission?.status as LiveSubmissionStatus | undefined) ?? null,
        score: submission?.score ?? null,
        max_score: exam.max_score,
        submitted_at: submission?.submitted_at ?? null,
        graded_at: submission?.graded_at ?? null,
      };
    })
    .sort((a, b) => a.full_name.localeCompare(b.full_name) || (a.student_id < b.student_id ? -1 : a.student_id > b.student_id ? 1 : 0));
}

export const CSV_COLUMNS = ['student_id', 'login_email', 'full_name', 'submission_id', 'status', 'score', 'max_score', 'submitted_at', 'graded_at'] as const;

/** Characters that make a spreadsheet read a cell as a formula (OWASP: also tab and carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One RFC 4180 cell. Numbers are written as numbers; text that a spreadsheet would run as a
 * formula gets a leading `'`; a cell holding a comma, quote or line break is quoted.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The export line by line (CRLF ends, header first), so the route can write as it goes. */
export function* scoresCsvLines(rows: Iterable<ScoreRow>): Generator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  for (const row of rows) {
    const cells: Array<string | number | null> = [
      row.student_id,
      row.login_email,
      row.full_name,
      row.submission_id,
      row.status,
      row.score,
      row.max_score,
      row.submitted_at ? row.submitted_at.toISOString() : null,
      row.graded_at ? row.graded_at.toISOString() : null,
    ];
    yield `${cells.map(csvCell).join(',')}\r\n`;
  }
}
