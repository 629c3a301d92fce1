import type { GradeStanding } from '../commands/lms/grade-standing.js';
import { iso } from './common.js';

/** A submission's grade standing, its dates as ISO strings and its score as a number. */
export function presentGradeStanding({ submission, destinations, summary }: GradeStanding) {
  return {
    submission_id: submission.id,
    exam_id: submission.exam_id,
    student_id: submission.student_id,
    score: submission.score === null ? null : Number(submission.score),
    status: submission.status,
    destinations: destinations.map((entry) => ({ ...entry, sent_at: iso(entry.sent_at), next_attempt_at: iso(entry.next_attempt_at) })),
    summary,
  };
}
