import { lastMembersRuns, membersRunResult } from '../../commands/lti/nrps.js';
import { addPlatform, linkResourceLink, listPlatforms, listResourceLinks, removePlatform, updatePlatform } from '../../commands/lti/platforms.js';
import { createRegistrationUrl } from '../../commands/lti/registration.js';
import { listScorePosts, retryScorePost } from '../../commands/lti/scores.js';
import { toolConfig } from '../../commands/lti/tool-config.js';
import { rotateToolKey } from '../../commands/lti/tool-keys.js';
import { notFound } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentPlatform, presentResourceLink, presentScorePost } from '../../presenters/lti.js';
import { z } from '../../validation/zod.js';
import { ltiMembersPortalRoutes, membersRunSchema } from './members.js';

/** The portal's LTI page (docs/lms.md#lti-13): the tool's side, the institution's platforms and links, and the score posts. */

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const platformParams = z.strictObject({ id: z.string().min(1).max(40), platformId: z.string().min(1).max(40) });
const postParams = z.strictObject({ id: z.string().min(1).max(40), postId: z.string().min(1).max(40) });

const LTI_ROLES = ['admin'] as const;

const url = z.string().trim().min(1).max(2048);

export const platformInput = z.strictObject({
  name: z.string().trim().max(200).optional(),
  issuer: url,
  client_id: z.string().trim().min(1).max(255),
  deployment_ids: z.array(z.string().trim().min(1).max(255)).min(1).max(50),
  auth_url: url,
  token_url: url,
  jwks_url: url.nullable().optional(),
  public_key: z.string().max(20_000).nullable().optional().openapi({ description: 'PEM (SPKI) or one JWK as JSON; instead of `jwks_url`.' }),
  provision_users: z
    .boolean()
    .optional()
    .openapi({ description: 'A launch by an unknown user creates them (Learner → student, Instructor → faculty); default false: `user_not_found`.' }),
  frame_origins: z.array(z.string().trim().min(1).max(2048)).max(20).optional().openapi({
    description:
      "Origins (`https://host[:port]`) that may frame CampusBridge's pages besides the issuer's and the sign-in URL's: Canvas frames tools from the school's own host. Default none.",
  }),
});

/** A change to a registered platform: anything but its issuer and client id, which are what it is. */
export const platformUpdate = platformInput.omit({ issuer: true, client_id: true }).partial();

export const platformSchema = z.object({
  id: z.string(),
  name: z.string(),
  issuer: z.string(),
  client_id: z.string(),
  deployment_ids: z.array(z.string()),
  auth_url: z.string(),
  token_url: z.string(),
  jwks_url: z.string().nullable(),
  has_public_key: z.boolean(),
  provision_users: z.boolean(),
  frame_origins: z
    .array(z.string())
    .openapi({ description: "Every origin that may frame the tool for this platform: the issuer's, the sign-in URL's and the listed ones." }),
  listed_frame_origins: z.array(z.string()),
  created_at: z.string(),
});

const linkSchema = z.object({
  id: z.string(),
  platform_id: z.string(),
  resource_link_id: z.string(),
  exam_id: z.string().nullable(),
  title: z.string().nullable(),
  line_item_url: z.string().nullable(),
  has_class_list: z.boolean().openapi({ description: "The LMS offered the course's class list (NRPS) at an instructor's launch: `members/sync` can read it." }),
  members_group_id: z.string().nullable(),
  created_at: z.string(),
});

/** A link in the overview, with its newest class list sync. */
const overviewLinkSchema = linkSchema.extend({ last_members_sync: membersRunSchema.nullable() });

export const ltiOverviewSchema = z.object({
  tool: z.object({
    login_url: z.string(),
    launch_url: z.string(),
    redirect_urls: z.array(z.string()),
    jwks_url: z.string(),
    deep_linking_url: z.string(),
    public_jwk: z.record(z.string(), z.unknown()),
    public_key_pem: z.string(),
    canvas_config: z.record(z.string(), z.unknown()),
  }),
  platforms: z.array(platformSchema),
  links: z.array(overviewLinkSchema),
});

export const scorePostSchema = z.object({
  id: z.string(),
  platform_id: z.string(),
  submission_id: z.string(),
  line_item_url: z.string(),
  payload: z.record(z.string(), z.unknown()),
  status: z.enum(['pending', 'delivering', 'succeeded', 'dead']),
  attempt_count: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  attempts: z.array(
    z.object({ at: z.string(), response_status: z.number().int().nullable(), response_body: z.string().nullable(), error: z.string().nullable() }),
  ),
});

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
    handler: async ({ ctx, access }) => {
      const [tool, platforms, links] = await Promise.all([
        toolConfig(ctx.db, access.tenant, await ctx.publicUrl()),
        listPlatforms(access.tenant),
        listResourceLinks(access.tenant),
      ]);
      const lastSyncs = await lastMembersRuns(
        access.tenant,
        links.map((link) => link.id),
      );
      return {
        tool: { ...tool, public_jwk: { ...tool.public_jwk } },
        platforms: platforms.map(presentPlatform),
        links: links.map((link) => {
          const last = lastSyncs.get(link.id);
          return { ...presentResourceLink(link), last_members_sync: last ? membersRunResult(last) : null };
        }),
      };
    },
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
    body: z.strictObject({
      platform_id: z.string().min(1).max(40),
      resource_link_id: z.string().trim().min(1).max(255),
      exam_id: z.string().min(1).max(40),
    }),
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
