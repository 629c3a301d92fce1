import fs from 'node:fs';
import path from 'node:path';
import type { Tenant } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { PersonRow } from '../../models/person.js';
import type { AttemptRecordingRow, RecordingSource } from '../../models/recording.js';
import type { LearnerAuth } from '../learner/auth.js';
import { studentOf } from '../learner/exams.js';
import { openAttemptExam, SUBMIT_GRACE_MS } from '../learner/learner.js';

/** Recordings one attempt may start (a camera and a screen, restarted now and then). */
export const MAX_RECORDINGS_PER_ATTEMPT = 20;
/** One chunk: MediaRecorder yields a Blob every few seconds, far below this. */
export const MAX_CHUNK_BYTES = 8 * 1024 * 1024;
/** One recording, all chunks together: a 3-hour exam at about 750 kbit/s. */
export const MAX_RECORDING_BYTES = 1024 * 1024 * 1024;
/** Chunks of one recording: one a second for five and a half hours. */
export const MAX_CHUNKS_PER_RECORDING = 20_000;
/** Chunks are still taken this long after the attempt is submitted, so the one flushed by the submit lands. */
export const RECORDING_GRACE_MS = 5 * 60_000;

export interface RecordingInput {
  source: RecordingSource;
  mime_type: string;
}

const EXTENSIONS: Record<string, string> = { webm: 'webm', mp4: 'mp4', ogg: 'ogg', 'x-matroska': 'mkv', quicktime: 'mov' };

/** `camera-1.webm`: the source, its ordinal in the attempt, and the extension of the media type. */
function recordingName(source: RecordingSource, ordinal: number, mimeType: string): string {
  const subtype = (mimeType.split(';')[0] ?? '').split('/')[1]?.trim().toLowerCase() ?? '';
  return `${source}-${ordinal}.${EXTENSIONS[subtype] ?? 'bin'}`;
}

/** The student's own attempt; anyone else's (or an unknown id) is `404 not_found`. */
export async function findOwnAttempt(tenant: Tenant, student: PersonRow, attemptId: string): Promise<AttemptRow> {
  const attempt = await tenant.attempts.findOne({ where: { id: attemptId, student_id: student.id } });
  if (!attempt) throw notFound('attempt');
  return attempt;
}

/** A recording of this attempt, locked for the transaction on databases that lock rows (SQLite's writer lock covers it). */
export async function findRecording(tenant: Tenant, attempt: AttemptRow, recordingId: string, lock = false): Promise<AttemptRecordingRow> {
  const recording = await tenant.recordings.findOne({ where: { id: recordingId, attempt_id: attempt.id }, ...(lock ? { lock: true } : {}) });
  if (!recording) throw notFound('recording');
  return recording;
}

/**
 * Chunks are taken while the attempt takes work (as uploads are, up to the submit's grace
 * minute), and for `RECORDING_GRACE_MS` after it is submitted.
 */
export async function assertTakesChunks(tenant: Tenant, student: PersonRow, attempt: AttemptRow, now: Date): Promise<void> {
  if (attempt.submitted_at && now.getTime() - attempt.submitted_at.getTime() <= RECORDING_GRACE_MS) return;
  await openAttemptExam(tenant, student, attempt, now, SUBMIT_GRACE_MS);
}

export function assertUnfinished(recording: AttemptRecordingRow): void {
  if (recording.finished_at) throw new AppError('conflict', `Recording ${recording.id} is finished; it takes no more chunks. Start a new recording.`);
}

/** POST /app/attempts/{id}/recordings: a new, empty recording of an open attempt. */
export function startRecording(
  learner: LearnerAuth,
  attemptId: string,
  input: RecordingInput,
  dataDir: string,
  now = new Date(),
): Promise<AttemptRecordingRow> {
  const student = studentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    await openAttemptExam(tx, student, attempt, now, SUBMIT_GRACE_MS);
    const existing = await tx.recordings.findAll({ attributes: ['source'], where: { attempt_id: attempt.id } });
    if (existing.length >= MAX_RECORDINGS_PER_ATTEMPT) {
      throw new AppError('conflict', `This attempt already has ${MAX_RECORDINGS_PER_ATTEMPT} recordings, the most one attempt can have.`);
    }
    const id = newId('rec');
    const storagePath = path.join('uploads', tx.institutionId, id);
    await fs.promises.mkdir(path.dirname(path.join(dataDir, storagePath)), { recursive: true });
    await fs.promises.writeFile(path.join(dataDir, storagePath), '', { mode: 0o600 });
    const ordinal = existing.filter((row) => row.source === input.source).length + 1;
    return tx.recordings.create({
      id,
      attempt_id: attempt.id,
      source: input.source,
      mime_type: input.mime_type,
      name: recordingName(input.source, ordinal, input.mime_type),
      storage_path: storagePath,
      file_id: null,
      started_at: now,
      finished_at: null,
    });
  });
}

/** GET /app/attempts/{id}/recordings: the attempt's recordings, oldest first, so a reloaded page resumes at `next_seq`. */
export async function listRecordings(learner: LearnerAuth, attemptId: string): Promise<AttemptRecordingRow[]> {
  const attempt = await findOwnAttempt(learner.tenant, studentOf(learner), attemptId);
  return learner.tenant.recordings.findAll({
    where: { attempt_id: attempt.id },
    order: [
      ['started_at', 'ASC'],
      ['id', 'ASC'],
    ],
  });
}
