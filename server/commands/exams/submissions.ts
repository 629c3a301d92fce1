import { sortedOrder } from '../../db/sort.js';
import type { ListSort } from '../../validation/sort.js';
import { Op, type WhereOptions } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import type { Page, PageRequest } from '../../db/paging.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { AttemptRow, ProctoringEventRow } from '../../models/attempt.js';
import type { StoredFileRow } from '../../models/stored-file.js';
import type { SubmissionRow, SubmissionStatus } from '../../models/submission.js';
import { personRefWhere } from '../people/people.js';
import { enqueueLtiScores } from '../lti/scores.js';
import { enqueueGradebookResults } from '../oneroster/gradebook.js';

/** Proctoring types every count object names, seen or not. */
export const ALWAYS_COUNTED = ['focus_lost', 'recorder_error'] as const;

/** Events per type; the always-counted types are present even at 0. */
export type ProctoringCounts = Record<string, number> & Record<(typeof ALWAYS_COUNTED)[number], number>;

/** Score that asks the student to submit again instead of grading. */
export const RESUBMISSION_SCORE = -1;

export async function findSubmission(tenant: Tenant, id: string): Promise<SubmissionRow> {
  const submission = await tenant.submissions.findById(id);
  if (!submission) throw notFound('submission');
  return submission;
}

export interface SubmissionFilter extends PageRequest {
  exam_id?: string;
  /** Internal id or login email. */
  student_id?: string;
  status?: SubmissionStatus;
  /** Inclusive: `submitted_at >= since`. */
  since?: Date;
  sort?: ListSort<'submitted_at' | 'score'>;
}

const emptyPage = <T>(request: PageRequest): Page<T> => ({ items: [], page: request.page, limit: request.limit, total: 0, totalPages: 0 });

/** Oldest first by `submitted_at` (then id), so paging through with `since` is stable while students keep submitting. */
export async function listSubmissions(tenant: Tenant, filter: SubmissionFilter): Promise<Page<SubmissionRow>> {
  const where: WhereOptions<SubmissionRow>[] = [];
  if (filter.exam_id !== undefined) where.push({ exam_id: filter.exam_id });
  if (filter.student_id !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.student_id) });
    // An unknown student has no submissions: an empty page, as for any filter.
    if (!student) return emptyPage(filter);
    where.push({ student_id: student.id });
  }
  if (filter.status !== undefined) where.push({ status: filter.status });
  if (filter.since !== undefined) where.push({ submitted_at: { [Op.gte]: filter.since } });
  return tenant.submissions.page(
    {
      where: where.length > 0 ? { [Op.and]: where } : undefined,
      order: sortedOrder(
        filter.sort,
        { submitted_at: 'submitted_at', score: 'score' },
        [
          ['submitted_at', 'ASC'],
          ['id', 'ASC'],
        ],
        ['submitted_at', 'id'],
      ),
    },
    filter,
  );
}

export interface ProctoringSummary {
  counts: ProctoringCounts;
  total: number;
  firstAt: Date | null;
  lastAt: Date | null;
}

function countByType(types: Iterable<string>): ProctoringCounts {
  // A Map, so a type reported as `constructor` or `__proto__` is counted like any other name.
  const counts = new Map<string, number>(ALWAYS_COUNTED.map((type) => [type, 0]));
  for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
  return Object.fromEntries(counts) as ProctoringCounts;
}

