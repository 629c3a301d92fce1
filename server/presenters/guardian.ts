import { iso } from './common.js';
import type { GuardianLinkRow, GuardianReportRow, StoredWeeklySummary } from '../models/guardian.js';

/** A guardian link as the API shows one: never the invitation token's hash or expiry bookkeeping. */
export function presentGuardianLink(row: GuardianLinkRow) {
  return {
    id: row.id,
    student_id: row.student_id,
    guardian_email: row.guardian_email,
    guardian_type: row.guardian_type,
    guardian_name: row.guardian_name,
    guardian_phone: row.guardian_phone,
    is_primary: row.is_primary,
    verified: row.verified,
    invited_at: row.invited_at.toISOString(),
    verified_at: iso(row.verified_at),
  };
}

export function presentGuardianReport(row: GuardianReportRow) {
  return {
    id: row.id,
    student_id: row.student_id,
    week_start: row.week_start,
    summary: presentReportSummary(row.summary),
    created_at: row.created_at.toISOString(),
  };
}

/** The stored content, section by section; sections added later are empty (or null) in older reports. */
function presentReportSummary(summary: StoredWeeklySummary) {
  return {
    student: { full_name: summary.student.full_name, status: summary.student.status },
    week: { start: summary.week.start, end: summary.week.end },
    license: { status: summary.license.status, expires_at: summary.license.expires_at },
    groups: summary.groups,
    activity: { events: summary.activity.events, by_type: summary.activity.by_type },
    submissions: (summary.submissions ?? []).map((item) => ({
      exam_id: item.exam_id,
      exam_title: item.exam_title,
      status: item.status,
      score: item.score,
      max_score: item.max_score,
      has_feedback: item.has_feedback,
      submitted_at: item.submitted_at,
      graded_at: item.graded_at,
    })),
    upcoming_exams: (summary.upcoming_exams ?? []).map((item) => ({
      exam_id: item.exam_id,
      exam_title: item.exam_title,
      due_date: item.due_date,
      max_score: item.max_score,
    })),
    alpha: summary.alpha
      ? {
          minutes: summary.alpha.minutes,
          activities: summary.alpha.activities,
          points_earned: summary.alpha.points_earned,
          points_total: summary.alpha.points_total,
          curricula: summary.alpha.curricula.map((item) => ({
            curriculum_id: item.curriculum_id,
            name: item.name,
            concepts_total: item.concepts_total,
            concepts_mastered: item.concepts_mastered,
            average_mastery: item.average_mastery,
          })),
        }
      : null,
    upcoming_window: summary.upcoming_window ? { start: summary.upcoming_window.start, end: summary.upcoming_window.end } : null,
    made_at: summary.made_at ?? null,
  };
}
