import { ensureSandbox, resetSandbox } from '../../commands/institutions/sandbox.js';
import { AppError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { z } from '../../validation/zod.js';
import { liveParams, sandboxSchema } from './schema.js';

/**
 * The portal's way into an institution's sandbox (docs/decisions/sandbox.md): its id, which the
 * portal then puts in `/portal/api/institutions/{institution}/…` in place of the live id, and its
 * reset. Both are called with the live institution's id; changes are audited like every portal change.
 */

function presentSandbox(row: InstitutionRow): z.input<typeof sandboxSchema> {
  return { id: row.id, name: row.name, sandbox_of: row.sandbox_of ?? '', environment: 'sandbox' };
}

/** The live institution of the access, never a sandbox (a sandbox has no sandbox). */
function liveId(institution: InstitutionRow): string {
  if (institution.sandbox_of) throw new AppError('not_found', 'No such institution.');
  return institution.id;
}

export const sandboxRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/sandbox',
    operationId: 'openSandbox',
    tag: 'Sandbox',
    summary: "The institution's sandbox, made on first need (approved, the live name and integration config, no data)",
    caller: 'member',
    roles: ['admin', 'developer'],
    params: liveParams,
    response: sandboxSchema,
    handler: async ({ access, ctx }) => presentSandbox(await ensureSandbox(ctx.db, liveId(access.institution))),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/sandbox/reset',
    operationId: 'resetSandbox',
    tag: 'Sandbox',
    summary: "Deletes every row of the sandbox's data (people, exams, endpoints, events, deliveries, mail…); its id and the sandbox keys stay",
    caller: 'member',
    roles: ['admin'],
    params: liveParams,
    response: sandboxSchema,
    handler: async ({ access, ctx }) => presentSandbox(await resetSandbox(ctx.db, ctx.config.dataDir, liveId(access.institution))),
  }),
];
