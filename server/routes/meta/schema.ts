import { z } from '../../validation/zod.js';
import { ALL_SCOPES } from '../../policies/scopes.js';

export const meResponse = z
  .object({
    key_id: z.string().openapi({ example: 'key_4fGh7KqWm2NpXr9TbVc1LzYd' }),
    name: z.string().openapi({ example: 'Moodle sync' }),
    environment: z.enum(['live', 'sandbox']).openapi({
      description: "`sandbox` for a `cb_test_` key: it acts on the institution's sandbox, whose id is `institution.id`.",
      example: 'live',
    }),
    institution: z.object({ id: z.string(), name: z.string() }).openapi({ example: { id: 'inst_8sJd2KfLq9XwBn3Vc7TzPm1R', name: 'Riverside High' } }),
    scopes: z.array(z.enum(ALL_SCOPES as [string, ...string[]])).openapi({ example: ['students:read', 'exams:write'] }),
    rate_limit_per_min: z.number().int().min(10).max(6000).openapi({ example: 600 }),
    request_id: z.string().openapi({ example: 'req_Zk3mQ8wL1xP0aB7cD9eF' }),
  })
  .openapi('ApiKeyDescription');

export const scopesResponse = z.object({
  items: z.array(
    z.object({
      scope: z.string().openapi({ example: 'students:write' }),
      description: z.string().openapi({ example: 'Provision, update, suspend and reactivate students.' }),
      admin_only: z.boolean().openapi({ description: "Only an institution's admins may grant it to a key (a developer may not).", example: false }),
    }),
  ),
});
