import { readLtiOverview } from '../../commands/lti/overview.js';
import { addPlatform, linkResourceLink, removePlatform, updatePlatform } from '../../commands/lti/platforms.js';
import { createRegistrationUrl } from '../../commands/lti/registration.js';
import { listScorePosts, retryScorePost } from '../../commands/lti/scores.js';
import { rotateToolKey } from '../../commands/lti/tool-keys.js';
import { notFound } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentLtiOverview, presentPlatform, presentResourceLink, presentScorePost } from '../../presenters/lti.js';
import { z } from '../../validation/zod.js';
import { ltiMembersPortalRoutes } from './members.js';
import {
  institutionParams,
  linkResourceBody,
  linkSchema,
  ltiOverviewSchema,
  platformInput,
  platformParams,
  platformSchema,
  platformUpdate,
  postParams,
  scorePostSchema,
} from './schema.js';

/** The portal's LTI page (docs/lms.md#lti-13): the tool's side, the institution's platforms and links, and the score posts. */

const LTI_ROLES = ['admin'] as const;

export const ltiPortalRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/lti',
    operationId: 'getLti',
    tag: 'LTI',
    summary: "The tool's side to paste into the LMS (URLs on public_url, public key as JWK and PEM, Canvas JSON), the registered platforms and resource links",
    caller: 'member',
    roles: LTI_ROLES,
    params: institutionParams,
    response: ltiOverviewSchema,
    handler: async ({ ctx, access }) => presentLtiOverview(await readLtiOverview(ctx.db, access.tenant, await ctx.publicUrl())),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/lti/platforms',
    operationId: 'addLtiPlatform',
    tag: 'LTI',
    summary: 'Register an LMS as an LTI 1.3 platform: issuer, client id, deployment ids, its endpoints, and its key set URL or a pasted public key',
    caller: 'member',
    roles: LTI_ROLES,
    params: institutionParams,
    body: platformInput,
    response: platformSchema,
    errors: ['conflict'],
    handler: async ({ access, body }) => presentPlatform(await addPlatform(access.tenant, body)),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/lti/registrations',
    operationId: 'createLtiRegistrationUrl',
    tag: 'LTI',
    summary: 'A single-use LTI Dynamic Registration URL (valid an hour) to paste into an LMS that offers it; the LMS then registers itself',
    caller: 'member',
    roles: LTI_ROLES,
    params: institutionParams,
    response: z.object({ url: z.string(), expires_at: z.string() }),
    handler: async ({ ctx, access }) => createRegistrationUrl(ctx.db, access.tenant.institutionId, await ctx.publicUrl()),
  }),
  defineRoute({
    method: 'patch',
    path: '/institutions/{id}/lti/platforms/{platformId}',
    operationId: 'updateLtiPlatform',
    tag: 'LTI',
    summary:
      'Change a registered platform in place (name, deployments, endpoints, its keys, creating unknown users at launch), keeping its resource links, LMS subjects and score posts',
    caller: 'member',
    roles: LTI_ROLES,
    params: platformParams,
    body: platformUpdate,
    response: platformSchema,
    errors: ['not_found'],
    handler: async ({ access, params, body }) => presentPlatform(await updatePlatform(access.tenant, params.platformId, body)),
  }),
  defineRoute({
    method: 'delete',
    path: '/institutions/{id}/lti/platforms/{platformId}',
    operationId: 'removeLtiPlatform',
    tag: 'LTI',
    summary: 'Remove a platform with its resource links, LMS subjects and score posts',
    caller: 'member',
    roles: LTI_ROLES,
    params: platformParams,
    response: z.object({ removed: z.literal(true) }),
    errors: ['not_found'],
    handler: async ({ access, params }) => {
      await removePlatform(access.tenant, params.platformId);
      return { removed: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/lti/links',
    operationId: 'linkLtiResource',
    tag: 'LTI',
    summary: "Link a resource link of a platform (the LMS's resource_link id) to an exam, as `lti link`",
    caller: 'member',
    roles: LTI_ROLES,
    params: institutionParams,
    body: linkResourceBody,
    response: linkSchema,
    errors: ['not_found'],
    handler: async ({ access, body }) => presentResourceLink(await linkResourceLink(access.tenant, body.platform_id, body.resource_link_id, body.exam_id)),
  }),
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/lti/score-posts',
    operationId: 'listLtiScorePosts',
    tag: 'LTI',
    summary: 'The newest 100 grades sent (or to send) to LMS line items, with every attempt, like webhook deliveries',
    caller: 'member',
    roles: LTI_ROLES,
    params: institutionParams,
    response: z.object({ items: z.array(scorePostSchema) }),
    handler: async ({ access }) => ({ items: (await listScorePosts(access.tenant)).map(presentScorePost) }),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/lti/score-posts/{postId}/retry',
    operationId: 'retryLtiScorePost',
    tag: 'LTI',
    summary: 'Send a dead (or waiting) score post again now',
    caller: 'member',
    roles: LTI_ROLES,
    params: postParams,
    response: z.object({ queued: z.literal(true) }),
    errors: ['not_found'],
    handler: async ({ access, params }) => {
      if (!(await retryScorePost(access.tenant, params.postId))) throw notFound('score post');
      return { queued: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/operator/lti/rotate-key',
    operationId: 'rotateLtiToolKey',
    tag: 'LTI',
    summary: "A new signing key for the appliance's LTI tool (new kid); the old one stays in the key set for `grace_days` (default 7)",
    caller: 'operator',
    body: z.strictObject({ grace_days: z.number().min(0).max(365).optional() }),
    response: z.object({ kid: z.string(), retired: z.array(z.object({ kid: z.string(), drop_at: z.string() })) }),
    handler: async ({ ctx, body }) => rotateToolKey(ctx.db, body.grace_days === undefined ? undefined : Math.round(body.grace_days * 86400)),
  }),
  ...ltiMembersPortalRoutes,
];
