import { MAX_ANSWERS_BYTES, MAX_EVENT_DETAIL_BYTES, MAX_EVENTS_PER_CALL, MAX_SUBMISSION_FILES } from '../../commands/learner/learner.js';
import { isoDateTime, timestamp } from '../../validation/schemas.js';
import { examArchiveSchema } from '../exams/schema.js';
import { z } from '../../validation/zod.js';

const EXAM_EXAMPLE = 'exm_5Qw8kT2xLm9Pz3Rb7Vn1Hc4Y';
const ATTEMPT_EXAMPLE = 'att_3Jk7mW1xPq8Lz2Rb6Tn9Vc5Y';
const STUDENT_EXAMPLE = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
const FILE_EXAMPLE = 'file_9Xc2vB7nM4kL1pQ8wE5rT3yU';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

export const learnerUserSchema = z
  .object({
    id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    full_name: z.string().openapi({ example: 'Ada Lovelace' }),
    role: z.enum(['student', 'faculty']),
  })
  .openapi('LearnerUser');

const submissionStatus = z.enum(['submitted', 'graded', 'resubmission_requested', 'voided']);

const ownSubmissionState = z
  .object({
    id: z.string().openapi({ example: 'sub_6Tn2kP9xWq4Lz7Rb1Vm3Hc8Y' }),
    status: submissionStatus,
    score: z.number().nullable().openapi({ description: 'Set once graded; -1 never appears (that is `resubmission_requested`).', example: null }),
  })
  .nullable()
  .openapi({ description: "The student's newest submission for this exam, or null." });

const fileRef = z
  .union([z.string(), z.object({ ref: z.string() })])
  .openapi({ description: 'A file of the exam, as its teacher named it: a `ref` string or `{ref}`.', example: 'file_3Jk8mQ2xLw9Pz4Rb7Tn1Vc5Y' });

const learnerCodeSpec = z
  .object({
    toolchain: z.string().optional().openapi({ example: 'python-3.12' }),
    starter: fileRef.optional(),
    sample_tests: fileRef.optional(),
    hidden_tests: z.object({ file: z.string(), sha256: z.string() }).optional().openapi({
      description: 'The encrypted hidden tests; their IV and key are never in this object (the key comes from POST /app/attempts/{id}/hidden-key).',
    }),
    commands: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .optional()
      .openapi({ example: { build: 'pip install -r requirements.txt', test: ['pytest -q'] } }),
    ai_policy: z.object({ allowed: z.boolean(), model_tier: z.string(), max_interactions: z.number().int() }).partial().optional(),
  })
  .nullable()
  .openapi('LearnerCodeSpec', { description: "A coding exam's `code_spec` without the hidden tests' IV; null for other exams." });

const ownAttemptState = z
  .object({
    id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    started_at: timestamp,
    expires_at: timestamp.nullable().openapi({ description: 'Null without a time limit.' }),
  })
  .nullable()
  .openapi({
    description:
      "The student's newest unsubmitted attempt, or null: open while `expires_at` is null or ahead (POST /app/exams/{id}/attempts resumes it), " +
      'run out once it has passed.',
  });

export const learnerExamSchema = z
  .object({
    id: z.string().openapi({ example: EXAM_EXAMPLE }),
    title: z.string().openapi({ example: 'Kinematics quiz' }),
    description: z
      .string()
      .openapi({ description: 'The instructions, in Markdown (raw HTML is shown as text by the learner page).', example: '## Rules\n\nCalculators allowed.' }),
    exam_type: z.enum(['exam', 'homework', 'assignment', 'quiz', 'project']),
    app: z.enum(['learning', 'code']).openapi({ description: 'The app that delivers the exam.' }),
    due_date: timestamp.nullable(),
    time_limit_minutes: z.number().int().nullable().openapi({ example: 45 }),
    max_score: z.number().nullable().openapi({ example: 100 }),
    proctoring: z.record(z.string(), z.unknown()).openapi({ example: { camera: false, screen: true } }),
    status: z.enum(['draft', 'published', 'closed']).openapi({ description: 'Always `published` in this list.' }),
    code_spec: learnerCodeSpec,
    files: z.array(examArchiveSchema).openapi({
      description:
        "The archives the exam's `code_spec` names (starter, sample tests, encrypted hidden tests), in that order; empty for other exams. " +
        'Each `url` is a signed link made for this student: valid at most 15 minutes, and only while the student has an open attempt of the exam (`404 not_found` otherwise). ' +
        'Check the downloaded bytes against `sha256`.',
    }),
    submission: ownSubmissionState,
    attempt: ownAttemptState,
  })
  .openapi('LearnerExam');

export const learnerExamList = z.object({ items: z.array(learnerExamSchema) });

export const attemptSchema = z
  .object({
    id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    exam_id: z.string().openapi({ example: EXAM_EXAMPLE }),
    student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    started_at: timestamp,
    expires_at: timestamp.nullable().openapi({ description: "`started_at` plus the exam's `time_limit_minutes`; null without a time limit." }),
    submitted_at: timestamp.nullable().openapi({ example: null }),
    hidden_released_at: timestamp.nullable().openapi({ description: 'When the hidden-tests key was first released to this attempt.', example: null }),
  })
  .openapi('LearnerAttempt');

