import { LTI_NRPS_RUN_OUTCOMES, LTI_NRPS_RUN_TRIGGERS } from '../../models/lti-nrps.js';
import { z } from '../../validation/zod.js';

// ---------------------------------------------------------------------------------------------
// Class lists (members.ts)
// ---------------------------------------------------------------------------------------------

/** An LTI link of an institution: its id or the LMS's resource link id. */
export const linkParams = z.strictObject({ id: z.string().min(1).max(40), link: z.string().min(1).max(255) });

/** A `true`/`false` query flag, false when absent. */
const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((value) => value === 'true');

/** People and groups a class list sync touched, by kind. */
const counts = z.object({ students: z.number().int(), faculty: z.number().int(), groups: z.number().int() });

/** A class list sync (NRPS) of a link: what it did, or would do, and what started it. */
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

/** A class list sync's dry run and confirmation past the guard. */
export const membersSyncQuery = z.strictObject({ dry_run: flag, confirm: flag });

// ---------------------------------------------------------------------------------------------
// The portal's LTI page (portal.ts)
// ---------------------------------------------------------------------------------------------

/** The institution whose LTI page this is. */
export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

/** A registered platform of an institution. */
export const platformParams = z.strictObject({ id: z.string().min(1).max(40), platformId: z.string().min(1).max(40) });

/** A score post of an institution. */
export const postParams = z.strictObject({ id: z.string().min(1).max(40), postId: z.string().min(1).max(40) });

/** A URL of the platform, as pasted. */
const url = z.string().trim().min(1).max(2048);

/** A platform to register: its issuer, client id, deployments, endpoints and keys. */
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

/** A registered platform: every field but the pasted key itself. */
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

/** A resource link of a platform and the exam it opens. */
export const linkSchema = z.object({
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
export const overviewLinkSchema = linkSchema.extend({ last_members_sync: membersRunSchema.nullable() });

/** The LTI page: the tool's side to paste into the LMS, the platforms and the links. */
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

/** A grade sent (or to send) to an LMS line item, with every attempt. */
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

/** A resource link of a platform to link to an exam. */
export const linkResourceBody = z.strictObject({
  platform_id: z.string().min(1).max(40),
  resource_link_id: z.string().trim().min(1).max(255),
  exam_id: z.string().min(1).max(40),
});

// ---------------------------------------------------------------------------------------------
// The tool's pages in the LMS (pages.ts)
// ---------------------------------------------------------------------------------------------

/** What the LMS sends to begin a launch (OIDC third-party login), in the query or as a form; other fields are ignored. */
export const loginFields = z.looseObject({
  iss: z.string().optional(),
  login_hint: z.string().optional(),
  target_link_uri: z.string().optional(),
  lti_message_hint: z.string().optional(),
  client_id: z.string().optional(),
  lti_deployment_id: z.string().optional(),
  lti_storage_target: z.string().optional(),
});

/** The login fields as parsed. */
export type LoginFields = z.output<typeof loginFields>;

/** Any query: an LMS may add its own parameters to the tool's URLs. */
export const anyQuery = z.looseObject({});

/** The tool's pages answer HTML or a redirect. */
export const htmlAnswer = z.string().openapi({ type: 'string', description: 'An HTML page, or a 302 redirect.' });
