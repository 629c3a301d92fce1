import { newId } from '../ids.js';
import type { EventType } from './catalog.js';

/**
 * A realistic `data` for each event type, with the fields the real event carries (the emitting
 * commands are the source: server/commands/*) and fresh ids of the right kinds, so a receiver's
 * parser meets what it will meet in production. Sent by "send an example"
 * (docs/webhooks.md#debugging-a-webhook-integration); the ids name nothing in the database.
 */
export function exampleEventData(type: EventType, now: Date): Record<string, unknown> {
  const student_id = newId('stu');
  const faculty_id = newId('fac');
  const exam_id = newId('exm');
  const group_id = newId('grp');
  const submission_id = newId('sub');
  const license_id = newId('lic');
  const inAYear = new Date(now.getTime() + 365 * 86_400_000).toISOString();
  const examples: Record<EventType, () => Record<string, unknown>> = {
    'student.created': () => ({ student_id, license_id }),
    'student.updated': () => ({ student_id, changed: ['full_name'], status: 'active' }),
    'student.suspended': () => ({ student_id }),
    'student.reactivated': () => ({ student_id }),
    'faculty.created': () => ({ faculty_id, license_id }),
    'faculty.updated': () => ({ faculty_id, changed: ['full_name'], status: 'active' }),
    'group.created': () => ({ group_id, faculty_id, student_count: 24 }),
    'group.updated': () => ({ group_id, changed: ['members'], student_count: 25 }),
    'group.deleted': () => ({ group_id }),
    'license.extended': () => ({ license_id, user_id: student_id, expires_at: inAYear }),
    'license.revoked': () => ({ license_id, user_id: student_id }),
    'license.expired': () => ({ license_id, user_id: student_id }),
    'exam.created': () => ({ exam_id, faculty_id }),
    'exam.published': () => ({ exam_id }),
    'exam.closed': () => ({ exam_id }),
    'exam.assigned': () => ({ exam_id, group_ids: [group_id] }),
    'exam.graded': () => ({ submission_id, exam_id, student_id, score: 87, max_score: 100, status: 'graded' }),
    'submission.created': () => ({ submission_id, exam_id, student_id }),
    'submission.resubmission_requested': () => ({ submission_id, exam_id, student_id }),
    'submission.voided': () => ({ submission_id, exam_id, student_id }),
    'guardian.invited': () => ({ guardian_id: newId('gdn'), student_id }),
    'guardian.verified': () => ({ guardian_id: newId('gdn'), student_id }),
    'coupon_batch.approved': () => ({ batch_id: newId('cpb'), total_coupons: 500 }),
    'coupon.redeemed': () => ({ redemption_id: newId('cpr'), batch_id: newId('cpb'), student_id, value_cents: 1500 }),
    'merit.credited': () => ({ credit_id: newId('mle'), student_id, amount_cents: 250 }),
    'alpha.enrollment.created': () => ({ enrollment_id: newId('enr'), student_id, curriculum_id: newId('cur') }),
    'alpha.points.awarded': () => ({ student_id, points: 40, ref: 'lms-quiz-2026-09-14-17' }),
  };
  return examples[type]();
}
