import { z } from '../../validation/zod.js';

/** A key as the portal lists it: never the key itself. */
export const apiKeySchema = z.object({
  key_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  environment: z.enum(['live', 'sandbox']).openapi({ description: "`sandbox`: a `cb_test_` key acting on the institution's sandbox." }),
  status: z
    .enum(['active', 'revoked', 'expired'])
    .openapi({ description: 'An active key past its `expires_at` is `expired` and answers 401 invalid_api_key.' }),
  created_at: z.string(),
  last_used_at: z.string().nullable().openapi({ description: 'Last use, to the minute.' }),
  last_used_ip: z.string().nullable().openapi({ description: 'The address the last use came from, as the appliance saw the connection.' }),
  revoked_at: z.string().nullable(),
  expires_at: z.string().nullable().openapi({ description: 'When the key stops working; a rolled key ends at the end of its overlap. Null: never.' }),
  replaced_by: z.string().nullable().openapi({ description: 'The key made by rolling this one.' }),
  replaces: z.string().nullable().openapi({ description: 'The key this one was rolled from.' }),
});

/** A new key: the full key, in this answer only. */
export const createdApiKeySchema = z.object({
  key_id: z.string(),
  key: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  prefix: z.string(),
  last4: z.string(),
  environment: z.enum(['live', 'sandbox']),
  expires_at: z.string().nullable(),
});

/** A rolled key: the new key (in this answer only) and the old one, still working for its overlap. */
export const rolledApiKeySchema = createdApiKeySchema.extend({
  replaces: z.string(),
  old_key: apiKeySchema,
});

/** The institution whose keys these are. */
export const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });

/** One key of an institution. */
export const keyParams = z.strictObject({ id: z.string().min(1).max(40), keyId: z.string().min(1).max(40) });
