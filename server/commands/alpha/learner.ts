import { Op } from 'sequelize';
import type { AlphaBadgeRow, AlphaCurriculumRow, AlphaEnrollmentRow } from '../../models/alpha.js';
import type { LearnerAuth } from '../learner/auth.js';
import { alphaStudentOf } from './activity.js';
import { getStudentDrillDown, getStudentMastery, type ConceptMastery, type MasteryCounts } from './mastery.js';
import { badgesOf } from './points.js';

// The learner side: GET /app/alpha.

export interface EnrolledCurriculum {
  curriculum: AlphaCurriculumRow;
  enrollment: AlphaEnrollmentRow;
  counts: MasteryCounts;
  /** Every concept of the curriculum, practised or not, in its order. */
  concepts: ConceptMastery[];
}

export interface OwnAlpha {
  curricula: EnrolledCurriculum[];
  pointsTotal: number;
  streakDays: number;
  badges: AlphaBadgeRow[];
}

/**
 * The signed-in student's Alpha Learning: each enrollment (any status, oldest first) with its
 * curriculum and per-concept mastery, the points total, streak and badges. It is the integration
 * side's drill-down, mastery and points read for the session's own student, so both sides always
 * show the same numbers.
 */
export async function getOwnAlpha(learner: LearnerAuth, now = new Date()): Promise<OwnAlpha> {
  const student = alphaStudentOf(learner);
  const { tenant } = learner;
  const [detail, mastery, badges] = await Promise.all([
    getStudentDrillDown(tenant, student.id, now),
    getStudentMastery(tenant, student.id),
    badgesOf(tenant, student.id),
  ]);
  // Through the visible door: an enrollment is only ever made in a curriculum the institution sees.
  const curricula = await tenant.alphaCurricula.findAll({ where: { id: { [Op.in]: detail.enrollments.map((row) => row.curriculum_id) } } });
  const curriculumById = new Map(curricula.map((row) => [row.id, row]));
  const countsById = new Map(detail.masterySummary.curricula.map(({ curriculum_id, ...counts }) => [curriculum_id, counts]));
  const enrolled = detail.enrollments.flatMap((enrollment): EnrolledCurriculum[] => {
    const curriculum = curriculumById.get(enrollment.curriculum_id);
    const counts = countsById.get(enrollment.curriculum_id);
    if (!curriculum || !counts) return [];
    return [{ curriculum, enrollment, counts, concepts: mastery.filter((item) => item.curriculumId === curriculum.id) }];
  });
  return { curricula: enrolled, pointsTotal: detail.pointsTotal, streakDays: detail.streakDays, badges };
}
