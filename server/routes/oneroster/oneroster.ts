import { findConnection, removeConnection, saveConnection, testConnection } from '../../commands/oneroster/connections.js';
import fs from 'node:fs';
import { CSV_ZIP_LIMITS } from '../../commands/oneroster/csv.js';
import { importRosterCsv, listRuns, runResult, syncRoster } from '../../commands/oneroster/sync.js';
import { validationError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import {
  ONEROSTER_AUTH_METHODS,
  ONEROSTER_RUN_OUTCOMES,
  ONEROSTER_RUN_TRIGGERS,
  ONEROSTER_SOURCES,
  ONEROSTER_VERSIONS,
  type OneRosterConnectionRow,
  type OneRosterRunRow,
} from '../../models/oneroster.js';
import { iso } from '../../presenters/common.js';
import { z } from '../../validation/zod.js';

/**
 * The institution's OneRoster connection in the portal (docs/lms.md#oneroster): its settings (the
 * client secret write-only), a connection test, a dry run, a sync (confirmed past the guard), and
 * every run's outcome. The admins': the roster is the institution's people.
 */

const params = z.strictObject({ id: z.string().min(1).max(40) });
const ROLES = ['admin'] as const;

const share = z.number().min(0).max(1);

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

const counts = z.object({ students: z.number().int(), faculty: z.number().int(), groups: z.number().int() });

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

export const runSchema = syncResultSchema.extend({
  trigger: z.enum(ONEROSTER_RUN_TRIGGERS).openapi({ description: '`portal_csv` and `cli_csv`: a CSV zip imported.' }),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});

export const onerosterStateSchema = z.object({ connection: connectionSchema.nullable(), runs: z.array(runSchema) });

const connectionBody = z.strictObject({
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

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((value) => value === 'true');
const importQuery = z.strictObject({ dry_run: flag, confirm: flag });

const syncBody = z.strictObject({
  dry_run: z.boolean().default(false),
  confirm: z.boolean().default(false),
  full: z.boolean().default(false),
});

export function presentConnection(row: OneRosterConnectionRow): z.input<typeof connectionSchema> {
  return {
    id: row.id,
    source: row.source,
    url: row.url,
    version: row.version,
    token_url: row.token_url,
    client_id: row.client_id,
    client_secret_set: row.client_secret_sealed.length > 0,
    auth_method: row.auth_method,
    scopes: row.scopes,
    class_share: row.class_share,
    class_minimum: row.class_minimum,
    school_share: row.school_share,
    schedule_hours: row.schedule_hours,
    delta_watermark: row.delta_watermark,
    last_full_sync_at: iso(row.last_full_sync_at),
    gradebook_writeback: row.gradebook_writeback,
  };
}

function presentRun(row: OneRosterRunRow): z.input<typeof runSchema> {
  return { ...runResult(row), trigger: row.trigger, started_at: row.started_at.toISOString(), finished_at: iso(row.finished_at) };
}

export const onerosterRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/oneroster',
    operationId: 'getOneRoster',
    tag: 'OneRoster',
    summary: 'The OneRoster connection (null when there is none) and the newest 50 sync runs with their outcomes',
    caller: 'member',
    roles: ROLES,
    params,
    response: onerosterStateSchema,
    handler: async ({ access }) => {
      const connection = await findConnection(access.tenant);
      return { connection: connection ? presentConnection(connection) : null, runs: (await listRuns(access.tenant, 50)).map(presentRun) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/institutions/{id}/oneroster',
    operationId: 'saveOneRoster',
    tag: 'OneRoster',
    summary: "Connects the institution to its SIS's OneRoster service, or changes the connection (the secret is write-only)",
    caller: 'member',
    roles: ROLES,
    params,
    body: connectionBody,
    response: connectionSchema,
    handler: async ({ access, body }) => presentConnection(await saveConnection(access.tenant, body)),
  }),
  defineRoute({
    method: 'delete',
    path: '/institutions/{id}/oneroster',
    operationId: 'removeOneRoster',
    tag: 'OneRoster',
    summary: 'Disconnects the SIS: the connection, its sourcedId links and its runs go; the people and groups it made stay',
    caller: 'member',
    roles: ROLES,
    params,
    response: z.object({ deleted: z.literal(true) }),
    handler: async ({ access }) => removeConnection(access.tenant),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/test',
    operationId: 'testOneRoster',
    tag: 'OneRoster',
    summary: 'Asks the SIS for a token and for its users, changing nothing; says what worked or what failed',
    caller: 'member',
    roles: ROLES,
    params,
    response: z.object({ ok: z.boolean(), message: z.string() }),
    handler: async ({ access, ctx }) => testConnection(ctx.db, ctx.config, access.tenant),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/sync',
    operationId: 'syncOneRoster',
    tag: 'OneRoster',
    summary: 'A sync now (or a dry run): the run with what it created, updated and suspended; held back past the guard unless confirmed',
    caller: 'member',
    roles: ROLES,
    params,
    body: syncBody,
    response: syncResultSchema,
    handler: async ({ access, ctx, body }) =>
      syncRoster(ctx.db, ctx.config, access.tenant.institutionId, { trigger: 'portal', dryRun: body.dry_run, confirm: body.confirm, full: body.full }),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/import',
    operationId: 'importOneRosterCsv',
    tag: 'OneRoster',
    summary: 'Import a OneRoster CSV zip (or a dry run): the run, as a sync answers it; held back past the guard unless confirmed',
    description:
      'Multipart, one field `file`: the zip the SIS exported (`manifest.csv`, `users.csv`, …; OneRoster 1.1 or 1.2, bulk or delta). ' +
      'An unreadable row is `422 validation_error` naming its file and line, and nothing is changed. Makes a connection of `source` `csv` when the institution has none.',
    caller: 'member',
    roles: ROLES,
    params,
    query: importQuery,
    upload: { maxBytes: CSV_ZIP_LIMITS.zipBytes },
    response: syncResultSchema,
    handler: async ({ access, ctx, query, file }) => {
      if (!file) throw validationError([{ path: 'file', message: 'Required: the OneRoster CSV zip.' }]);
      const zip = new Uint8Array(await fs.promises.readFile(file.path));
      return importRosterCsv(ctx.db, access.tenant.institutionId, zip, { trigger: 'portal_csv', dryRun: query.dry_run, confirm: query.confirm });
    },
  }),
];
