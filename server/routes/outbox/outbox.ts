import { listOutbox } from '../../commands/institutions/outbox.js';
import { presentOutboxPage } from '../../presenters/outbox.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { institutionParams, outboxPageSchema, outboxQuery } from './schema.js';

/** The mail outbox is the admins': developers get 403. */
const SETTINGS_ROLES = ['admin'] as const;

/**
 * The institution's mail outbox. The profile and integration config are the /v1 operations
 * themselves (`GET /institution`, `GET|PUT /institution/config`), mounted for portal sessions.
 */
export const outboxRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/outbox',
    operationId: 'listOutbox',
    tag: 'Outbox',
    summary: "The institution's mail, newest first: masked recipient, subject, kind, status (with why mail was dropped), attempts and the next try",
    caller: 'member',
    sandbox: true,
    roles: SETTINGS_ROLES,
    params: institutionParams,
    query: outboxQuery,
    response: outboxPageSchema,
    handler: async ({ ctx, access, query }) => presentOutboxPage(await listOutbox(ctx.db, access.tenant, query)),
  }),
];
