import type { z } from 'zod';
import type { ltiOverviewSchema, platformSchema, scorePostSchema } from '../../../../server/routes/lti/portal';

/** Types and query keys of the LTI page (type-only imports of server/routes/lti/portal.ts). */
export type LtiOverview = z.input<typeof ltiOverviewSchema>;
export type LtiPlatform = z.input<typeof platformSchema>;
export type LtiScorePost = z.input<typeof scorePostSchema>;

export const ltiKey = (institutionId: string) => ['institution', institutionId, 'lti'] as const;
export const ltiScoresKey = (institutionId: string) => ['institution', institutionId, 'lti', 'score-posts'] as const;
