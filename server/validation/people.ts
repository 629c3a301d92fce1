import { z } from './zod.js';

/** Emails compare case-insensitively and without surrounding spaces; they are stored so. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Fields of a student as the API takes them; the students routes and the bulk command share them. */
export const fullName = z.string().trim().min(1).max(200).openapi({ example: 'Ada Lovelace' });
export const externalId = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .nullable()
  .openapi({ description: "The institution's own student identifier.", example: 'S-2026-0142' });
export const personalEmail = z
  .email()
  .max(320)
  .nullable()
  .openapi({ description: 'Guardian-facing personal email. Accepted, used for mail, never returned.', example: 'ada.family@example.org' });

export const studentStatus = z.enum(['active', 'suspended']);

export const createStudentBody = z
  .strictObject({
    full_name: fullName,
    student_id: externalId.optional(),
    personal_email: personalEmail.optional(),
    license_days: z.number().int().min(1).max(3650).default(365).openapi({ description: 'Length of the license granted, in days.', example: 365 }),
  })
  .openapi('StudentCreate');
