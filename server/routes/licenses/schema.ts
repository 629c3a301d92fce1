import { sortQuery } from '../../validation/sort.js';
import { idParam, isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const LICENSE_EXAMPLE = 'lic_4Rt8kW2xMq9Pz3Lb7Tn1Vc5Y';
const SEAT_EXAMPLE = 'seat_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y';

export const licenseType = z.enum(['student', 'faculty']);
export const licenseStatus = z.enum(['active', 'expired', 'revoked']).openapi({
  description: 'Effective status: an `active` license whose `expires_at` has passed is `expired`, even before the expiry job has run.',
});
export const seatStatus = z.enum(['active', 'revoked']);

export const licenseSchema = z
  .object({
    id: z.string().openapi({ example: LICENSE_EXAMPLE }),
    user_id: z.string().openapi({ description: 'The student or faculty member holding the license.', example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y' }),
    type: licenseType,
    status: licenseStatus,
    starts_at: timestamp,
    expires_at: timestamp,
    revoked_at: timestamp.nullable().openapi({ example: null }),
  })
  .openapi('License');

export const licensePage = pageOf(licenseSchema);

export const listLicensesQuery = z.strictObject({
  user_id: z.string().min(1).max(320).optional().openapi({
    description: 'Holder: a student or faculty id, or their login email. An unknown holder gives an empty list.',
    example: 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y',
  }),
  status: licenseStatus.optional(),
  type: licenseType.optional(),
  expires_before: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({ description: 'Only licenses whose `expires_at` is strictly before this instant.', example: '2027-06-30T00:00:00.000Z' }),
  sort: sortQuery(['expires_at', 'starts_at', 'created_at'], 'oldest first'),
  ...pageQuery,
});

const statusCounts = z.object({ active: z.number().int(), expired: z.number().int(), revoked: z.number().int() });

export const licenseSummary = z
  .object({
    by_type: z.object({ student: statusCounts, faculty: statusCounts }),
    total: z.number().int(),
  })
  .openapi('LicenseSummary', {
    example: { by_type: { student: { active: 412, expired: 9, revoked: 3 }, faculty: { active: 38, expired: 1, revoked: 0 } }, total: 463 },
  });

export const licenseParams = idParam('License id.', LICENSE_EXAMPLE);

export const seatParams = z.strictObject({
  ...licenseParams.shape,
  seatId: z.string().min(1).max(320).openapi({ description: 'Device seat id, from GET /licenses/{id}/devices.', example: SEAT_EXAMPLE }),
});

export const revokeLicenseBody = z
  .strictObject({
    reason: z
      .string()
      .max(500)
      .optional()
      .openapi({ description: 'Kept with the license for the institution; never sent in events.', example: 'Left the school' }),
  })
  .openapi('LicenseRevoke');

export const extendLicenseBody = z
  .strictObject({
    expires_at: isoDateTime
      .transform((value) => new Date(value))
      .optional()
      .openapi({ description: 'The new expiry. With `days`, the days are added to it.', example: '2027-08-31T23:59:59.000Z' }),
    days: z.number().int().min(1).max(3650).optional().openapi({
      description: 'Days added to `expires_at` when given, else to the current expiry, or to now when the license has already expired.',
      example: 90,
    }),
  })
  .refine((body) => body.expires_at !== undefined || body.days !== undefined, { message: 'Give expires_at, days or both.' })
  .openapi('LicenseExtend');

export const seatSchema = z
  .object({
    seat_id: z.string().openapi({ example: SEAT_EXAMPLE }),
    app: z.enum(['learning', 'code']),
    device_name: z.string().nullable().openapi({ example: "Ada's Chromebook" }),
    activated_at: timestamp,
    last_seen_at: timestamp,
    status: seatStatus.openapi({ description: 'A revoked seat stays listed and no longer counts toward the 3 active seats.' }),
  })
  .openapi('DeviceSeat');

export const seatList = z.object({ items: z.array(seatSchema) });
