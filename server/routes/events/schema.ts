import { isEventPattern } from '../../webhooks/patterns.js';
import { isoDateTime, queryInt, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

export const listEventsQuery = z.strictObject({
  since: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({ description: 'Return events created strictly after this instant: pass the newest `created_at` you processed.' }),
  type: z
    .string()
    .max(120)
    .refine(isEventPattern, 'Use "*", a family such as "exam.*", or an exact type such as "exam.graded".')
    .optional()
    .openapi({ example: 'exam.*' }),
  limit: queryInt({ min: 1, max: 200, default: 50 }),
});

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_9Kd2mXq7Lw3Pz8Rb1Tn5Vc4Y' }),
    type: z.string().openapi({ example: 'exam.graded' }),
    created_at: timestamp,
    data: z.record(z.string(), z.unknown()).openapi({ example: { submission_id: 'sub_3Jx8', exam_id: 'exm_7Qa2', student_id: 'stu_1Lm4', score: 87 } }),
  })
  .openapi('Event');

export const listEventsResponse = z.object({
  items: z.array(eventSchema),
  has_more: z.boolean().openapi({ description: 'More events follow the last item: poll again with its `created_at`.' }),
});

export const eventTypesResponse = z.object({
  items: z.array(
    z.object({
      type: z.string().openapi({ example: 'student.created' }),
      description: z.string(),
      area: z.string().openapi({ description: 'The first segment, for patterns such as `student.*`.', example: 'student' }),
    }),
  ),
});
