import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import { AppError, notFound, validationError } from '../errors.js';
import type { UploadedFile } from '../files/temp.js';
import { newId } from '../ids.js';
import type { AttemptRow } from '../models/attempt.js';
import type { PersonRow } from '../models/person.js';
import type { AttemptRecordingRow, RecordingSource } from '../models/recording.js';
import type { LearnerAuth } from './learner-auth.js';
import { studentOf } from './learner-exams.js';
import { openAttemptExam, SUBMIT_GRACE_MS } from './learner.js';

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
async function findOwnAttempt(tenant: Tenant, student: PersonRow, attemptId: string): Promise<AttemptRow> {
  const attempt = await tenant.attempts.findOne({ where: { id: attemptId, student_id: student.id } });
  if (!attempt) throw notFound('attempt');
  return attempt;
}

/** A recording of this attempt, locked for the transaction on databases that lock rows (SQLite's writer lock covers it). */
async function findRecording(tenant: Tenant, attempt: AttemptRow, recordingId: string, lock = false): Promise<AttemptRecordingRow> {
  const recording = await tenant.recordings.findOne({ where: { id: recordingId, attempt_id: attempt.id }, ...(lock ? { lock: true } : {}) });
  if (!recording) throw notFound('recording');
  return recording;
}

/**
 * Chunks are taken while the attempt takes work (as uploads are, up to the submit's grace
 * minute), and for `RECORDING_GRACE_MS` after it is submitted.
 */
async function assertTakesChunks(tenant: Tenant, student: PersonRow, attempt: AttemptRow, now: Date): Promise<void> {
  if (attempt.submitted_at && now.getTime() - attempt.submitted_at.getTime() <= RECORDING_GRACE_MS) return;
  await openAttemptExam(tenant, student, attempt, now, SUBMIT_GRACE_MS);
}

function assertUnfinished(recording: AttemptRecordingRow): void {
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

/**
 * Before a byte of a chunk is received: the attempt and recording are the student's, chunks are
 * taken, and `seq` is not ahead. Checked again, under the lock, when the chunk is appended.
 */
export async function checkChunkWanted(learner: LearnerAuth, attemptId: string, recordingId: string, seq: number, now = new Date()): Promise<void> {
  const student = studentOf(learner);
  const attempt = await findOwnAttempt(learner.tenant, student, attemptId);
  const recording = await findRecording(learner.tenant, attempt, recordingId);
  assertUnfinished(recording);
  await assertTakesChunks(learner.tenant, student, attempt, now);
  if (seq > recording.chunks) throw new AppError('conflict', `Chunk ${seq} is ahead: the next chunk of this recording is seq ${recording.chunks}.`);
}

/**
 * Writes `upload` into the recording's file at `start`, after cutting the file to `start`: bytes
 * past the recorded length are what an append cut off by a crash left, never part of a chunk.
 * Synced before the caller records the chunk, so a recorded chunk is on disk.
 */
async function writeChunkAt(file: string, start: number, upload: UploadedFile): Promise<void> {
  const handle = await fs.promises.open(file, 'r+').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && start === 0) return fs.promises.open(file, 'w', 0o600);
    throw error;
  });
  try {
    await handle.truncate(start);
    const source = await fs.promises.open(upload.path, 'r');
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      let position = start;
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await handle.write(buffer, 0, bytesRead, position);
        position += bytesRead;
      }
    } finally {
      await source.close();
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * POST /app/attempts/{id}/recordings/{recId}/chunks?seq=N. `seq` equal to `next_seq` is appended;
 * a `seq` already received with the same bytes (a retry after a lost answer) changes nothing and
 * answers the current state; anything else is `409 conflict` naming the expected seq.
 */
export function appendChunk(
  learner: LearnerAuth,
  attemptId: string,
  recordingId: string,
  seq: number,
  upload: UploadedFile | undefined,
  dataDir: string,
  now = new Date(),
): Promise<AttemptRecordingRow> {
  const student = studentOf(learner);
  if (!upload) throw validationError([{ path: 'file', message: 'Required.' }]);
  // The file is written inside the transaction: the row lock (the writer lock on SQLite) keeps
  // two appends of one recording, or an append and its finish, from touching the file at once.
  return learner.tenant.inTransaction(async (tx) => {
    const attempt = await findOwnAttempt(tx, student, attemptId);
    const recording = await findRecording(tx, attempt, recordingId, true);
    assertUnfinished(recording);
    await assertTakesChunks(tx, student, attempt, now);
    const expected = recording.chunks;
    if (seq < expected) {
      const stored = await tx.recordingChunks.findOne({ where: { recording_id: recording.id, seq } });
      if (stored && stored.sha256 === upload.sha256 && Number(stored.size) === upload.size) return recording;
      throw new AppError('conflict', `Chunk ${seq} was already received with other bytes; the next chunk of this recording is seq ${expected}.`);
    }
    if (seq > expected) throw new AppError('conflict', `Chunk ${seq} is ahead: the next chunk of this recording is seq ${expected}.`);
    if (expected >= MAX_CHUNKS_PER_RECORDING) {
      throw new AppError('conflict', `This recording holds ${MAX_CHUNKS_PER_RECORDING} chunks, the most one can; finish it and start another.`);
    }
    const start = Number(recording.bytes);
    if (start + upload.size > MAX_RECORDING_BYTES) {
      throw new AppError('file_too_large', `A recording holds at most ${MAX_RECORDING_BYTES / 1024 / 1024} MB; finish this one and start another.`);
    }
    await writeChunkAt(path.join(dataDir, recording.storage_path), start, upload);
    await tx.recordingChunks.create({
      id: newId('rch'),
      recording_id: recording.id,
      seq,
      start_byte: start,
      size: upload.size,
      sha256: upload.sha256,
      created_at: now,
    });
    const grown = { chunks: expected + 1, bytes: start + upload.size };
    await tx.recordings.update(grown, { id: recording.id });
    recording.set(grown);
    return recording;
  });
}

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
