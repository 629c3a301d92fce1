import { Sequelize } from 'sequelize';
import type { TenantTx } from '../../db/tenant.js';
import { AppError, notFound, validationError } from '../../errors.js';
import type { LearnerAuth } from '../learner/auth.js';
import { newId } from '../../ids.js';
import type { AlphaActivityRow, AlphaBadgeRow, AlphaMasteryRow, BadgeCode } from '../../models/alpha.js';
import type { PersonRow } from '../../models/person.js';
import type { ConceptMastery } from './mastery.js';
import { addLedgerRow, badgesOf, pointsTotal, streakDays } from './points.js';
import { ALPHA_RULES, nextMastery, utcDay } from './rules.js';

// The learner side: POST /app/alpha/activity.

export interface ActivityInput {
  curriculum_id: string;
  concept_id: string;
  correct: boolean;
  minutes: number;
}

export interface ActivityResult {
  mastery: ConceptMastery & { row: AlphaMasteryRow };
  pointsAwarded: number;
  /** The ledger rows this activity wrote, in order: what `pointsAwarded` is made of. */
  awards: Array<{ points: number; note: string }>;
  total: number;
  streakDays: number;
  badges: AlphaBadgeRow[];
  newBadges: BadgeCode[];
}

/** Alpha Learning is for students; a faculty member's learner session is `403 forbidden`. */
export function alphaStudentOf(learner: LearnerAuth): PersonRow {
  if (learner.person.role !== 'student') throw new AppError('forbidden', 'Only students practise in Alpha Learning; this session belongs to a faculty member.');
  return learner.person;
}

async function minutesOn(tx: TenantTx, enrollmentId: string, day: string): Promise<number> {
  const [row] = (await tx.alphaActivities.findAll({
    attributes: [[Sequelize.fn('COALESCE', Sequelize.fn('SUM', Sequelize.col('minutes')), 0), 'minutes']],
    where: { enrollment_id: enrollmentId, day },
    raw: true,
  })) as unknown as Array<{ minutes: number | string }>;
  return Number(row?.minutes ?? 0);
}

/**
 * One practice activity, all in one transaction: the activity row, the concept's mastery, the
 * points it earns (ledger rows of source `activity`, each with `alpha.points.awarded`), the streak
 * and any badge earned. Checks, in order: the curriculum is visible (`404 not_found`), the concept
 * belongs to it (`422` at `concept_id`), the student has an `active` enrollment in it (`409 conflict`).
 */
export function recordActivity(learner: LearnerAuth, input: ActivityInput, now = new Date()): Promise<ActivityResult> {
  const student = alphaStudentOf(learner);
  return learner.tenant.inTransaction(async (tx) => {
    const curriculum = await tx.alphaCurricula.findById(input.curriculum_id);
    if (!curriculum) throw notFound('curriculum');
    const concept = await tx.appliance.alphaConcepts.findOne({ where: { id: input.concept_id, curriculum_id: curriculum.id } });
    if (!concept) throw validationError([{ path: 'concept_id', message: `"${input.concept_id}" is not a concept of this curriculum.` }]);
    const enrollment = await tx.alphaEnrollments.findOne({ where: { student_id: student.id, curriculum_id: curriculum.id } });
    if (!enrollment) throw new AppError('conflict', 'You are not enrolled in this curriculum.');
    if (enrollment.status !== 'active') throw new AppError('conflict', `Your enrollment in this curriculum is ${enrollment.status}.`);

    const day = utcDay(now);
    const minutesBefore = await minutesOn(tx, enrollment.id, day);

    // Mastery: see ALPHA_RULES.
    const previous = await tx.alphaMastery.findOne({ where: { student_id: student.id, concept_id: concept.id } });
    const mastery = nextMastery(previous?.mastery ?? 0, input.correct);
    const counts = { attempts: (previous?.attempts ?? 0) + 1, correct: (previous?.correct ?? 0) + (input.correct ? 1 : 0) };
    let masteryRow: AlphaMasteryRow;
    if (previous) {
      await previous.update({ mastery, ...counts, last_activity_at: now }, { transaction: tx.tx });
      masteryRow = previous;
    } else {
      masteryRow = await tx.alphaMastery.create({
        student_id: student.id,
        concept_id: concept.id,
        curriculum_id: curriculum.id,
        mastery,
        ...counts,
        last_activity_at: now,
      });
    }
    const activity: AlphaActivityRow = await tx.alphaActivities.create({
      id: newId('act'),
      student_id: student.id,
      enrollment_id: enrollment.id,
      curriculum_id: curriculum.id,
      concept_id: concept.id,
      correct: input.correct,
      minutes: input.minutes,
      day,
      mastery_after: mastery,
      occurred_at: now,
    });

    // Points: the refs make each rule pay once (unique per institution and source).
    let total = await pointsTotal(tx, student.id);
    let pointsAwarded = 0;
    const awards: Array<{ points: number; note: string }> = [];
    const pay = async (points: number, ref: string, note: string) => {
      total += points;
      pointsAwarded += points;
      awards.push({ points, note });
      await addLedgerRow(tx, { student_id: student.id, points, note, source: 'activity', ref, balance_after: total, created_at: now });
    };
    if (input.correct) await pay(ALPHA_RULES.CORRECT_POINTS, activity.id, `Correct answer: ${concept.name}`);
    const target = enrollment.daily_target_minutes;
    const bonusRef = `daily_target:${enrollment.id}:${day}`;
    if (minutesBefore < target && minutesBefore + input.minutes >= target) {
      const paid = await tx.alphaPoints.findOne({ attributes: ['id'], where: { source: 'activity', ref: bonusRef } });
      if (!paid) await pay(ALPHA_RULES.DAILY_TARGET_BONUS, bonusRef, `Daily target of ${target} minutes reached: ${curriculum.name}`);
    }

    // Streak and badges (earned once, kept).
    const streak = await streakDays(tx, student.id, now);
    const deserved: BadgeCode[] = ['first_activity'];
    if (streak >= 3) deserved.push('streak_3');
    if (streak >= 7) deserved.push('streak_7');
    if (mastery >= ALPHA_RULES.MASTERED_AT) deserved.push('mastery_0_8');
    const held = new Set((await badgesOf(tx, student.id)).map((badge) => badge.code));
    const newBadges = deserved.filter((code) => !held.has(code));
    for (const code of newBadges) await tx.alphaBadges.create({ student_id: student.id, code, awarded_at: now });

    return {
      mastery: { curriculumId: curriculum.id, concept, row: masteryRow },
      pointsAwarded,
      awards,
      total,
      streakDays: streak,
      badges: await badgesOf(tx, student.id),
      newBadges,
    };
  });
}
