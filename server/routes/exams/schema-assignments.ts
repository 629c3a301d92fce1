import { timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { EXAM_ID, GROUP_ID, groupIds } from './schema.js';

export const assignmentSchema = z
  .object({
    group_id: z.string().openapi({ example: GROUP_ID }),
    name: z.string().openapi({ example: 'Physics 101 – Section B' }),
    student_count: z.number().int().openapi({ example: 24 }),
    assigned_at: timestamp,
  })
  .openapi('ExamAssignment');

export const assignmentList = z.object({ items: z.array(assignmentSchema).openapi({ description: 'Oldest assignment first.' }) });

export const assignBody = z.strictObject({ group_ids: groupIds.min(1) }).openapi('ExamAssign');

export const assignResponse = z
  .object({
    items: z.array(assignmentSchema).openapi({ description: 'Every group now assigned, oldest assignment first.' }),
    assigned: z
      .array(z.string())
      .openapi({ description: 'Group ids this call newly assigned; those already assigned are left as they were.', example: [GROUP_ID] }),
  })
  .openapi('ExamAssignResult');

export const unassignResponse = z.object({
  exam_id: z.string().openapi({ example: EXAM_ID }),
  group_id: z.string().openapi({ example: GROUP_ID }),
  deleted: z.literal(true),
});
