import { ONEROSTER_AUTH_METHODS, ONEROSTER_RUN_OUTCOMES, ONEROSTER_RUN_TRIGGERS, ONEROSTER_SOURCES, ONEROSTER_VERSIONS } from '../../models/oneroster.js';
import { GRADEBOOK_STEPS } from '../../models/oneroster-gradebook.js';
import { z } from '../../validation/zod.js';

/** The institution whose connection this is. */
export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

/** A share of the roster, 0 to 1, for the guard. */
const share = z.number().min(0).max(1);

/** The connection's settings as the portal shows them: the client secret is write-only. */
export const connectionSchema = z.object({
  id: z.string(),
  source: z
    .enum(ONEROSTER_SOURCES)
    .openapi({ description: "`csv`: made by a CSV import, with no URL or credentials (empty strings); `rest`: the SIS's REST API." }),
  url: z.string(),
  version: z.enum(ONEROSTER_VERSIONS),
  token_url: z.string(),
  client_id: z.string(),
  /** The secret itself is never shown: only that one is stored. */
  client_secret_set: z.boolean(),
  auth_method: z.enum(ONEROSTER_AUTH_METHODS),
  scopes: z.string(),
  class_share: share,
  class_minimum: z.number().int(),
  school_share: share,
  schedule_hours: z.number().int().nullable(),
  delta_watermark: z
    .string()
    .nullable()
    .openapi({ description: 'The newest dateLastModified an applied sync saw; the next delta asks for what changed after it.' }),
  last_full_sync_at: z.string().nullable(),
  gradebook_writeback: z.boolean().openapi({
    description: "Grades go back to the SIS's gradebook (OneRoster 1.2 line items and results, `PUT`); off by default, REST 1.2 connections only.",
  }),
});

/** People and groups a run touched, by kind. */
const counts = z.object({ students: z.number().int(), faculty: z.number().int(), groups: z.number().int() });

/** What a sync, a dry run or an import did, or would do; held back past the guard unless confirmed. */
export const syncResultSchema = z.object({
  run_id: z.string(),
  kind: z.enum(['full', 'delta']),
  dry_run: z.boolean(),
  outcome: z.enum(ONEROSTER_RUN_OUTCOMES),
  created: counts,
  updated: counts,
  suspended: counts,
  reactivated: z.object({ students: z.number().int(), faculty: z.number().int() }),
  memberships: z.object({ added: z.number().int(), removed: z.number().int() }),
  skipped: z.number().int(),
  held_back: z.boolean(),
  reason: z.string().nullable(),
});

/** A past run, with what started it and when. */
export const runSchema = syncResultSchema.extend({
  trigger: z.enum(ONEROSTER_RUN_TRIGGERS).openapi({ description: '`portal_csv` and `cli_csv`: a CSV zip imported.' }),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});

/** The OneRoster page: the connection (null when there is none) and the newest runs. */
export const onerosterStateSchema = z.object({ connection: connectionSchema.nullable(), runs: z.array(runSchema) });

/** A new connection, or a change to it; the secret is required only when connecting. */
export const connectionBody = z.strictObject({
  url: z.string().min(1).max(500),
  version: z.enum(ONEROSTER_VERSIONS).default('1.2'),
  token_url: z.string().max(500).nullable().optional(),
  client_id: z.string().min(1).max(300),
  client_secret: z.string().min(1).max(1000).optional().openapi({ description: 'Required when connecting; absent keeps the stored secret.' }),
  auth_method: z.enum(ONEROSTER_AUTH_METHODS).default('basic'),
  scopes: z.string().max(1000).nullable().optional(),
  class_share: share.optional(),
  class_minimum: z.number().int().min(1).max(1000).optional(),
  school_share: share.optional(),
  schedule_hours: z
    .number()
    .int()
    .min(1)
    .max(24 * 7)
    .nullable()
    .optional(),
  gradebook_writeback: z
    .boolean()
    .optional()
    .openapi({ description: 'Send grades to the SIS gradebook (OneRoster 1.2 only: 1.1 is refused with 422); absent keeps the stored choice.' }),
});

/**
 * A connection test: empty tests the stored connection; with `url` and `client_id` it tests
 * those values before they are saved (an absent secret is the stored one). Nothing is stored.
 */
export const connectionTestBody = z
  .strictObject({
    url: connectionBody.shape.url.optional(),
    version: z.enum(ONEROSTER_VERSIONS).optional(),
    token_url: connectionBody.shape.token_url,
    client_id: connectionBody.shape.client_id.optional(),
    client_secret: connectionBody.shape.client_secret,
    auth_method: z.enum(ONEROSTER_AUTH_METHODS).optional(),
    scopes: connectionBody.shape.scopes,
  })
  .openapi({ description: 'Empty: test the stored connection. With `url` and `client_id`: test these values before saving them (no secret: the stored one).' });

/** A `true`/`false` query flag, false when absent. */
const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((value) => value === 'true');

/** A CSV import's dry run and confirmation past the guard. */
export const importQuery = z.strictObject({ dry_run: flag, confirm: flag });

/** A sync's dry run, confirmation past the guard, and whether to read everything rather than the changes. */
export const syncBody = z.strictObject({
  dry_run: z.boolean().default(false),
  confirm: z.boolean().default(false),
  full: z.boolean().default(false),
});

/** One gradebook post of an institution. */
export const postParams = z.strictObject({ id: z.string().min(1).max(40), postId: z.string().min(1).max(40) });

/** A result sent (or to send) to the SIS's gradebook, with every attempt. */
export const gradebookPostSchema = z.object({
  id: z.string(),
  submission_id: z.string(),
  exam_id: z.string(),
  student_id: z.string(),
  line_item_sourced_id: z.string(),
  result_sourced_id: z.string(),
  payload: z.record(z.string(), z.unknown()).openapi({ description: 'The `result` exactly as `PUT` to `/ims/oneroster/gradebook/v1p2/results/{sourcedId}`.' }),
  status: z
    .enum(['pending', 'delivering', 'succeeded', 'dead', 'superseded'])
    .openapi({ description: '`superseded`: a newer grade of the same result was queued before this one went; it is never sent.' }),
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  attempts: z.array(
    z.object({
      at: z.string(),
      step: z.enum(GRADEBOOK_STEPS).openapi({ description: 'The request the attempt ended on: a result needs its category and line item first.' }),
      response_status: z.number().int().nullable(),
      response_body: z.string().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
