import fs from 'node:fs';
import path from 'node:path';
import { AppError, validationError } from '../../errors.js';
import type { UploadedFile } from '../../files/temp.js';
import { newId } from '../../ids.js';
import type { AttemptRecordingRow } from '../../models/recording.js';
import type { LearnerAuth } from '../learner/auth.js';
import { studentOf } from '../learner/exams.js';
import { MAX_CHUNKS_PER_RECORDING, MAX_RECORDING_BYTES, assertTakesChunks, assertUnfinished, findOwnAttempt, findRecording } from './recordings.js';

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
