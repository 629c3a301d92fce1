import type { z } from 'zod';
import type { ltiOverviewSchema, membersRunSchema, platformInput, platformSchema, platformUpdate, scorePostSchema } from '../../../../server/routes/lti/schema';

/** Types and query keys of the LTI page (type-only imports of server/routes/lti/portal.ts). */
export type LtiOverview = z.input<typeof ltiOverviewSchema>;
export type LtiPlatform = z.input<typeof platformSchema>;
export type LtiScorePost = z.input<typeof scorePostSchema>;
export type LtiPlatformInput = z.input<typeof platformInput>;
export type LtiPlatformUpdate = z.input<typeof platformUpdate>;
export type LtiLink = LtiOverview['links'][number];
export type LtiMembersSync = z.input<typeof membersRunSchema>;

export const ltiKey = (institutionId: string) => ['institution', institutionId, 'lti'] as const;
export const ltiScoresKey = (institutionId: string) => ['institution', institutionId, 'lti', 'score-posts'] as const;

/** The form's labels by API field: on the inputs and in every refusal's words. */
export const LABELS = {
  name: 'Name',
  issuer: 'Issuer',
  client_id: 'Client ID',
  deployment_ids: 'Deployment IDs',
  auth_url: 'Authorization URL',
  token_url: 'Token URL',
  jwks_url: 'Key set URL',
  public_key: 'Public key',
  frame_origins: 'Frame origins',
} as const;
