import { z } from '../../validation/zod.js';

/** An institution's sandbox, as the portal opens it. */
export const sandboxSchema = z.object({
  id: z.string().openapi({ description: "The sandbox's own institution id: the portal's and the sandbox keys' `institution.id`." }),
  name: z.string(),
  sandbox_of: z.string().openapi({ description: 'The live institution it belongs to.' }),
  environment: z.literal('sandbox'),
});

/** The live institution, never the sandbox's own id. */
export const liveParams = z.strictObject({ id: z.string().min(1).max(40) });
