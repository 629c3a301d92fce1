import type { ActivityResult } from '../commands/alpha/activity.js';
import type { CurriculumWithConcepts } from '../commands/alpha/curricula.js';
import type { OwnAlpha } from '../commands/alpha/learner.js';
import type { LeaderboardEntry } from '../commands/alpha/leaderboard.js';
import type { ConceptMastery, StudentDrillDown } from '../commands/alpha/mastery.js';
import type { PointsSummary } from '../commands/alpha/points.js';
import type { AlphaBadgeRow, AlphaEnrollmentRow, AlphaPointsRow } from '../models/alpha.js';
import { presentPersonRef } from './person.js';

/** Mastery is stored at full precision and shown to 4 decimals. */
const mastery = (value: number) => Math.round(value * 10_000) / 10_000;

/** `scope` says whether every institution sees it (`shared`) or only its own (`institution`). */
export function presentCurriculum({ curriculum, concepts }: CurriculumWithConcepts) {
  return {
    id: curriculum.id,
    name: curriculum.name,
    description: curriculum.description,
    status: curriculum.status,
    scope: curriculum.institution_id === null ? ('shared' as const) : ('institution' as const),
    concepts: concepts.map((concept) => ({ id: concept.id, name: concept.name })),
  };
}

export function presentEnrollment(row: AlphaEnrollmentRow) {
  return {
    id: row.id,
    curriculum_id: row.curriculum_id,
    student_id: row.student_id,
    guide_id: row.guide_id,
    daily_target_minutes: row.daily_target_minutes,
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentConceptMastery({ curriculumId, concept, row }: ConceptMastery) {
  return {
    curriculum_id: curriculumId,
    concept_id: concept.id,
    concept_name: concept.name,
    mastery: mastery(row?.mastery ?? 0),
    attempts: row?.attempts ?? 0,
    correct: row?.correct ?? 0,
    last_activity_at: row ? row.last_activity_at.toISOString() : null,
  };
}

export function presentBadge(row: AlphaBadgeRow) {
  return { code: row.code, awarded_at: row.awarded_at.toISOString() };
}

export function presentLedgerEntry(row: AlphaPointsRow) {
  return { id: row.id, points: row.points, note: row.note, ref: row.ref, source: row.source, created_at: row.created_at.toISOString() };
}

export function presentPointsSummary(summary: PointsSummary) {
  return {
    total: summary.total,
    streak_days: summary.streakDays,
    badges: summary.badges.map(presentBadge),
    ledger: summary.ledger.map(presentLedgerEntry),
  };
}

/** An award's answer; a replay repeats the first one (its `total` is the total right after it). */
export function presentAward(row: AlphaPointsRow, replayed: boolean) {
  return {
    id: row.id,
    student_id: row.student_id,
    points: row.points,
    note: row.note,
    ref: row.ref,
    total: row.balance_after,
    replayed,
    created_at: row.created_at.toISOString(),
  };
}

export function presentLeaderboardEntry({ rank, student, points }: LeaderboardEntry) {
  return { rank, student_id: student.id, full_name: student.full_name, points };
}

export function presentStudentDrillDown(detail: StudentDrillDown) {
  return {
    student: presentPersonRef(detail.student),
    enrollments: detail.enrollments.map(presentEnrollment),
    points_total: detail.pointsTotal,
    streak_days: detail.streakDays,
    mastery_summary: detail.masterySummary,
  };
}

export function presentActivityResult(result: ActivityResult) {
  return {
    mastery: presentConceptMastery(result.mastery),
    points_awarded: result.pointsAwarded,
    awards: result.awards.map(({ points, note }) => ({ points, note })),
    total: result.total,
    streak_days: result.streakDays,
    badges: result.badges.map(presentBadge),
    new_badges: result.newBadges,
  };
}

/** GET /app/alpha: the student's own enrollments, mastery, points, streak and badges. */
export function presentOwnAlpha(own: OwnAlpha) {
  return {
    curricula: own.curricula.map(({ curriculum, enrollment, counts, concepts }) => ({
      id: curriculum.id,
      name: curriculum.name,
      description: curriculum.description,
      enrollment: { id: enrollment.id, status: enrollment.status, daily_target_minutes: enrollment.daily_target_minutes },
      concepts_total: counts.concepts_total,
      concepts_practiced: counts.concepts_practiced,
      concepts_mastered: counts.concepts_mastered,
      average_mastery: counts.average_mastery,
      concepts: concepts.map(presentConceptMastery),
    })),
    points_total: own.pointsTotal,
    streak_days: own.streakDays,
    badges: own.badges.map(presentBadge),
  };
}
