import type { AttemptRow } from '../models/attempt.js';
import { iso } from './common.js';

/** An attempt, as the exams, submissions and learner APIs all show it. */
export function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    exam_id: row.exam_id,
    student_id: row.student_id,
    started_at: row.started_at.toISOString(),
    expires_at: iso(row.expires_at),
    submitted_at: iso(row.submitted_at),
    hidden_released_at: iso(row.hidden_released_at),
  };
}
