import type { GradebookPostWithAttempts } from '../commands/oneroster/gradebook.js';
import { runResult } from '../commands/oneroster/sync.js';
import type { OneRosterConnectionRow, OneRosterRunRow } from '../models/oneroster.js';
import { iso } from './common.js';

/** The connection as the portal shows it: whether a client secret is stored, never the secret. */
export function presentConnection(row: OneRosterConnectionRow) {
  return {
    id: row.id,
    source: row.source,
    url: row.url,
    version: row.version,
    token_url: row.token_url,
    client_id: row.client_id,
    client_secret_set: row.client_secret_sealed.length > 0,
    auth_method: row.auth_method,
    scopes: row.scopes,
    class_share: row.class_share,
    class_minimum: row.class_minimum,
    school_share: row.school_share,
    schedule_hours: row.schedule_hours,
    delta_watermark: row.delta_watermark,
    last_full_sync_at: iso(row.last_full_sync_at),
    gradebook_writeback: row.gradebook_writeback,
  };
}

/** A past run: what it did, what started it and when. */
export function presentRun(row: OneRosterRunRow) {
  return { ...runResult(row), trigger: row.trigger, started_at: row.started_at.toISOString(), finished_at: iso(row.finished_at) };
}

/** A gradebook result post with every attempt, its dates as ISO strings. */
export function presentGradebookPost({ post, attempts }: GradebookPostWithAttempts) {
  return {
    id: post.id,
    submission_id: post.submission_id,
    exam_id: post.exam_id,
    student_id: post.student_id,
    line_item_sourced_id: post.line_item_sourced_id,
    result_sourced_id: post.result_sourced_id,
    payload: post.payload,
    status: post.status,
    attempt_count: post.attempt_count,
    next_attempt_at: iso(post.next_attempt_at),
    last_attempt_at: iso(post.last_attempt_at),
    response_status: post.response_status,
    error: post.error,
    created_at: post.created_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      at: attempt.at.toISOString(),
      step: attempt.step,
      response_status: attempt.response_status,
      response_body: attempt.response_body,
      error: attempt.error,
    })),
  };
}
