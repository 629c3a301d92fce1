import { ALPHA_RULES } from '../../commands/alpha/rules.js';
import { z } from '../../validation/zod.js';
import { CONCEPT_EXAMPLE, CURRICULUM_EXAMPLE, ENROLLMENT_EXAMPLE, badgeCode, enrollmentStatus, ref } from './schema.js';
import { dailyTarget } from './schema-enrollments.js';
import { badgeSchema, conceptMasterySchema, masteryCounts } from './schema-students.js';

export const activityBody = z
  .strictObject({
    curriculum_id: ref('A curriculum the student has an active enrollment in.', CURRICULUM_EXAMPLE),
    concept_id: ref('A concept of that curriculum.', CONCEPT_EXAMPLE),
    correct: z.boolean().openapi({ description: 'Whether the student answered correctly.' }),
    minutes: z.number().int().min(0).max(600).default(0).openapi({ description: 'Minutes spent, 0 to 600; default 0.', example: 5 }),
  })
  .openapi('AlphaActivity');

export const activityResultSchema = z
  .object({
    mastery: conceptMasterySchema,
    points_awarded: z
      .number()
      .int()
      .openapi({
        description: `Points this activity earned: ${ALPHA_RULES.CORRECT_POINTS} for a correct answer, plus ${ALPHA_RULES.DAILY_TARGET_BONUS} when it makes the day's minutes on the curriculum reach the daily target (once per enrollment and UTC day).`,
        example: 10,
      }),
    awards: z.array(z.object({ points: z.number().int(), note: z.string() })).openapi({
      description: 'Each award that makes up `points_awarded`, with the note its ledger row carries, so a student is told why.',
      example: [{ points: 10, note: 'Correct answer: Halves and quarters' }],
    }),
    total: z.number().int().openapi({ example: 150 }),
    streak_days: z.number().int().openapi({ example: 3 }),
    badges: z.array(badgeSchema).openapi({ description: 'Every badge the student holds, oldest first.' }),
    new_badges: z.array(badgeCode).openapi({ description: 'Badges this activity earned.', example: ['streak_3'] }),
  })
  .openapi('AlphaActivityResult');

export const ownAlphaSchema = z
  .object({
    curricula: z
      .array(
        z.object({
          id: z.string().openapi({ example: CURRICULUM_EXAMPLE }),
          name: z.string().openapi({ example: 'Fractions' }),
          description: z.string().openapi({ example: 'Equivalent fractions to mixed-number arithmetic.' }),
          enrollment: z.object({
            id: z.string().openapi({ example: ENROLLMENT_EXAMPLE }),
            status: enrollmentStatus.openapi({
              description: 'Only `active` takes practice: an activity on a `paused` or `completed` enrollment is `409 conflict`. Their mastery stays shown.',
            }),
            daily_target_minutes: dailyTarget,
          }),
          ...masteryCounts,
          concepts: z.array(conceptMasterySchema).openapi({ description: "Every concept, practised or not, in the curriculum's order." }),
        }),
      )
      .openapi({ description: "The student's enrollments, oldest first, every status, each with its curriculum." }),
    points_total: z.number().int().openapi({ description: 'Sum of every ledger row.', example: 140 }),
    streak_days: z
      .number()
      .int()
      .openapi({ description: 'Consecutive UTC days with activity, ending today (or yesterday while today has none yet).', example: 3 }),
    badges: z.array(badgeSchema).openapi({ description: 'Earned once and kept, oldest first.' }),
  })
  .openapi('AlphaLearnerOverview');
