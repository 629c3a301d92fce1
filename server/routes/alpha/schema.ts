import { ALPHA_RULES, BADGES } from '../../commands/alpha/rules.js';
import { pageOf, pageQuery, queryInt, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { MAX_STUDENT_IDS } from '../groups/schema.js';
import { studentStatus } from '../students/schema.js';

const CURRICULUM_EXAMPLE = 'cur_3Fh8kL2xWq7Pz1Rb9Tn4Vc6Y';
const CONCEPT_EXAMPLE = 'con_8Jm2kQ5xLw9Pz3Rb7Tn1Vc4Y';
const ENROLLMENT_EXAMPLE = 'enr_6Kp9mT3xNw2Lz8Rb4Vn7Hc1Y';
const STUDENT_EXAMPLE = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
const FACULTY_EXAMPLE = 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y';

const ref = (description: string, example: string) => z.string().min(1).max(320).openapi({ description, example });

const curriculumStatus = z.enum(['draft', 'published']);
const enrollmentStatus = z.enum(['active', 'paused', 'completed']);
const badgeCode = z.enum(Object.keys(BADGES) as [keyof typeof BADGES, ...Array<keyof typeof BADGES>]).openapi({
  description: Object.entries(BADGES)
    .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
    .join(' '),
});
const masteryValue = z
  .number()
  .min(0)
  .max(1)
  .openapi({
    description: `0 to 1, 4 decimals. Each activity moves it ${ALPHA_RULES.MASTERY_RATE} of the way toward 1 (correct) or 0 (wrong), from 0.`,
    example: 0.657,
  });

// ------------------------------------------------------------------------------------------------
// Curricula
// ------------------------------------------------------------------------------------------------

export const curriculumSchema = z
  .object({
    id: z.string().openapi({ example: CURRICULUM_EXAMPLE }),
    name: z.string().openapi({ example: 'Fractions' }),
    description: z.string().openapi({ example: 'Equivalent fractions to mixed-number arithmetic.' }),
    status: curriculumStatus.openapi({ description: 'Always `published` here: drafts are not visible through the API.' }),
    scope: z
      .enum(['institution', 'shared'])
      .openapi({ description: "`shared`: offered to every institution on the appliance. `institution`: this institution's own." }),
    concepts: z
      .array(z.object({ id: z.string().openapi({ example: CONCEPT_EXAMPLE }), name: z.string().openapi({ example: 'Equivalent fractions' }) }))
      .openapi({ description: "In the curriculum's order." }),
  })
  .openapi('AlphaCurriculum');

export const listCurriculaQuery = z.strictObject({
  status: curriculumStatus
    .optional()
    .openapi({ description: 'Only published curricula are ever listed: `published` is the same as no filter, `draft` always gives an empty page.' }),
  ...pageQuery,
});

export const curriculumPage = pageOf(curriculumSchema);

// ------------------------------------------------------------------------------------------------
// Enrollments
// ------------------------------------------------------------------------------------------------

const dailyTarget = z.number().int().min(1).max(600).openapi({ description: 'Minutes a day, 1 to 600.', example: 30 });

const guideRef = z.string().min(1).max(320).nullable().openapi({
  description: 'The guiding teacher: faculty id or login email, or null for none. Unknown or suspended: `422 invalid_faculty`.',
  example: FACULTY_EXAMPLE,
});

export const enrollmentSchema = z
  .object({
    id: z.string().openapi({ example: ENROLLMENT_EXAMPLE }),
    curriculum_id: z.string().openapi({ example: CURRICULUM_EXAMPLE }),
    student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    guide_id: z.string().nullable().openapi({ description: "The guide's internal faculty id, or null.", example: FACULTY_EXAMPLE }),
    daily_target_minutes: z.number().int().openapi({ example: 30 }),
    status: enrollmentStatus,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('AlphaEnrollment');

export const listEnrollmentsQuery = z.strictObject({
  student_id: ref('Student id or login email; an unknown student gives an empty page.', STUDENT_EXAMPLE).optional(),
  curriculum_id: ref('Curriculum id.', CURRICULUM_EXAMPLE).optional(),
  status: enrollmentStatus.optional(),
  ...pageQuery,
});

export const enrollmentPage = pageOf(enrollmentSchema);

export const createEnrollmentsBody = z
  .strictObject({
    curriculum_id: ref(
      "A published curriculum of this institution or a shared one. Anything else (unknown, a draft, another institution's) is `422 validation_error` at `curriculum_id`.",
      CURRICULUM_EXAMPLE,
    ),
    student_ids: z
      .array(z.string().min(1).max(320))
      .min(1)
      .max(MAX_STUDENT_IDS, `At most ${MAX_STUDENT_IDS} student ids per call.`)
      .openapi({
        description:
          'Student ids or login emails. Those that are not students of this institution are skipped and returned in `rejected_student_ids`; a list with no valid id is `422 no_valid_students`.',
        example: [STUDENT_EXAMPLE, 'alan.turing@riverside-high.campusbridge.local'],
      }),
    daily_target_minutes: dailyTarget.default(30).openapi({ description: 'Minutes a day, 1 to 600; default 30.' }),
    guide_id: guideRef
      .optional()
      .openapi({ description: 'Optional guide for every enrollment made: faculty id or login email, or null. Unknown or suspended: `422 invalid_faculty`.' }),
  })
  .openapi('AlphaEnrollmentCreate');

export const enrollmentsCreatedSchema = z
  .object({
    items: z.array(enrollmentSchema).openapi({ description: 'The enrollments made by this call, in request order.' }),
    rejected_student_ids: z.array(z.string()).openapi({ description: 'Given ids that are not students of this institution, as sent.', example: [] }),
    already_enrolled: z
      .array(z.string())
      .openapi({ description: 'Internal ids of valid students skipped because they are already enrolled in this curriculum (any status).', example: [] }),
  })
  .openapi('AlphaEnrollmentsCreated');

export const updateEnrollmentBody = z
  .strictObject({
    guide_id: guideRef.optional(),
    daily_target_minutes: dailyTarget.optional(),
    status: enrollmentStatus
      .optional()
      .openapi({ description: 'active ↔ paused, active or paused → completed. A completed enrollment cannot change: `409 conflict`.' }),
  })
  .openapi('AlphaEnrollmentUpdate');

export const enrollmentParams = z.strictObject({ id: ref('Enrollment id.', ENROLLMENT_EXAMPLE) });

// ------------------------------------------------------------------------------------------------
// Students: drill-down, mastery, points
// ------------------------------------------------------------------------------------------------

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

const masteryCounts = {
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

// ------------------------------------------------------------------------------------------------
// Leaderboard
// ------------------------------------------------------------------------------------------------

export const leaderboardQuery = z.strictObject({
  limit: queryInt({ min: 1, max: 100, default: 10 }).openapi({ description: 'Entries, 1 to 100, default 10.', example: 10 }),
});

export const leaderboardSchema = z.object({
  items: z
    .array(
      z.object({
        rank: z.number().int().openapi({ example: 1 }),
        student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
        full_name: z.string().openapi({ example: 'Ada Lovelace' }),
        points: z.number().int().openapi({ example: 165 }),
      }),
    )
    .openapi({
      description: 'Students with a positive total, highest first. Equal totals share a rank and the next rank skips (1, 2, 2, 4); within a rank, by name.',
    }),
});

// ------------------------------------------------------------------------------------------------
// Learner side: POST /app/alpha/activity
// ------------------------------------------------------------------------------------------------

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

// ------------------------------------------------------------------------------------------------
// Learner side: GET /app/alpha
// ------------------------------------------------------------------------------------------------

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
