import { sortQuery } from '../../validation/sort.js';
import { pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { studentStatus } from '../students/schema.js';

export const MAX_STUDENT_IDS = 1000;

const ref = (description: string, example: string) => z.string().min(1).max(320).openapi({ description, example });

const name = z.string().trim().min(1).max(200).openapi({ example: 'Physics 101 – Section B' });
const description = z.string().max(2000).openapi({ example: 'Tuesday and Thursday mornings, room 12.' });
const facultyRef = z.string().max(320).nullable().openapi({
  description: 'Owning teacher: faculty id or login email. Missing or null: `422 no_owner`; unknown or suspended: `422 invalid_faculty`.',
  example: 'grace.hopper@riverside-high.campusbridge.local',
});
const studentIds = z
  .array(z.string().min(1).max(320))
  .max(MAX_STUDENT_IDS, `At most ${MAX_STUDENT_IDS} student ids per call.`)
  .openapi({
    description:
      'Student ids or login emails. Those that are not students of this institution are skipped and returned in `rejected_student_ids`; a non-empty list with no valid id is `422 no_valid_students`.',
    example: ['stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y', 'alan.turing@riverside-high.campusbridge.local'],
  });
const rejectedStudentIds = z
  .array(z.string())
  .openapi({ description: 'The given ids that are not students of this institution, as sent; empty when none.', example: ['stu_doesNotExist'] });

export const createGroupBody = z
  .strictObject({
    name,
    description: description.default(''),
    // Optional here so a missing owner answers `no_owner`, as docs/api.md#groups requires, not `validation_error`.
    faculty_id: facultyRef.optional(),
    student_ids: studentIds.optional(),
  })
  .openapi('GroupCreate');

export const updateGroupBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    faculty_id: facultyRef
      .optional()
      .openapi({ description: 'Omit to keep the owner; null is `422 no_owner`; unknown or suspended is `422 invalid_faculty`.' }),
    student_ids: studentIds.optional().openapi({ description: 'Replaces the whole membership; `[]` empties the group. Same rule as on create.' }),
  })
  .openapi('GroupUpdate');

export const addMembersBody = z.strictObject({ student_ids: studentIds.min(1) }).openapi('GroupMembersAdd');

export const groupSchema = z
  .object({
    id: z.string().openapi({ example: 'grp_4Nc8kW2xRq7Lz1Pb9Tm3Vd6Y' }),
    name: z.string().openapi({ example: 'Physics 101 – Section B' }),
    description: z.string().openapi({ example: 'Tuesday and Thursday mornings, room 12.' }),
    faculty_id: z.string().openapi({ description: "The owning teacher's internal id.", example: 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y' }),
    student_count: z.number().int().openapi({ example: 24 }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Group');

export const groupMemberSchema = z
  .object({
    id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    full_name: z.string().openapi({ example: 'Ada Lovelace' }),
    status: studentStatus,
    added_at: timestamp,
  })
  .openapi('GroupMember');

// Exams assigned to the group arrive with the Exams area, which will pin this item's fields.
export const groupExamSchema = z
  .object({
    id: z.string().openapi({ example: 'exm_5Rt9pL3xKw8Qz2Nb7Vm4Yc1D' }),
    title: z.string().openapi({ example: 'Midterm: recursion' }),
    status: z.enum(['draft', 'published', 'closed']),
    app: z.enum(['learning', 'code']),
    due_date: timestamp.nullable(),
  })
  .openapi('GroupExam');

export const groupDetailSchema = groupSchema
  .extend({
    members: z.array(groupMemberSchema).openapi({ description: 'Ordered by `added_at`, oldest first.' }),
    exams: z.array(groupExamSchema).openapi({ description: 'Exams assigned to the group.' }),
  })
  .openapi('GroupDetail');

export const groupWriteResponse = groupSchema.extend({ rejected_student_ids: rejectedStudentIds }).openapi('GroupWriteResult');

export const addMembersResponse = groupSchema
  .extend({
    added: z.array(z.string()).openapi({ description: 'Internal ids of the students added by this call.', example: ['stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y'] }),
    rejected_student_ids: rejectedStudentIds,
  })
  .openapi('GroupMembersAdded');

export const deleteGroupResponse = z.object({
  id: z.string().openapi({ example: 'grp_4Nc8kW2xRq7Lz1Pb9Tm3Vd6Y' }),
  deleted: z.literal(true),
});

export const listGroupsQuery = z.strictObject({
  faculty_id: z.string().min(1).max(320).optional().openapi({
    description: 'Only groups owned by this teacher: faculty id or login email. An unknown teacher gives an empty list.',
    example: 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y',
  }),
  student_id: z.string().min(1).max(320).optional().openapi({
    description: 'Only groups this student is a member of: student id or login email. An unknown student gives an empty list.',
    example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y',
  }),
  q: z.string().max(200).optional().openapi({ description: 'Case-insensitive substring of the name.', example: 'physics' }),
  sort: sortQuery(['name', 'created_at'], 'oldest first'),
  ...pageQuery,
});

export const groupPage = pageOf(groupSchema);
export const groupParams = z.strictObject({ id: ref('Group id.', 'grp_4Nc8kW2xRq7Lz1Pb9Tm3Vd6Y') });
export const groupMemberParams = groupParams.extend({ studentId: ref('Student id or login email.', 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y') });
