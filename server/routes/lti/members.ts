import { findMembersLink, listMembersRuns, membersRunResult, syncContextMembers } from '../../commands/lti/nrps.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { LTI_NRPS_RUN_OUTCOMES, LTI_NRPS_RUN_TRIGGERS } from '../../models/lti-nrps.js';
import { readApplianceSetting } from '../../settings/appliance-settings.js';
import { z } from '../../validation/zod.js';

/**
 * An LTI link's class list (Names and Role Provisioning, docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms)
 * in the portal: a sync now (or a dry run), confirmed past the guard, and the link's runs. The admins', as the rest of the LTI page.
 */

const linkParams = z.strictObject({ id: z.string().min(1).max(40), link: z.string().min(1).max(255) });
const ROLES = ['admin'] as const;

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((value) => value === 'true');

const counts = z.object({ students: z.number().int(), faculty: z.number().int(), groups: z.number().int() });

export const membersRunSchema = z.object({
  run_id: z.string(),
  link_id: z.string(),
  group_id: z.string().nullable().openapi({ description: "The group kept equal to the course's learners (null when a dry run would make one)." }),
  kind: z.literal('full'),
  dry_run: z.boolean(),
  outcome: z.enum(LTI_NRPS_RUN_OUTCOMES),
  created: counts,
  updated: counts,
  suspended: counts,
  reactivated: z.object({ students: z.number().int(), faculty: z.number().int() }),
  memberships: z.object({ added: z.number().int(), removed: z.number().int() }),
  skipped: z.number().int(),
  matched: z.object({ subject: z.number().int(), email: z.number().int() }),
  members: z.number().int().openapi({ description: 'Members the LMS listed, every page.' }),
  pages: z.number().int(),
  held_back: z.boolean(),
  reason: z.string().nullable(),
  trigger: z.enum(LTI_NRPS_RUN_TRIGGERS),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});

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
    query: z.strictObject({ dry_run: flag, confirm: flag }),
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