async function attemptEvents(tenant: Tenant, attemptId: string, attributes?: Array<keyof ProctoringEventRow>): Promise<ProctoringEventRow[]> {
  return tenant.proctoringEvents.findAll({
    ...(attributes ? { attributes } : {}),
    where: { attempt_id: attemptId },
    order: [
      ['at', 'ASC'],
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

async function proctoringSummary(tenant: Tenant, attemptId: string): Promise<ProctoringSummary> {
  const events = await attemptEvents(tenant, attemptId, ['type', 'at']);
  return {
    counts: countByType(events.map((event) => event.type)),
    total: events.length,
    firstAt: events[0]?.at ?? null,
    lastAt: events.at(-1)?.at ?? null,
  };
}

/** Files the student attached, in the order of `file_ids`; only submission files of an attempt qualify. */
async function attachmentsOf(tenant: Tenant, submission: SubmissionRow): Promise<StoredFileRow[]> {
  const ids = Array.isArray(submission.file_ids) ? submission.file_ids.filter((id): id is string => typeof id === 'string') : [];
  if (ids.length === 0) return [];
  const files = await tenant.files.findAll({ where: { id: { [Op.in]: ids }, owner_type: 'attempt', kind: 'submission' } });
  const byId = new Map(files.map((file) => [file.id, file]));
  return [...new Set(ids)].flatMap((id) => byId.get(id) ?? []);
}

function recordingsOf(tenant: Tenant, attemptId: string): Promise<StoredFileRow[]> {
  return tenant.files.findAll({
    where: { owner_type: 'attempt', owner_id: attemptId, kind: 'recording' },
    order: [
      ['created_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}

export interface SubmissionDetail {
  submission: SubmissionRow;
  attachments: StoredFileRow[];
  proctoring: ProctoringSummary;
  /** Loaded only when the caller may see recordings; undefined otherwise. */
  recordings?: StoredFileRow[];
}

/** The single GET. Recordings are read only when asked for, so a caller without the right never loads them. */
export async function getSubmissionDetail(tenant: Tenant, id: string, options: { withRecordings: boolean }): Promise<SubmissionDetail> {
  const submission = await findSubmission(tenant, id);
  const [attachments, proctoring, recordings] = await Promise.all([
    attachmentsOf(tenant, submission),
    proctoringSummary(tenant, submission.attempt_id),
    options.withRecordings ? recordingsOf(tenant, submission.attempt_id) : Promise.resolve(undefined),
  ]);
  return { submission, attachments, proctoring, ...(recordings ? { recordings } : {}) };
}

export interface ProctoringFeed {
  attempt: AttemptRow;
  counts: ProctoringCounts;
  events: ProctoringEventRow[];
}

export async function getProctoringFeed(tenant: Tenant, id: string): Promise<ProctoringFeed> {
  const submission = await findSubmission(tenant, id);
  const attempt = await tenant.attempts.findById(submission.attempt_id);
  // The foreign key makes this impossible; should it happen, it is our fault, not the caller's.
  if (!attempt) throw new Error(`attempt ${submission.attempt_id} of submission ${submission.id} is missing`);
  const events = await attemptEvents(tenant, attempt.id);
  return { attempt, counts: countByType(events.map((event) => event.type)), events };
}

export interface GradeInput {
  score: number;
  feedback?: string;
  graded_by?: string;
}

/**
 * Records a grade (score 0..max_score, or any score ≥ 0 when the exam has no maximum) and emits
 * `exam.graded` with the outcome; score -1 asks for a resubmission instead. Regrading is allowed
 * and emits again. Each call replaces feedback and grader: omitted ones become null.
 */
export function gradeSubmission(tenant: Tenant, id: string, input: GradeInput): Promise<SubmissionRow> {
  return tenant.inTransaction(async (tx) => {
    const submission = await findSubmission(tx, id);
    if (submission.status === 'voided') throw new AppError('conflict', 'A voided submission cannot be graded.');
    const exam = await tx.exams.findById(submission.exam_id, { attributes: ['id', 'max_score'] });
    if (!exam) throw new Error(`exam ${submission.exam_id} of submission ${submission.id} is missing`);
    const maxScore = exam.max_score;
    const refs = { submission_id: submission.id, exam_id: submission.exam_id, student_id: submission.student_id };
    const recorded = { feedback: input.feedback ?? null, graded_by: input.graded_by ?? null };

    if (input.score === RESUBMISSION_SCORE) {
      submission.set({ status: 'resubmission_requested', score: null, graded_at: null, ...recorded });
      await submission.save({ transaction: tx.tx });
      await emit(tx, 'submission.resubmission_requested', refs);
      return submission;
    }

    if (input.score < 0 || (maxScore !== null && input.score > maxScore)) {
      const range = maxScore !== null ? `0 to ${maxScore}` : 'at least 0';
      throw validationError([{ path: 'score', message: `Must be ${range}, or -1 to request a resubmission.` }]);
    }
    const score = input.score === 0 ? 0 : input.score; // -0 is stored and sent as 0
    submission.set({ status: 'graded', score, graded_at: new Date(), ...recorded });
    await submission.save({ transaction: tx.tx });
    await emit(tx, 'exam.graded', { ...refs, score, max_score: maxScore, status: 'graded' });
    // An LTI-linked exam's grade goes back to the LMS's line item: queued in this transaction (docs/lms.md#lti-13).
    await enqueueLtiScores(tx, submission, maxScore);
    // A SIS-synced student's grade goes to the SIS's gradebook where the connection opted in (docs/lms.md).
    await enqueueGradebookResults(tx, submission, maxScore);
    return submission;
  });
}

/** Voids a submission (any state but voided: `409 void_failed`). Score and feedback stay as they were; the reason is kept, never shown. */
export function voidSubmission(tenant: Tenant, id: string, reason: string | undefined): Promise<SubmissionRow> {
  return tenant.inTransaction(async (tx) => {
    const submission = await findSubmission(tx, id);
    if (submission.status === 'voided') throw new AppError('void_failed', 'The submission is already voided.');
    submission.set({ status: 'voided', voided_at: new Date(), void_reason: reason ?? null });
    await submission.save({ transaction: tx.tx });
    await emit(tx, 'submission.voided', { submission_id: submission.id, exam_id: submission.exam_id, student_id: submission.student_id });
    return submission;
  });
}
