import { peopleSearch } from '../students/schema.js';
import { sortQuery } from '../../validation/sort.js';
import { idParam, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const fullName = z.string().trim().min(1).max(200).openapi({ example: 'Grace Hopper' });
const externalId = z.string().trim().min(1).max(100).nullable().openapi({ description: "The institution's own faculty identifier.", example: 'F-017' });
export const facultyStatus = z.enum(['active', 'suspended']);

export const createFacultyBody = z
  .strictObject({
    full_name: fullName,
    faculty_id: externalId.optional(),
    license_days: z.number().int().min(1).max(3650).default(365).openapi({ example: 365 }),
  })
  .openapi('FacultyCreate');

export const updateFacultyBody = z
  .strictObject({
    full_name: fullName.optional(),
    faculty_id: externalId.optional(),
    status: facultyStatus.optional().openapi({ description: 'The only way to suspend or reactivate a faculty member.' }),
  })
  .openapi('FacultyUpdate');

export const facultySchema = z
  .object({
    id: z.string().openapi({ example: 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y' }),
    login_email: z.string().openapi({ example: 'grace.hopper@riverside-high.campusbridge.local' }),
    full_name: z.string().openapi({ example: 'Grace Hopper' }),
    faculty_id: z.string().nullable().openapi({ example: 'F-017' }),
    status: facultyStatus,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Faculty');

export const listFacultyQuery = z.strictObject({
  q: peopleSearch('faculty ID'),
  email: z.string().max(320).optional().openapi({ description: 'Login email, case-insensitive, exact.' }),
  status: facultyStatus.optional(),
  sort: sortQuery(['full_name', 'faculty_id', 'created_at'], 'oldest first'),
  ...pageQuery,
});

export const facultyPage = pageOf(facultySchema);
export const facultyParams = idParam('Faculty id or login email.', 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y');
