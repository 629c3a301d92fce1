import type { z } from 'zod';
import type { connectionSchema, gradebookPostSchema, onerosterStateSchema, runSchema, syncResultSchema } from '../../../../server/routes/oneroster/schema';
import type { PortalPaths } from '../../api/portal';

/** Types and query key of the OneRoster page (type-only imports of server/routes/oneroster/oneroster.ts). */
export type OneRosterState = z.input<typeof onerosterStateSchema>;
export type OneRosterConnection = z.input<typeof connectionSchema>;
/** What saving the connection sends, as the portal's document declares it (the server's schema is not exported). */
export type OneRosterConnectionInput = PortalPaths['/institutions/{id}/oneroster']['put']['requestBody']['content']['application/json'];
export type OneRosterRun = z.input<typeof runSchema>;
export type SyncResult = z.input<typeof syncResultSchema>;

export const onerosterKey = (institutionId: string) => ['institution', institutionId, 'oneroster'] as const;

export type GradebookPost = z.input<typeof gradebookPostSchema>;
export const gradebookPostsKey = (institutionId: string) => ['institution', institutionId, 'oneroster', 'gradebook-posts'] as const;
