import { sortQuery } from '../../validation/sort.js';
import { codeSpecSchema } from '../../commands/exams/coding.js';
import { idParam, isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

export const MAX_GROUP_IDS = 200;

export const EXAM_ID = 'exm_5Rt9pL3xKw8Qz2Nb7Vm4Yc1D';
const FACULTY_ID = 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y';
export const GROUP_ID = 'grp_4Nc8kW2xRq7Lz1Pb9Tm3Vd6Y';
export const STUDENT_ID = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
export const SUBMISSION_ID = 'sub_3Jq8mV2xNw5Lz9Rb4Tk7Pc1Y';

export const examType = z.enum(['exam', 'homework', 'assignment', 'quiz', 'project']).openapi({ example: 'quiz' });
export const examApp = z.enum(['learning', 'code']).openapi({ description: 'Which app delivers the exam.', example: 'learning' });
export const examStatus = z
  .enum(['draft', 'published', 'closed'])
  .openapi({ description: '`draft` → `published` → `closed` (a draft may also be closed directly).', example: 'published' });

const title = z.string().trim().min(1).max(300).openapi({ example: 'Mechanics – midterm' });
const description = z.string().max(10_000).openapi({ example: 'Chapters 1 to 4. Calculators allowed.' });
const maxScore = z.number().positive().max(1_000_000).nullable().openapi({ description: 'Highest score a grade may give; null: no limit.', example: 100 });
const dueDate = isoDateTime.nullable().openapi({ description: 'ISO 8601; stored and returned in UTC.', example: '2026-10-01T16:00:00.000Z' });
const timeLimit = z.number().int().min(1).max(1440).nullable().openapi({ description: 'Minutes from the start of an attempt; null: untimed.', example: 90 });

export const proctoringSchema = z
  .strictObject({ camera: z.boolean(), screen: z.boolean() })
  .partial()
  .openapi('Proctoring', { example: { camera: true, screen: true } });

export const aiPolicySchema = z
  .strictObject({
    allowed: z.boolean(),
    model_tier: z.string().min(1).max(50),
    max_interactions: z.number().int().min(0).max(100_000),
  })
  .partial()
  .openapi('AiPolicy', { example: { allowed: true, model_tier: 'standard', max_interactions: 20 } });

const facultyRef = z.string().max(320).nullable().openapi({
  description: 'Owning teacher: faculty id or login email. Missing or null: `422 no_owner`; unknown or suspended: `422 invalid_faculty`.',
  example: 'grace.hopper@riverside-high.campusbridge.local',
});

export const groupIds = z
  .array(z.string().min(1).max(40))
  .max(MAX_GROUP_IDS, `At most ${MAX_GROUP_IDS} group ids per call.`)
  .openapi({ description: 'Group ids of this institution; any other id is `422 validation_error` naming it.', example: [GROUP_ID] });

export const createExamBody = z
  .strictObject({
    // Optional here so a missing owner answers `no_owner`, as docs/api.md#exams requires, not `validation_error`.
    faculty_id: facultyRef.optional(),
    title,
    description: description.default(''),
    exam_type: examType.default('exam'),
    app: examApp.default('learning'),
    max_score: maxScore.optional(),
    due_date: dueDate.optional(),
    time_limit_minutes: timeLimit.optional(),
    proctoring: proctoringSchema.optional().openapi({ description: "Omitted: the institution's `default_proctoring`." }),
    ai_policy: aiPolicySchema.optional().openapi({ description: "Omitted: the institution's `default_ai_policy`." }),
    code_spec: codeSpecSchema.nullable().optional().openapi({
      description:
        'Coding exams only. File refs must be uploads of this exam, so on create only a spec without files passes; add them by PATCH after uploading.',
    }),
    publish: z.boolean().default(false).openapi({ description: 'Publish at once; assigned students are emailed.', example: true }),
    group_ids: groupIds.optional(),
  })
  .openapi('ExamCreate', {
    example: {
      faculty_id: 'grace.hopper@riverside-high.campusbridge.local',
      title: 'Mechanics – midterm',
      exam_type: 'exam',
      app: 'learning',
      max_score: 100,
      due_date: '2026-10-01T16:00:00.000Z',
      time_limit_minutes: 90,
      publish: true,
      group_ids: [GROUP_ID],
    },
  });

export const updateExamBody = z
  .strictObject({
    faculty_id: facultyRef
      .optional()
      .openapi({ description: 'Omit to keep the owner; null is `422 no_owner`; unknown or suspended is `422 invalid_faculty`.' }),
    title: title.optional(),
    description: description.optional(),
    exam_type: examType.optional(),
    app: examApp.optional(),
    max_score: maxScore.optional(),
    due_date: dueDate.optional(),
    time_limit_minutes: timeLimit.optional(),
    proctoring: proctoringSchema.optional().openapi({ description: 'Replaces the whole object.' }),
    ai_policy: aiPolicySchema.optional().openapi({ description: 'Replaces the whole object.' }),
    code_spec: codeSpecSchema.nullable().optional().openapi({ description: 'Replaces the whole object; null removes it.' }),
  })
  .openapi('ExamUpdate', {
    example: { due_date: '2026-10-08T16:00:00.000Z', code_spec: { toolchain: 'python-3.12', starter: 'file_9Wd3kP7xLq2Nz5Rb8Tm1Vc4Y' } },
  });

export const examSchema = z
  .object({
    id: z.string().openapi({ example: EXAM_ID }),
    faculty_id: z.string().openapi({ description: "The owning teacher's internal id.", example: FACULTY_ID }),
    title: z.string().openapi({ example: 'Mechanics – midterm' }),
    description: z.string().openapi({ example: 'Chapters 1 to 4. Calculators allowed.' }),
    exam_type: examType,
    app: examApp,
    status: examStatus,
    max_score: z.number().nullable().openapi({ example: 100 }),
    due_date: timestamp.nullable(),
    time_limit_minutes: z.number().int().nullable().openapi({ example: 90 }),
    proctoring: proctoringSchema,
    ai_policy: aiPolicySchema,
    code_spec: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'Coding exams only; null otherwise.', example: null }),
    published_at: timestamp.nullable(),
    closed_at: timestamp.nullable().openapi({ example: null }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Exam');

export const examGroupSchema = z
  .object({
    id: z.string().openapi({ example: GROUP_ID }),
    name: z.string().openapi({ example: 'Physics 101 – Section B' }),
    student_count: z.number().int().openapi({ example: 24 }),
  })
  .openapi('ExamGroup');

export const examStatsSchema = z
  .object({
    assigned_students: z.number().int().openapi({ description: 'Distinct students in the assigned groups.', example: 47 }),
    attempts: z.number().int().openapi({ description: 'Attempts started.', example: 45 }),
    submissions: z.number().int().openapi({ description: 'Submissions that are not voided.', example: 44 }),
    graded: z.number().int().openapi({ description: 'Submissions with status `graded`.', example: 30 }),
  })
  .openapi('ExamStats');

export const examArchiveSchema = z
  .object({
    ref: z.string().openapi({ example: 'file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y' }),
    kind: z.enum(['starter', 'sample_tests', 'hidden_tests']).openapi({ description: 'Which archive of the `code_spec` this is.' }),
    name: z.string().openapi({ example: 'starter.zip' }),
    size: z.number().int().openapi({ description: 'Bytes.', example: 48213 }),
    sha256: z
      .string()
      .openapi({ description: 'SHA-256 (hex) of the bytes the link serves.', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
    url: z.string().openapi({
      description: 'Signed download link (GET, no key needed) valid until `expires_at`. Read the exam again for a fresh one.',
      example: 'http://127.0.0.1:4780/v1/files/file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y?expires=1789380900&signature=5d41…',
    }),
    expires_at: timestamp.openapi({ description: 'At most 15 minutes after the read.' }),
  })
  .openapi('ExamArchive');

export const examArchives = z.array(examArchiveSchema).openapi({
  description:
    'The archives the `code_spec` names (starter, sample tests, encrypted hidden tests), in that order; empty for other exams. ' +
    'An upload the `code_spec` does not name is not listed.',
});

export const examDetailSchema = examSchema
  .extend({
    groups: z.array(examGroupSchema).openapi({ description: 'Assigned groups, in the order they were assigned.' }),
    stats: examStatsSchema,
    files: examArchives,
  })
  .openapi('ExamDetail');

export const examPage = pageOf(examSchema);

export const listExamsQuery = z.strictObject({
  app: examApp.optional(),
  status: examStatus.optional(),
  faculty_id: z
    .string()
    .min(1)
    .max(320)
    .optional()
    .openapi({ description: 'Only exams owned by this teacher: faculty id or login email. An unknown teacher gives an empty list.', example: FACULTY_ID }),
  exam_type: examType.optional(),
  q: z.string().max(300).optional().openapi({ description: 'Case-insensitive substring of the title.', example: 'midterm' }),
  updated_since: isoDateTime.optional().openapi({ description: 'Only exams whose `updated_at` is strictly later.', example: '2026-09-14T10:00:00.000Z' }),
  sort: sortQuery(['title', 'due_date', 'created_at'], 'oldest first'),
  ...pageQuery,
});

export const examParams = idParam('Exam id.', EXAM_ID);
export const examGroupParams = examParams.extend({
  groupId: z.string().min(1).max(40).openapi({ description: 'Group id.', example: GROUP_ID }),
});
export const examPageQuery = z.strictObject({ ...pageQuery });

export const deleteExamResponse = z.object({
  id: z.string().openapi({ example: EXAM_ID }),
  deleted: z.literal(true),
});
