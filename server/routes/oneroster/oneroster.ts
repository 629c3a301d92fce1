import { findConnection, removeConnection, saveConnection, testConnection } from '../../commands/oneroster/connections.js';
import fs from 'node:fs';
import { CSV_ZIP_LIMITS } from '../../commands/oneroster/csv.js';
import { importRosterCsv, listRuns, syncRoster } from '../../commands/oneroster/sync.js';
import { validationError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentConnection, presentRun } from '../../presenters/oneroster.js';
import { z } from '../../validation/zod.js';
import {
  connectionBody,
  connectionSchema,
  connectionTestBody,
  importQuery,
  institutionParams,
  onerosterStateSchema,
  syncBody,
  syncResultSchema,
} from './schema.js';

/**
 * The institution's OneRoster connection in the portal (docs/lms.md#oneroster): its settings (the
 * client secret write-only), a connection test, a dry run, a sync (confirmed past the guard), and
 * every run's outcome. The admins': the roster is the institution's people.
 */

const ROLES = ['admin'] as const;

export const onerosterRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/oneroster',
    operationId: 'getOneRoster',
    tag: 'OneRoster',
    summary: 'The OneRoster connection (null when there is none) and the newest 50 sync runs with their outcomes',
    caller: 'member',
    roles: ROLES,
    params: institutionParams,
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
    params: institutionParams,
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
    params: institutionParams,
    response: z.object({ deleted: z.literal(true) }),
    handler: async ({ access }) => removeConnection(access.tenant),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/test',
    operationId: 'testOneRoster',
    tag: 'OneRoster',
    summary: 'Asks the SIS for a token and for its users, changing nothing; says what worked or what failed',
    description:
      'Tests the stored connection, or the values sent (before they are saved). A SIS that refuses or cannot be reached is `ok: false` with its words.',
    caller: 'member',
    roles: ROLES,
    params: institutionParams,
    body: connectionTestBody,
    response: z.object({ ok: z.boolean(), message: z.string() }),
    handler: async ({ access, ctx, body }) => testConnection(ctx.db, ctx.config, access.tenant, body),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/oneroster/sync',
    operationId: 'syncOneRoster',
    tag: 'OneRoster',
    summary: 'A sync now (or a dry run): the run with what it created, updated and suspended; held back past the guard unless confirmed',
    caller: 'member',
    roles: ROLES,
    params: institutionParams,
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
    params: institutionParams,
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
