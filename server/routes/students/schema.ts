import { sortQuery } from '../../validation/sort.js';
import { idParam, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { MAX_QUERY_LENGTH, searchPatterns } from '../../db/search-text.js';
import { createStudentBody, externalId, fullName, personalEmail, studentStatus } from '../../validation/people.js';
import { z } from '../../validation/zod.js';

export { createStudentBody, studentStatus };

export const updateStudentBody = z
  .strictObject({
    full_name: fullName.optional(),
    student_id: externalId.optional(),
    status: studentStatus.optional(),
    personal_email: personalEmail.optional(),
  })
  .openapi('StudentUpdate');

export const MAX_BULK = 200;

export const bulkStudentsBody = z.strictObject({
  students: z
    .array(z.unknown())
    .min(1)
    .max(MAX_BULK, `At most ${MAX_BULK} students per call.`)
    .openapi({
      description: `1 to ${MAX_BULK} student objects, each as for POST /students. Each item succeeds or fails on its own.`,
      example: [
        { full_name: 'Ada Lovelace', student_id: 'S-1' },
        { full_name: 'Alan Turing', student_id: 'S-2', license_days: 180 },
      ],
    }),
});

export const studentSchema = z
  .object({
    id: z.string().openapi({ example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    full_name: z.string().openapi({ example: 'Ada Lovelace' }),
    student_id: z.string().nullable().openapi({ example: 'S-2026-0142' }),
    status: studentStatus,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Student');

export const bulkStudentsResponse = z
  .object({
    results: z.array(
      z.union([
        z.object({ index: z.number().int(), id: z.string(), login_email: z.string() }),
        z.object({ index: z.number().int(), error: z.string(), message: z.string() }),
      ]),
    ),
    created: z.number().int(),
    failed: z.number().int(),
  })
  .openapi({
    example: {
      results: [
        { index: 0, id: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y', login_email: 'ada.lovelace@riverside-high.campusbridge.local' },
        { index: 1, error: 'conflict', message: 'Another student already has student_id "S-2".' },
      ],
      created: 1,
      failed: 1,
    },
  });

/** `q` on the people lists, students' and faculty's (docs/api.md#finding-people; server/db/search-text.ts says how it matches). */
export const peopleSearch = (idName: string) =>
  z
    .string()
    .max(MAX_QUERY_LENGTH)
    .refine((query) => searchPatterns(query).indexed.length > 0, { message: `Type at least 2 letters or digits of a name, ${idName} or login e-mail.` })
    .optional()
    .openapi({
      description:
        `Part of the full name, the ${idName} or the login e-mail, whatever its case and accents ("sorens" and "SØR" both find "Ingrid Sørensen"). ` +
        'Each word must match: a word of 3 characters or more anywhere, a shorter one at the start of a word. Combines with the other filters and with `sort`.',
      example: 'sorens',
    });

export const listStudentsQuery = z.strictObject({
  q: peopleSearch('student ID'),
  email: z.string().max(320).optional().openapi({ description: 'Login email or personal email, case-insensitive, exact.' }),
  status: studentStatus.optional(),
  student_id: z.string().max(100).optional().openapi({ description: "The institution's own student identifier." }),
  group_id: z.string().max(40).optional().openapi({ description: 'Only members of this group.' }),
  sort: sortQuery(['full_name', 'student_id', 'created_at'], 'oldest first'),
  ...pageQuery,
});

export const studentPage = pageOf(studentSchema);
export const studentParams = idParam('Student id or login email.', 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y');
