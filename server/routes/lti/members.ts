import { findMembersLink, listMembersRuns, membersRunResult, syncContextMembers } from '../../commands/lti/nrps.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import { z } from '../../validation/zod.js';
import { linkParams, membersRunSchema, membersSyncQuery } from './schema.js';

/**
 * An LTI link's class list (Names and Role Provisioning, docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms)
 * in the portal: a sync now (or a dry run), confirmed past the guard, and the link's runs. The admins', as the rest of the LTI page.
 */

const ROLES = ['admin'] as const;

export const ltiMembersPortalRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/lti/links/{link}/members/sync',
    operationId: 'syncLtiClassList',
    tag: 'LTI',
    summary:
      "Read the link's course members from the LMS (NRPS 2.0) and make the exam's group match (or a dry run); held back past the guard unless confirmed. `link`: the link's id or the LMS's resource link id",
    caller: 'member',
    roles: ROLES,
    params: linkParams,
    query: membersSyncQuery,
    response: membersRunSchema,
    errors: ['not_found', 'conflict', 'nrps_not_offered'],
    handler: async ({ ctx, access, params, query }) => {
      const rules = { privateHosts: await readApplianceSetting(ctx.db, ctx.config, 'outbound_private_hosts'), timeoutMs: ctx.config.webhooks.timeoutMs };
      return syncContextMembers(ctx.db, access.tenant.institutionId, params.link, { trigger: 'portal', dryRun: query.dry_run, confirm: query.confirm, rules });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/lti/links/{link}/members/runs',
    operationId: 'listLtiClassListRuns',
    tag: 'LTI',
    summary: "The link's newest 20 class list syncs (launch, command line, portal) with their outcomes and counts",
    caller: 'member',
    roles: ROLES,
    params: linkParams,
    response: z.object({ items: z.array(membersRunSchema) }),
    errors: ['not_found'],
    handler: async ({ access, params }) => {
      const link = await findMembersLink(access.tenant, params.link);
      return { items: (await listMembersRuns(access.tenant, link.id)).map(membersRunResult) };
    },
  }),
];
