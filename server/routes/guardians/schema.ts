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

export const reportSchema = z
  .object({
    id: z.string().openapi({ example: 'rpt_2Hd9mQ4xLw7Pz3Rb8Tn1Vc5Y' }),
    student_id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    week_start: z.string().openapi({ description: 'Monday of the reported week (UTC), `YYYY-MM-DD`.', example: '2026-09-07' }),
    summary: z.record(z.string(), z.unknown()).openapi({
      description: 'What the appliance knows about the student that week.',
      example: {
        student: { full_name: 'Ada Lovelace', status: 'active' },
        week: { start: '2026-09-07', end: '2026-09-13' },
        license: { status: 'active', expires_at: '2027-09-07T10:00:00.000Z' },
        groups: ['Year 10 Maths'],
        activity: { events: 3, by_type: { 'group.updated': 1, 'guardian.verified': 1, 'student.updated': 1 } },
      },
    }),
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
