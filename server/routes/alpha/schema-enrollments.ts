import { pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { MAX_STUDENT_IDS } from '../groups/schema.js';
import { CURRICULUM_EXAMPLE, ENROLLMENT_EXAMPLE, FACULTY_EXAMPLE, STUDENT_EXAMPLE, enrollmentStatus, ref } from './schema.js';

export const dailyTarget = z.number().int().min(1).max(600).openapi({ description: 'Minutes a day, 1 to 600.', example: 30 });

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