export const examParams = z.strictObject({ id: z.string().min(1).max(320).openapi({ description: 'Exam id.', example: EXAM_EXAMPLE }) });
export const attemptParams = z.strictObject({ id: z.string().min(1).max(320).openapi({ description: 'Attempt id.', example: ATTEMPT_EXAMPLE }) });

const proctoringEvent = z.strictObject({
  type: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[a-z][a-z0-9_]*$/, 'Lower-case letters, digits and underscores, starting with a letter.')
    .openapi({ description: 'What happened, for example `focus_lost` or `recorder_error`.', example: 'focus_lost' }),
  at: isoDateTime.transform((value) => new Date(value)).openapi({ description: 'When it happened, on the device.' }),
  detail: z
    .unknown()
    .refine((detail) => detail === undefined || jsonBytes(detail) <= MAX_EVENT_DETAIL_BYTES, `At most ${MAX_EVENT_DETAIL_BYTES} bytes as JSON.`)
    .optional()
    .openapi({
      description: `Free-form facts about the event: any JSON value (an object, a string such as "alt-tab", …), at most ${MAX_EVENT_DETAIL_BYTES} bytes as JSON.`,
      example: { duration_ms: 5400 },
    }),
});

export const eventsBody = z.strictObject({ events: z.array(proctoringEvent).min(1).max(MAX_EVENTS_PER_CALL) }).openapi('LearnerProctoringEvents');

export const eventsAccepted = z.object({ accepted: z.number().int().openapi({ example: 2 }) });

export const hiddenKeySchema = z.object({
  hidden_key_b64: z
    .string()
    .openapi({ description: 'Base64 of the 32-byte key that decrypts the hidden tests.', example: 'q3Jt0b8d5m3n9Zx1Lk4v7Rw2Yp6Ts0Hc8Gf1Ej5Ua9I=' }),
});

export const fileQuery = z.strictObject({
  kind: z
    .enum(['submission', 'recording'])
    .default('submission')
    .openapi({ description: '`submission`: a file the submission can attach. `recording`: a proctoring recording (never an attachment).' }),
});

export const attemptFileSchema = z
  .object({
    ref: z.string().openapi({ description: 'Pass it in `files` when submitting.', example: FILE_EXAMPLE }),
    name: z.string().openapi({ example: 'solution.zip' }),
    size: z.number().int().openapi({ example: 48213 }),
    sha256: z.string().openapi({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
  })
  .openapi('AttemptFile');

export const submitBody = z
  .strictObject({
    answers: z
      .unknown()
      .refine((answers) => answers === undefined || jsonBytes(answers) <= MAX_ANSWERS_BYTES, 'At most 1 MB as JSON.')
      .optional()
      .openapi({ description: 'Any JSON value the app uses for answers, at most 1 MB.', example: { text: 'v = u + at' } }),
    files: z
      .array(z.string().min(1).max(100))
      .max(MAX_SUBMISSION_FILES)
      .optional()
      .openapi({ description: 'Refs of `submission` files uploaded to this attempt; any other ref is `422 validation_error`.', example: [FILE_EXAMPLE] }),
    ai_usage: z
      .strictObject({
        interactions: z.number().int().min(0).max(1_000_000),
        cost_cents: z.number().int().min(0).max(100_000_000),
      })
      .optional()
      .openapi({
        deprecated: true,
        description:
          "Ignored: the submission's `ai_usage` is the usage recorded on the attempt by `POST /app/ai/usage`. Still accepted (and validated) so apps that send it keep working.",
      }),
  })
  .openapi('LearnerSubmit');

export const submissionReceiptSchema = z
  .object({
    id: z.string().openapi({ example: 'sub_6Tn2kP9xWq4Lz7Rb1Vm3Hc8Y' }),
    exam_id: z.string().openapi({ example: EXAM_EXAMPLE }),
    student_id: z.string().openapi({ example: STUDENT_EXAMPLE }),
    attempt_id: z.string().openapi({ example: ATTEMPT_EXAMPLE }),
    status: submissionStatus.openapi({ description: '`submitted` on creation.' }),
    submitted_at: timestamp,
  })
  .openapi('LearnerSubmission');

const SEAT_EXAMPLE = 'seat_4Rb8kT1xLm7Pz2Qw9Vn3Hc6Y';

export const learnerDeviceSchema = z
  .object({
    seat_id: z.string().openapi({ example: SEAT_EXAMPLE }),
    app: z.enum(['learning', 'code']).openapi({ description: 'The app the device last signed in to.' }),
    device_name: z.string().nullable().openapi({ example: 'Chrome on Windows' }),
    activated_at: timestamp,
    last_seen_at: timestamp.openapi({ description: 'Last use of a session on this seat, to the minute (it moves at most once a minute).' }),
    status: z.enum(['active', 'revoked']).openapi({ description: '`active` in the list; `revoked` once released.' }),
    current: z.boolean().openapi({ description: 'True for the seat of the session making this call.' }),
  })
  .openapi('LearnerDevice');

export const learnerDeviceList = z.object({ items: z.array(learnerDeviceSchema) });

export const seatParams = z.strictObject({ seatId: z.string().min(1).max(320).openapi({ description: 'Device seat id.', example: SEAT_EXAMPLE }) });
