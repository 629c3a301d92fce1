import { iso } from './common.js';
import { presentAttempt } from './attempt.js';
import type { ProctoringFeed, ProctoringSummary, SubmissionDetail } from '../commands/exams/submissions.js';
import type { ProctoringEventRow } from '../models/attempt.js';
import type { StoredFileRow } from '../models/stored-file.js';
import type { SubmissionRow } from '../models/submission.js';

/** Makes the signed download link of a file; the route supplies it (it knows the portal address). */
export type FileLinker = (file: StoredFileRow) => { url: string; expires_at: string };

/** The Submission object. The void reason and the stored files' paths are never named here. */
export function presentSubmission(row: SubmissionRow) {
  return {
    id: row.id,
    exam_id: row.exam_id,
    student_id: row.student_id,
    attempt_id: row.attempt_id,
    status: row.status,
    score: row.score,
    feedback: row.feedback,
    graded_by: row.graded_by,
    graded_at: iso(row.graded_at),
    submitted_at: row.submitted_at.toISOString(),
    voided_at: iso(row.voided_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A stored file with its signed link; where it lies on disk stays internal. */
export function presentFileLink(file: StoredFileRow, link: FileLinker) {
  return { ref: file.id, name: file.name, size: Number(file.size), sha256: file.sha256, ...link(file) };
}

function presentAiUsage(usage: SubmissionRow['ai_usage']) {
  if (!usage || typeof usage !== 'object') return null;
  return { interactions: Number(usage.interactions ?? 0), cost_cents: Number(usage.cost_cents ?? 0) };
}

function presentProctoringSummary(summary: ProctoringSummary) {
  return { counts: { ...summary.counts }, total: summary.total, first_at: iso(summary.firstAt), last_at: iso(summary.lastAt) };
}

/** The single GET. `recordings` appears only when the command loaded them (keys holding `submissions:write`). */
export function presentSubmissionDetail(detail: SubmissionDetail, link: FileLinker) {
  return {
    ...presentSubmission(detail.submission),
    attachments: detail.attachments.map((file) => presentFileLink(file, link)),
    ai_usage: presentAiUsage(detail.submission.ai_usage),
    proctoring: presentProctoringSummary(detail.proctoring),
    answers: detail.submission.answers ?? null,
    ...(detail.recordings ? { recordings: detail.recordings.map((file) => presentFileLink(file, link)) } : {}),
  };
}

export function presentProctoringEvent(row: ProctoringEventRow) {
  return { id: row.id, type: row.type, at: row.at.toISOString(), detail: row.detail ?? null };
}

/** GET /submissions/{id}/events. */
export function presentProctoringFeed(feed: ProctoringFeed) {
  return { attempt: presentAttempt(feed.attempt), counts: { ...feed.counts }, items: feed.events.map(presentProctoringEvent) };
}
