import { ALPHA_RULES } from '../../commands/alpha/rules.js';
import { queryInt, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { studentStatus } from '../students/schema.js';
import { CONCEPT_EXAMPLE, CURRICULUM_EXAMPLE, STUDENT_EXAMPLE, badgeCode, masteryValue, ref } from './schema.js';
import { enrollmentSchema } from './schema-enrollments.js';

export const alphaStudentParams = z.strictObject({ id: ref('Student id or login email.', STUDENT_EXAMPLE) });

export const conceptMasterySchema = z
  .object({
    curriculum_id: z.string().openapi({ example: CURRICULUM_EXAMPLE }),
    concept_id: z.string().openapi({ example: CONCEPT_EXAMPLE }),
    concept_name: z.string().openapi({ example: 'Equivalent fractions' }),
    mastery: masteryValue,
    attempts: z.number().int().openapi({ example: 4 }),
    correct: z.number().int().openapi({ example: 3 }),
    last_activity_at: timestamp.nullable().openapi({ description: 'Null for a concept not practised yet.' }),
  })
  .openapi('AlphaConceptMastery');

export const masteryQuery = z.strictObject({ curriculum_id: ref('Only this curriculum.', CURRICULUM_EXAMPLE).optional() });

export const masteryList = z.object({
  items: z.array(conceptMasterySchema).openapi({
    description: 'Every concept of the curricula the student is enrolled in (any enrollment status), practised or not; by enrollment, then concept order.',
  }),
});

export const masteryCounts = {
  concepts_total: z.number().int().openapi({ example: 12 }),
  concepts_practiced: z.number().int().openapi({ example: 5 }),
  concepts_mastered: z
    .number()
    .int()
    .openapi({ description: `Concepts at mastery ${ALPHA_RULES.MASTERED_AT} or more.`, example: 2 }),
  average_mastery: z
    .number()
    .nullable()
    .openapi({ description: 'Mean over every concept, unpractised ones counting 0; null without concepts.', example: 0.2785 }),
};

export const drillDownSchema = z
  .object({
    student: z.object({ id: z.string(), login_email: z.string(), full_name: z.string(), status: studentStatus }).openapi({
      example: { id: STUDENT_EXAMPLE, login_email: 'ada.lovelace@riverside-high.campusbridge.local', full_name: 'Ada Lovelace', status: 'active' },
    }),
    enrollments: z.array(enrollmentSchema).openapi({ description: 'Oldest first, every status.' }),
    points_total: z.number().int().openapi({ example: 140 }),
    streak_days: z.number().int().openapi({ example: 3 }),
    mastery_summary: z
      .object({ ...masteryCounts, curricula: z.array(z.object({ curriculum_id: z.string(), ...masteryCounts })) })
      .openapi({ description: 'Over the curricula the student is enrolled in; `curricula` has one entry per enrollment.' }),
  })
  .openapi('AlphaStudent');

export const badgeSchema = z.object({ code: badgeCode, awarded_at: timestamp }).openapi('AlphaBadge');

export const ledgerEntrySchema = z
  .object({
    id: z.string().openapi({ example: 'pts_5Gd1kR8xPw3Lz6Rb2Tn9Vc7Y' }),
    points: z.number().int().openapi({ example: 10 }),
    note: z.string().openapi({ example: 'Correct answer: Equivalent fractions' }),
    ref: z.string().openapi({
      description: "Awards: the client's ref. Activity: the activity id (`act_…`), or `daily_target:<enrollment id>:<YYYY-MM-DD>` for the daily bonus.",
      example: 'act_9Qe4kM2xTw7Lz1Rb5Vn3Hc8Y',
    }),
    source: z.enum(['activity', 'award']),
    created_at: timestamp,
  })
  .openapi('AlphaLedgerEntry');

export const pointsQuery = z.strictObject({
  limit: queryInt({ min: 1, max: 200, default: 20 }).openapi({ description: 'Ledger rows to return, newest first; 1 to 200, default 20.', example: 20 }),
});

export const pointsSummarySchema = z
  .object({
    total: z.number().int().openapi({ description: 'Sum of every ledger row; never below 0.', example: 140 }),
    streak_days: z
      .number()
      .int()
      .openapi({ description: 'Consecutive UTC days with activity, ending today (or yesterday while today has none yet).', example: 3 }),
    badges: z.array(badgeSchema).openapi({ description: 'Earned once and kept, oldest first.' }),
    ledger: z.array(ledgerEntrySchema).openapi({ description: 'Newest first, at most `limit` rows.' }),
  })
  .openapi('AlphaPoints');

export const awardBody = z
  .strictObject({
    points: z
      .number()
      .int()
      .min(-ALPHA_RULES.AWARD_LIMIT)
      .max(ALPHA_RULES.AWARD_LIMIT)
      .refine((points) => points !== 0, 'Must not be 0.')
      .openapi({ description: 'Integer from -100 to 100, not 0. A negative award that would take the total below 0 is `409 conflict`.', example: 25 }),
    note: z.string().max(500).default('').openapi({ description: 'Shown in the ledger; at most 500 characters.', example: 'Science fair finalist' }),
    ref: z.string().min(1).max(100).openapi({
      description:
        'Idempotency key, unique in the institution. The same ref with the same student, points and note answers the first award with `replayed: true` and adds nothing; with anything different: `409 conflict`.',
      example: 'sis-award-2026-0042',
    }),
  })
  .openapi('AlphaPointsAward');

export const awardSchema = z
  .object({
    id: z.string().openapi({ description: 'The ledger row.', example: 'pts_5Gd1kR8xPw3Lz6Rb2Tn9Vc7Y' }),
    student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    points: z.number().int().openapi({ example: 25 }),
    note: z.string().openapi({ example: 'Science fair finalist' }),
    ref: z.string().openapi({ example: 'sis-award-2026-0042' }),
    total: z.number().int().openapi({ description: "The student's total right after this award (a replay repeats it).", example: 165 }),
    replayed: z.boolean().openapi({ description: 'true when the ref was used before: this is the first award, nothing was added.' }),
    created_at: timestamp,
  })
  .openapi('AlphaPointsAwarded');
