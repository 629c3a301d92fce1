import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AttemptRow } from '../../models/attempt.js';
import type { AttemptRecordingRow } from '../../models/recording.js';
import type { LearnerAuth } from '../learner/auth.js';
import { studentOf } from '../learner/exams.js';
import { SUBMIT_GRACE_MS } from '../learner/learner.js';
import { RECORDING_GRACE_MS, findOwnAttempt, findRecording } from './recordings.js';

/** SHA-256 of the first `length` bytes of `file`, read in a stream. */
async function hashPrefix(file: string, length: number): Promise<string> {
  const hash = createHash('sha256');
  if (length > 0) {
    for await (const piece of fs.createReadStream(file, { start: 0, end: length - 1 })) hash.update(piece as Buffer);
  }
  return hash.digest('hex');
}

/**
 * Finishes a recording: its file, cut to the received length, becomes one stored file of kind
 * `recording` owned by the attempt (what the submission lists for `submissions:write` keys).
 * A recording that received nothing leaves no file. The hash is read outside the transaction
 * (a large file takes seconds); should a chunk land meanwhile, it is read again.
 */
async function finishRecordingById(tenant: Tenant, dataDir: string, recordingId: string, now: Date): Promise<AttemptRecordingRow> {
  for (let round = 0; round < 3; round += 1) {
    const seen = await tenant.recordings.findById(recordingId);
    if (!seen) throw notFound('recording');
    if (seen.finished_at) return seen;
    const file = path.join(dataDir, seen.storage_path);
    const bytes = Number(seen.bytes);
    const sha256 = await hashPrefix(file, bytes);
    const finished = await tenant.inTransaction(async (tx) => {
      const recording = await tx.recordings.findById(recordingId, { lock: true });
      if (!recording) throw notFound('recording');
      if (recording.finished_at) return recording;
      if (recording.chunks !== seen.chunks) return null;
      let fileId: string | null = null;
      if (bytes === 0) {
        await fs.promises.rm(file, { force: true });
      } else {
        await fs.promises.truncate(file, bytes);
        fileId = newId('file');
        await tx.files.create({
          id: fileId,
          owner_type: 'attempt',
          owner_id: recording.attempt_id,
          kind: 'recording',
          name: recording.name,
          content_type: recording.mime_type,
          size: bytes,
          sha256,
          storage_path: recording.storage_path,
          created_at: now,
        });
      }
      const done = { finished_at: now, file_id: fileId };
      await tx.recordings.update(done, { id: recording.id });
      recording.set(done);
      return recording;
    });
    if (finished) return finished;
  }
  throw new AppError('conflict', 'Chunks keep arriving for this recording; finish it after its last chunk is received.');
}

/** POST /app/attempts/{id}/recordings/{recId}/finish: idempotent; a finished recording is returned as it is. */
export async function finishRecording(
  learner: LearnerAuth,
  attemptId: string,
  recordingId: string,
  dataDir: string,
  now = new Date(),
): Promise<AttemptRecordingRow> {
  const attempt = await findOwnAttempt(learner.tenant, studentOf(learner), attemptId);
  const recording = await findRecording(learner.tenant, attempt, recordingId);
  return finishRecordingById(learner.tenant, dataDir, recording.id, now);
}

/**
 * Whether an attempt takes no more chunks: submitted over `RECORDING_GRACE_MS` ago (and not sent
 * back for resubmission on this attempt), or run out unsubmitted past the submit's grace as well.
 */
function attemptIsOver(attempt: AttemptRow, resubmitting: boolean, now: Date): boolean {
  if (attempt.submitted_at) return !resubmitting && now.getTime() - attempt.submitted_at.getTime() > RECORDING_GRACE_MS;
  return attempt.expires_at !== null && now.getTime() - attempt.expires_at.getTime() > SUBMIT_GRACE_MS + RECORDING_GRACE_MS;
}

/**
 * The job's sweep: recordings left unfinished (the page closed, the browser crashed, the finish
 * call was lost) of attempts that are over are finished, so they still reach the submission.
 * Returns how many were finished.
 */
export async function finishAbandonedRecordings(db: Database, dataDir: string, now = new Date()): Promise<number> {
  const institutions = await db.models.Institution.findAll({ attributes: ['id'], order: [['id', 'ASC']] });
  let finished = 0;
  for (const institution of institutions) {
    const tenant = new Tenant(db, institution.id);
    const open = await tenant.recordings.findAll({ attributes: ['id', 'attempt_id'], where: { finished_at: null }, order: [['started_at', 'ASC']] });
    if (open.length === 0) continue;
    const attemptIds = [...new Set(open.map((row) => row.attempt_id))];
    const attempts = new Map((await tenant.attempts.findAll({ where: { id: { [Op.in]: attemptIds } } })).map((row) => [row.id, row]));
    // The newest submission of each attempt: one sent back is resubmitted on the same attempt, which still records.
    const newest = new Map<string, string>();
    const submissions = await tenant.submissions.findAll({
      attributes: ['attempt_id', 'status'],
      where: { attempt_id: { [Op.in]: attemptIds } },
      order: [
        ['submitted_at', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    for (const submission of submissions) newest.set(submission.attempt_id, submission.status);
    for (const row of open) {
      const attempt = attempts.get(row.attempt_id);
      if (!attempt || !attemptIsOver(attempt, newest.get(attempt.id) === 'resubmission_requested', now)) continue;
      await finishRecordingById(tenant, dataDir, row.id, now);
      finished += 1;
    }
  }
  return finished;
}
