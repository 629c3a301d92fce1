import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import { storeUpload } from '../../files/storage.js';
import type { LearnerAuth } from './auth.js';
import type { UploadedFile } from '../../files/temp.js';
import { newId } from '../../ids.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { ExamRow } from '../../models/exam.js';
import type { PersonRow } from '../../models/person.js';
import type { StoredFileRow } from '../../models/stored-file.js';
import type { SubmissionRow } from '../../models/submission.js';
import { releaseHiddenKeyToAttempt } from '../exams/coding.js';
import { assignedExamIds, latestSubmissions, studentOf } from './exams.js';

/** `answers` of one submission, as JSON, at most 1 MB. */
export const MAX_ANSWERS_BYTES = 1024 * 1024;
/** `detail` of one proctoring event, as JSON, at most 4 KB. */
export const MAX_EVENT_DETAIL_BYTES = 4 * 1024;
export const MAX_EVENTS_PER_CALL = 500;
export const MAX_SUBMISSION_FILES = 100;

/**
 * How late after `expires_at` a submit (and the uploads it names) is still taken: the request
 * travels, and the device's countdown runs on its own clock. Later is `409 conflict` (docs/decisions/learner-exam-and-seats.md).
 */
export const SUBMIT_GRACE_MS = 60_000;

const isExpired = (attempt: AttemptRow, now: Date, graceMs = 0) => attempt.expires_at !== null && attempt.expires_at.getTime() + graceMs <= now.getTime();

/**
 * POST /app/exams/{id}/attempts. An unknown exam is `404 not_found`; one that is not published or
 * not assigned to the student is `409 conflict`. Then, in order:
 * - an open attempt (not submitted, not expired) is returned as it is, so a reload resumes it;
 * - an unsubmitted attempt whose time ran out ends the exam for the student (`409 conflict`);
 * - a new attempt is started when the student has no submission for the exam, or when their
 *   newest submission is `resubmission_requested`; any other submission is `409 conflict`.
 */
export function startAttempt(learner: LearnerAuth, examId: string, now = new Date()): Promise<AttemptRow> {
  const student = studentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const exam = await tx.exams.findById(examId);
    if (!exam) throw notFound('exam');
    if (exam.status !== 'published') throw new AppError('conflict', `This exam is ${exam.status}, not open for attempts.`);
    if (!(await assignedExamIds(tx, student)).includes(exam.id)) throw new AppError('conflict', 'This exam is not assigned to you.');

    const unsubmitted = await tx.attempts.findOne({
      where: { exam_id: exam.id, student_id: student.id, submitted_at: null },
      order: [['started_at', 'DESC']],
    });
    if (unsubmitted) {
      if (!isExpired(unsubmitted, now)) return unsubmitted;
      throw new AppError('conflict', 'The time for this exam ran out before it was submitted.');
    }
    const latest = (await latestSubmissions(tx, student, [exam.id])).get(exam.id);
    if (latest && latest.status !== 'resubmission_requested') {
      throw new AppError('conflict', `You already submitted this exam (submission ${latest.status}).`);
    }
    return tx.attempts.create({
      id: newId('att'),
      exam_id: exam.id,
      student_id: student.id,
      started_at: now,
      expires_at: exam.time_limit_minutes ? new Date(now.getTime() + exam.time_limit_minutes * 60_000) : null,
      submitted_at: null,
      hidden_released_at: null,
    });
  });
}

/** The student's own attempt; anyone else's (or an unknown id) is `404 not_found`. */
async function findOwnAttempt(tenant: Tenant, student: PersonRow, attemptId: string): Promise<AttemptRow> {
  const attempt = await tenant.attempts.findOne({ where: { id: attemptId, student_id: student.id } });
  if (!attempt) throw notFound('attempt');
  return attempt;
}

/**
 * Whether an attempt still takes work (files, proctoring events, the hidden key, a submit). It does
 * while it is unsubmitted and the student has no submission for the exam, or one sent back for
 * resubmission; and, once submitted, when its own submission is the one sent back (the student
 * resubmits on the same attempt). Anything else is `409 conflict`, so one resubmission request
 * yields at most one new submission, whichever attempt it comes from.
 */
async function assertTakesWork(tenant: Tenant, student: PersonRow, attempt: AttemptRow): Promise<{ resubmitting: boolean }> {
  const latest = (await latestSubmissions(tenant, student, [attempt.exam_id])).get(attempt.exam_id);
  if (!latest || latest.status === 'resubmission_requested') {
    if (!attempt.submitted_at) return { resubmitting: false };
    if (latest?.attempt_id === attempt.id) return { resubmitting: true };
  }
  throw new AppError(
    'conflict',
    attempt.submitted_at ? 'This attempt has already been submitted.' : `You already submitted this exam (submission ${latest?.status}).`,
  );
}

/**
 * Work on an attempt's answer needs it to take work, its exam still published, and (for a first
 * submission) its time not run out; `graceMs` lets the submit and its uploads arrive that late.
 * A resubmission the teacher asked for is not held to the original time limit: the attempt's
 * clock ended with its first submission.
 */
export async function openAttemptExam(tenant: Tenant, student: PersonRow, attempt: AttemptRow, now: Date, graceMs = 0): Promise<ExamRow> {
  const { resubmitting } = await assertTakesWork(tenant, student, attempt);
  if (!resubmitting && isExpired(attempt, now, graceMs)) {
    const grace = graceMs > 0 ? `; answers are accepted up to ${graceMs / 1000} seconds after ${attempt.expires_at?.toISOString()}` : '';
    throw new AppError('conflict', `The time for this attempt has run out${grace}.`);
  }
  const exam = await tenant.exams.findById(attempt.exam_id);
  if (!exam) throw notFound('exam');
  if (exam.status !== 'published') throw new AppError('conflict', `This exam is ${exam.status}; it no longer accepts work.`);
  return exam;
}

