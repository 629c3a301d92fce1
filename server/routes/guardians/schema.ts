import { isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { normalizeEmail } from '../../validation/people.js';

export const guardianType = z.enum(['father', 'mother', 'guardian']);

const studentRef = z.string().trim().min(1).max(320).openapi({ description: 'Student id (`stu_…`) or login email.', example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' });

export const createGuardianBody = z
  .strictObject({
    student_id: studentRef,
    guardian_email: z
      .email()
      .max(320)
      .transform(normalizeEmail)
      .openapi({ description: 'Where the invitation is sent; stored lower-cased.', example: 'maria.lovelace@example.org' }),
    guardian_type: guardianType,
    guardian_name: z.string().trim().min(1).max(200).nullable().optional().openapi({ example: 'Maria Lovelace' }),
    guardian_phone: z.string().trim().min(1).max(50).nullable().optional().openapi({ example: '+44 20 7946 0018' }),
    is_primary: z
      .boolean()
      .default(false)
      .openapi({ description: "The student's primary guardian; making one primary makes the student's other guardians non-primary." }),
  })
  .openapi('GuardianCreate');

export const guardianSchema = z
  .object({
    id: z.string().openapi({ example: 'gdn_4Rt8nWq2Lx7Pz1Kb9Tm3Vc6Y' }),
    student_id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    guardian_email: z.string().openapi({ example: 'maria.lovelace@example.org' }),
    guardian_type: guardianType,
    guardian_name: z.string().nullable().openapi({ example: 'Maria Lovelace' }),
    guardian_phone: z.string().nullable().openapi({ example: '+44 20 7946 0018' }),
    is_primary: z.boolean(),
    verified: z.boolean().openapi({ description: 'True once the guardian opened the invitation link.' }),
    invited_at: timestamp.openapi({ description: 'When the current invitation was sent (a resend moves it).' }),
    verified_at: timestamp.nullable(),
  })
  .openapi('GuardianLink');

export const listGuardiansQuery = z.strictObject({
  student_id: z.string().max(320).optional().openapi({ description: 'Only links of this student (id or login email).' }),
  verified: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .openapi({ description: '`true`: accepted links only; `false`: invitations not yet accepted.' }),
  ...pageQuery,
});

export const guardianPage = pageOf(guardianSchema);
export const guardianList = z.object({ items: z.array(guardianSchema) });
export const guardianParams = z.strictObject({
  id: z.string().min(1).max(320).openapi({ description: 'Guardian link id.', example: 'gdn_4Rt8nWq2Lx7Pz1Kb9Tm3Vc6Y' }),
});
export const deletedGuardianSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .openapi({ example: { id: 'gdn_3Kq8mW2xLp7Rz1Nb9Tv4Yc6D', deleted: true } });

const day = z.string().openapi({ description: '`YYYY-MM-DD` (UTC).', example: '2026-09-07' });

const reportSubmission = z
  .object({
    exam_id: z.string().openapi({ example: 'exm_5Jd8mQ2xLw4Pz7Rb1Tn9Vc3Y' }),
    exam_title: z.string().openapi({ example: 'Fractions quiz' }),
    status: z.enum(['submitted', 'graded', 'resubmission_requested', 'voided']),
    score: z.number().nullable().openapi({ description: 'Null until graded.', example: 8 }),
    max_score: z.number().nullable().openapi({ example: 10 }),
    has_feedback: z.boolean().openapi({ description: 'Whether the teacher wrote feedback; the feedback itself is not in the report.' }),
    submitted_at: timestamp,
    graded_at: timestamp.nullable(),
  })
  .openapi('GuardianReportSubmission');

const reportUpcomingExam = z
  .object({
    exam_id: z.string().openapi({ example: 'exm_9Kd2mQ4xLw7Pz3Rb8Tn1Vc5Y' }),
    exam_title: z.string().openapi({ example: 'Algebra test' }),
    due_date: timestamp,
    max_score: z.number().nullable().openapi({ example: 20 }),
  })
  .openapi('GuardianReportUpcomingExam');

const reportAlpha = z
  .object({
    minutes: z.number().int().openapi({ description: 'Alpha Learning practice minutes on the days of the week (UTC).', example: 45 }),
    activities: z.number().int().openapi({ example: 9 }),
    points_earned: z.number().int().openapi({ description: 'Points earned during the week.', example: 60 }),
    points_total: z.number().int().openapi({ description: 'The balance at the end of the week.', example: 340 }),
    curricula: z.array(
      z.object({
        curriculum_id: z.string().openapi({ example: 'cur_3Hd9mQ4xLw7Pz2Rb8Tn1Vc5Y' }),
        name: z.string().openapi({ example: 'Arithmetic' }),
        concepts_total: z.number().int(),
        concepts_mastered: z.number().int(),
        average_mastery: z.number().nullable().openapi({ description: 'Mean mastery (0 to 1) over every concept; null without concepts.', example: 0.42 }),
      }),
    ),
  })
  .openapi('GuardianReportAlpha', { description: 'Mastery is as of when the report was made, per enrolled curriculum.' });

export const reportSummarySchema = z
  .object({
    student: z.object({ full_name: z.string().openapi({ example: 'Ada Lovelace' }), status: z.enum(['active', 'suspended']) }),
    week: z.object({ start: day, end: day }),
    license: z.object({ status: z.enum(['active', 'expired', 'revoked', 'none']), expires_at: timestamp.nullable() }),
    groups: z.array(z.string()).openapi({ description: "Names of the student's groups, A to Z.", example: ['Year 10 Maths'] }),
    activity: z.object({
      events: z.number().int().openapi({ description: 'Events of the week whose data names the student.', example: 3 }),
      by_type: z.record(z.string(), z.number().int()).openapi({ example: { 'submission.graded': 1, 'submission.created': 2 } }),
    }),
    submissions: z
      .array(reportSubmission)
      .openapi({ description: 'Submissions handed in or graded during the week, oldest first. Empty in reports made before this section existed.' }),
    upcoming_exams: z
      .array(reportUpcomingExam)
      .openapi({ description: "Published exams of the student's groups due within 7 days of the report, not yet handed in; soonest first." }),
    upcoming_window: z
      .object({ start: day, end: day })
      .nullable()
      .openapi({ description: 'The days `upcoming_exams` covers (from when the report was made). Null in reports made before it was stored.' }),
    alpha: reportAlpha.nullable().openapi({ description: 'Null in reports made before this section existed.' }),
    made_at: timestamp.nullable().openapi({ description: 'When the report was made. Null in reports made before it was stored.' }),
  })
  .openapi('GuardianReportSummary');

export const reportSchema = z
  .object({
    id: z.string().openapi({ example: 'rpt_2Hd9mQ4xLw7Pz3Rb8Tn1Vc5Y' }),
    student_id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    week_start: z.string().openapi({ description: 'Monday of the reported week (UTC), `YYYY-MM-DD`.', example: '2026-09-07' }),
    summary: reportSummarySchema.openapi({ description: 'What the mail to verified guardians said, as stored when the report was made.' }),
    created_at: timestamp,
  })
  .openapi('GuardianReport');

export const listReportsQuery = z.strictObject({
  student_id: z.string().max(320).optional().openapi({ description: 'Only reports of this student (id or login email).' }),
  since: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({ description: 'Only reports created at or after this instant.' }),
  ...pageQuery,
});

export const reportPage = pageOf(reportSchema);

export const reportPreviewSchema = z
  .object({
    week_start: z.string().openapi({ description: 'Monday of the week the report is about (UTC), `YYYY-MM-DD`.', example: '2026-09-07' }),
    subject: z.string().openapi({ example: 'Riverside High: weekly report for Ada (week of 2026-09-07)' }),
    text: z.string().openapi({ description: 'The plain-text part of the mail.' }),
    html: z.string().openapi({ description: 'The HTML part of the mail (every value escaped).' }),
    recipients: z
      .array(z.string())
      .openapi({ description: 'The verified guardians who would receive it; an unconfirmed invitation receives nothing.', example: ['parent@example.org'] }),
  })
  .openapi('GuardianReportPreview');
