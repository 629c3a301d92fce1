import type { AttemptRecordingRow } from '../models/recording.js';
import { iso } from './common.js';

/** A proctoring recording as its own student sees it: progress, never a link (links are for `submissions:write` keys). */
export function presentRecording(row: AttemptRecordingRow) {
  return {
    id: row.id,
    attempt_id: row.attempt_id,
    source: row.source,
    mime_type: row.mime_type,
    chunks: row.chunks,
    bytes: Number(row.bytes),
    next_seq: row.chunks,
    started_at: row.started_at.toISOString(),
    finished_at: iso(row.finished_at),
  };
}
