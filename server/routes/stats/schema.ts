import { queryInt, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

/** The longest window of the daily charts (a query per day): a month. */
export const MAX_STAT_DAYS = 31;
/** Months of license expiry shown: this one and the twelve after, so a year's license granted today is on the chart. */
export const EXPIRY_MONTHS = 13;

const institutionId = z.string().min(1).max(40).openapi({ description: 'Institution id.', example: 'ins_4Jd8sKq2Lm7Np3Rt9Vb1Xc6Z' });

export const institutionParams = z.strictObject({ id: institutionId });

export const endpointStatsParams = z.strictObject({
  id: institutionId,
  endpointId: z.string().min(1).max(320).openapi({ description: 'Webhook endpoint id.', example: 'whe_8Tq3mLx7Kw2Pz9Rb4Nc1Vd6Y' }),
});

export const daysQuery = z.strictObject({
  days: queryInt({ min: 1, max: MAX_STAT_DAYS, default: 7 }).openapi({
    description: `UTC days to count, today (so far) the last of them: 1 to ${MAX_STAT_DAYS}.`,
    example: 7,
  }),
});

const day = z.string().openapi({ description: 'A UTC day.', example: '2026-11-28' });
const count = z.number().int();
const window = {
  from: timestamp.openapi({ description: 'Start of the first day (UTC midnight).' }),
  to: timestamp.openapi({ description: 'End of the last day, exclusive: the next UTC midnight.' }),
};
const readable = (what: string) => count.nullable().openapi({ description: `${what}; null when the role may not read them.` });

const dayDeliveries = z.object({
  day,
  succeeded: count,
  failed: count.openapi({ description: 'Status `failed` (a retry is due) or `dead` (no retries left).' }),
});

export const overviewSchema = z
  .object({
    ...window,
    counts: z.object({
      students: readable('Students of every status (`students:read`)'),
      faculty: readable('Faculty members of every status (`faculty:read`)'),
      groups: readable('Groups (`groups:read`)'),
      active_licenses: readable('Licenses active now, not past their expiry (`licenses:read`)'),
    }),
    deliveries: z.array(dayDeliveries).nullable().openapi({
      description: 'Webhook deliveries made on each day, by their outcome so far; pending and delivering ones are not counted. Null without `webhooks:read`.',
    }),
    new_students: z.array(z.object({ day, count })).nullable().openapi({ description: 'Students created on each day. Null without `students:read`.' }),
  })
  .openapi('StatsOverview');

const endpointDay = {
  succeeded: count,
  failed: count.openapi({ description: 'Status `failed` (a retry is due) or `dead` (no retries left).' }),
  success_rate: z
    .number()
    .nullable()
    .openapi({ description: 'Percent of the finished deliveries that succeeded, one decimal; null when none finished.', example: 97.5 }),
  average_response_ms: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "Mean time the receiver took to answer each delivery's latest attempt, in ms; null when none was timed.", example: 182 }),
  max_response_ms: z.number().int().nullable().openapi({ description: 'The slowest of those answers, in ms.', example: 940 }),
};

export const endpointStatsSchema = z
  .object({
    endpoint_id: z.string(),
    ...window,
    days: z.array(z.object({ day, ...endpointDay })).openapi({ description: "The endpoint's deliveries made on each day, oldest day first." }),
    totals: z.object(endpointDay).openapi({ description: 'The same over the whole window.' }),
  })
  .openapi('WebhookEndpointStats');

const byType = { student: count, faculty: count };

export const licenseExpirySchema = z
  .object({
    from: timestamp.openapi({ description: 'Now: licenses past their expiry are not active.' }),
    to: timestamp.openapi({ description: 'Start of the month after the last one (UTC).' }),
    months: z
      .array(z.object({ month: z.string().openapi({ example: '2026-11' }), ...byType }))
      .openapi({ description: `Active licenses by the UTC month they expire in: this month and the ${EXPIRY_MONTHS - 1} after it.` }),
    later: z.object(byType).openapi({ description: 'Active licenses expiring after the last month.' }),
  })
  .openapi('LicenseExpiryStats');