export interface ProctoringEventInput {
  type: string;
  at: Date;
  /** Any JSON value the client sent about the event. */
  detail?: unknown;
}

/**
 * POST /app/attempts/{id}/events: proctoring events of an attempt that is not submitted yet.
 * Events of an expired (unsubmitted) attempt are still accepted: a client may send its buffer late.
 */
export function recordProctoringEvents(learner: LearnerAuth, attemptId: string, events: ProctoringEventInput[], now = new Date()): Promise<number> {
  const student = studentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    await assertTakesWork(tx, student, attempt);
    await tx.proctoringEvents.bulkCreate(
      events.map((event) => ({
        id: newId('pev'),
        attempt_id: attempt.id,
        type: event.type,
        at: event.at,
        detail: event.detail ?? null,
        created_at: now,
      })),
    );
    return events.length;
  });
}

/**
 * POST /app/attempts/{id}/hidden-key: the hidden-tests key of the attempt's exam, for an open
 * attempt. The first release records `hidden_released_at`; later calls return the key again
 * and keep that first time. No key stored: `404 no_secret`.
 */
export function releaseHiddenKey(learner: LearnerAuth, attemptId: string, now = new Date()): Promise<string> {
  const student = studentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    await openAttemptExam(tx, student, attempt, now);
    const { hidden_key_b64 } = await releaseHiddenKeyToAttempt(tx, attempt);
    return hidden_key_b64;
  });
}

export type AttemptFileKind = 'submission' | 'recording';

/** A file name as the client sent it, reduced to a plain name: no folders, no control characters. */
function plainFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return cleaned || 'file';
}

/**
 * Before a byte of an upload is received: the attempt is the student's and takes files. Checked
 * again when the file is stored, in the transaction.
 */
export async function checkAttemptTakesFiles(learner: LearnerAuth, attemptId: string, now = new Date()): Promise<void> {
  const student = studentOf(learner);
  const attempt = await findOwnAttempt(learner.tenant, student, attemptId);
  await openAttemptExam(learner.tenant, student, attempt, now, SUBMIT_GRACE_MS);
}

/** POST /app/attempts/{id}/files: a file of an open attempt, stored as the attempt's `submission` or `recording`. */
export function storeAttemptFile(
  learner: LearnerAuth,
  attemptId: string,
  upload: UploadedFile | undefined,
  kind: AttemptFileKind,
  dataDir: string,
  now = new Date(),
): Promise<StoredFileRow> {
  const student = studentOf(learner);
  if (!upload) throw validationError([{ path: 'file', message: 'Required.' }]);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    await openAttemptExam(tx, student, attempt, now, SUBMIT_GRACE_MS);
    return storeUpload(tx, dataDir, upload, { type: 'attempt', id: attempt.id, kind, name: plainFileName(upload.name) });
  });
}

export interface SubmitInput {
  answers?: unknown;
  files?: string[] | undefined;
  ai_usage?: { interactions: number; cost_cents: number } | undefined;
}

/**
 * POST /app/attempts/{id}/submit: the attempt's one submission, with `submission.created`.
 * `files` must be `submission` files uploaded to this very attempt (recordings stay out of the
 * attachments, which keys without `submissions:write` can read). Submitting twice, after the time
 * ran out, or once the exam is closed is `409 conflict`. After a resubmission request the student
 * submits again on the same attempt, or on a new one (see `startAttempt`); not both.
 */
export function submitAttempt(learner: LearnerAuth, attemptId: string, input: SubmitInput, now = new Date()): Promise<SubmissionRow> {
  const student = studentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    const exam = await openAttemptExam(tx, student, attempt, now, SUBMIT_GRACE_MS);

    const refs = [...new Set(input.files ?? [])];
    if (refs.length > 0) {
      const files = await tx.files.findAll({
        attributes: ['id'],
        where: { id: { [Op.in]: refs }, owner_type: 'attempt', owner_id: attempt.id, kind: 'submission' },
      });
      const known = new Set(files.map((file) => file.id));
      const unknown = refs.filter((ref) => !known.has(ref));
      if (unknown.length > 0) {
        throw validationError(
          unknown.map((ref) => ({ path: `files.${(input.files ?? []).indexOf(ref)}`, message: `"${ref}" is not a submission file uploaded to this attempt.` })),
        );
      }
    }

    // Conditional on the value read, so two concurrent submits of one attempt cannot both pass.
    const claimed = await tx.attempts.update({ submitted_at: now }, { id: attempt.id, submitted_at: attempt.submitted_at });
    if (claimed !== 1) throw new AppError('conflict', 'This attempt has already been submitted.');
    const submission = await tx.submissions.create({
      id: newId('sub'),
      exam_id: exam.id,
      student_id: student.id,
      attempt_id: attempt.id,
      status: 'submitted',
      answers: input.answers === undefined ? null : input.answers,
      file_ids: refs,
      // The usage recorded by /app/ai/usage (docs/decisions/ai-usage.md), never the body's
      // `ai_usage`; re-read after the claim above, which refuses any report that would land later.
      ai_usage: await tx.attempts
        .findById(attempt.id, { attributes: ['ai_interactions', 'ai_cost_cents'] })
        .then((recorded) => ({ interactions: recorded?.ai_interactions ?? 0, cost_cents: Number(recorded?.ai_cost_cents ?? 0) })),
      score: null,
      feedback: null,
      graded_by: null,
      graded_at: null,
      void_reason: null,
      voided_at: null,
      submitted_at: now,
    });
    await emit(tx, 'submission.created', { submission_id: submission.id, exam_id: exam.id, student_id: student.id });
    return submission;
  });
}
