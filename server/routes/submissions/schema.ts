import { sortQuery } from '../../validation/sort.js';
import { idParam, isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const SUBMISSION_EXAMPLE = 'sub_3Jx8kW2xMq9Pz3Lb7Tn1Vc5Y';
const EXAM_EXAMPLE = 'exm_5Rt9pL3xKw8Qz2Nb7Vm4Yc1D';
const STUDENT_EXAMPLE = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
const ATTEMPT_EXAMPLE = 'att_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y';

export const submissionStatus = z.enum(['submitted', 'graded', 'resubmission_requested', 'voided']).openapi({
  description: '`submitted` by the student; `graded` (score recorded); `resubmission_requested` (grade with score -1; the student may submit again); `voided`.',
});

export const MAX_FEEDBACK = 10_000;
export const MAX_GRADED_BY = 200;
export const MAX_VOID_REASON = 500;

export const submissionSchema = z
  .object({
    id: z.string().openapi({ example: SUBMISSION_EXAMPLE }),
    exam_id: z.string().openapi({ example: EXAM_EXAMPLE }),
    student_id: z.string().openapi({ description: "The student's internal id.", example: STUDENT_EXAMPLE }),
    attempt_id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    status: submissionStatus,
    score: z.number().nullable().openapi({ description: 'Set when `graded` (and kept when later voided); null otherwise.', example: 87.5 }),
    feedback: z.string().nullable().openapi({ example: 'Good structure; test the empty input.' }),
    graded_by: z
      .string()
      .nullable()
      .openapi({ description: 'Free text given by the grader, as sent.', example: 'grace.hopper@riverside-high.campusbridge.local' }),
    graded_at: timestamp
      .nullable()
      .openapi({ description: 'When the current grade was recorded; null unless a score is.', example: '2026-09-15T08:30:00.000Z' }),
    submitted_at: timestamp,
    voided_at: timestamp.nullable().openapi({ example: null }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Submission');

export const fileLinkSchema = z
  .object({
    ref: z.string().openapi({ example: 'file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y' }),
    name: z.string().openapi({ example: 'solution.zip' }),
    size: z.number().int().openapi({ description: 'Bytes.', example: 48213 }),
    sha256: z.string().openapi({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
    url: z.string().openapi({
      description: 'Signed download link (GET, no key needed) valid until `expires_at`. Read the submission again for a fresh one.',
      example: 'http://127.0.0.1:4780/v1/files/file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y?expires=1789380900&signature=5d41…',
    }),
    expires_at: timestamp.openapi({ description: 'At most 15 minutes after the read.' }),
  })
  .openapi('SignedFile');

const aiUsageSchema = z
  .object({
    interactions: z.number().openapi({ example: 12 }),
    cost_cents: z.number().openapi({ example: 34 }),
  })
  .nullable()
  .openapi({
    description:
      "The AI usage recorded on the submission's attempt by `POST /app/ai/usage` (checked against the exam's `ai_policy` and paid from the wallet), " +
      "as it stood at submit; `{interactions: 0, cost_cents: 0}` when none. Submissions stored before recording existed keep the app's own report, or null.",
  });

/** `focus_lost` and `recorder_error` are always present; every other type seen is added. */
const proctoringCounts = z
  .object({
    focus_lost: z.number().int(),
    recorder_error: z.number().int(),
  })
  .catchall(z.number().int())
  .openapi({
    description: 'Events per type: `focus_lost` and `recorder_error` always (0 when none), plus every other type seen.',
    example: { focus_lost: 3, recorder_error: 0, tab_hidden: 1 },
  });

export const proctoringSummarySchema = z
  .object({
    counts: proctoringCounts,
    total: z.number().int().openapi({ example: 4 }),
    first_at: timestamp.nullable().openapi({ description: 'Time of the earliest event; null when none.' }),
    last_at: timestamp.nullable().openapi({ description: 'Time of the latest event; null when none.' }),
  })
  .openapi('ProctoringSummary');

export const submissionDetailSchema = submissionSchema
  .extend({
    attachments: z.array(fileLinkSchema).openapi({ description: 'Files the student submitted, in the order submitted, with signed links.' }),
    ai_usage: aiUsageSchema,
    proctoring: proctoringSummarySchema,
    answers: z.unknown().openapi({ description: 'The answers as the app submitted them (any JSON); null when none.' }),
    recordings: z.array(fileLinkSchema).optional().openapi({
      description:
        'Proctoring recordings of the attempt, oldest first, with signed links. Present only when the key holds `submissions:write`; absent otherwise.',
    }),
  })
  .openapi('SubmissionDetail');

export const attemptSchema = z
  .object({
    id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    exam_id: z.string().openapi({ example: EXAM_EXAMPLE }),
    student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    started_at: timestamp,
    expires_at: timestamp.nullable().openapi({ description: "From the exam's time limit; null when it has none." }),
    submitted_at: timestamp.nullable(),
    hidden_released_at: timestamp.nullable().openapi({ description: 'When the hidden-tests key was released to the student; null if never.' }),
  })
  .openapi('Attempt');

export const proctoringEventSchema = z
  .object({
    id: z.string().openapi({ example: 'pev_6Kd2mXq7Lw3Pz8Rb1Tn5Vc4Y' }),
    type: z.string().openapi({ example: 'focus_lost' }),
    at: timestamp,
    detail: z.unknown().openapi({ description: 'As the app reported it (usually an object); null when none.', example: { duration_ms: 5200 } }),
  })
  .openapi('ProctoringEvent');

export const proctoringFeedSchema = z
  .object({
    attempt: attemptSchema,
    counts: proctoringCounts,
    items: z.array(proctoringEventSchema).openapi({ description: 'Every event of the attempt, ordered by `at` (oldest first). Not paged.' }),
  })
  .openapi('ProctoringFeed');

export const listSubmissionsQuery = z.strictObject({
  exam_id: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: 'Only submissions of this exam. An unknown exam gives an empty list.', example: EXAM_EXAMPLE }),
  student_id: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: "The student's internal id or login email. An unknown student gives an empty list.", example: STUDENT_EXAMPLE }),
  status: submissionStatus.optional(),
  since: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({
      description:
        'Only submissions with `submitted_at` at or after this instant (inclusive: two submissions may share a millisecond, so pass the newest `submitted_at` you processed and skip ids you have seen).',
      example: '2026-09-14T00:00:00.000Z',
    }),
  sort: sortQuery(['submitted_at', 'score'], 'oldest `submitted_at` first'),
  ...pageQuery,
});

export const submissionPage = pageOf(submissionSchema);
export const submissionParams = idParam('Submission id.', SUBMISSION_EXAMPLE);

export const gradeSubmissionBody = z
  .strictObject({
    score: z.number().openapi({
      description:
        "From 0 to the exam's `max_score` (any value ≥ 0 when the exam has none); `-1` requests a resubmission. Anything else: `422 validation_error`.",
      example: 87.5,
    }),
    feedback: z
      .string()
      .max(MAX_FEEDBACK)
      .optional()
      .openapi({ description: 'Shown to the student. Omitted: none (a previous feedback is not kept).', example: 'Good structure; test the empty input.' }),
    graded_by: z
      .string()
      .max(MAX_GRADED_BY)
      .optional()
      .openapi({ description: 'Who graded, free text. Omitted: null.', example: 'grace.hopper@riverside-high.campusbridge.local' }),
  })
  .openapi('SubmissionGrade');

export const voidSubmissionBody = z
  .strictObject({
    reason: z
      .string()
      .max(MAX_VOID_REASON)
      .optional()
      .openapi({ description: 'Kept with the submission; never returned or sent in events.', example: 'Academic integrity review' }),
  })
  .openapi('SubmissionVoid');
