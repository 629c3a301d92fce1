import { apiKeyInput, apiKeyUpdateInput, createApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../../commands/api-keys.js';
import { definePortalRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentApiKey, presentCreatedApiKey } from '../../presenters/api-key.js';
import { z } from '../../validation/zod.js';

/** An institution's API keys, managed in the portal by its admins and developers. */

export const apiKeySchema = z.object({
  key_id: z.string(),
  name: z.string(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  status: z.enum(['active', 'revoked']),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const createdApiKeySchema = z.object({
  key_id: z.string(),
  key: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  rate_limit_per_min: z.number().int(),
  prefix: z.string(),
  last4: z.string(),
});

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const keyParams = z.strictObject({ id: z.string().min(1).max(40), keyId: z.string().min(1).max(40) });

export const KEY_ROLES = ['admin', 'developer'] as const;

export const keyRoutes: AnyPortalRoute[] = [
  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/keys',
    operationId: 'listApiKeys',
    tag: 'Keys',
    summary: "The institution's API keys (never the key itself)",
    access: 'member',
    roles: KEY_ROLES,
    params: institutionParams,
    response: z.array(apiKeySchema),
    handler: async ({ access }) => (await listApiKeys(access.tenant)).map(presentApiKey),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/keys',
    operationId: 'createApiKey',
    tag: 'Keys',
    summary: 'Create an API key; the full key is in this answer only. Developers may not grant admin-only scopes (403 forbidden)',
    access: 'member',
    roles: KEY_ROLES,
    params: institutionParams,
    body: apiKeyInput.omit({ created_by: true }),
    response: createdApiKeySchema,
    handler: async ({ access, auth, body }) => {
      const { row, key } = await createApiKey(access.tenant, { ...body, created_by: auth.account.id }, { grantedBy: access.role });
      return presentCreatedApiKey(row, key);
    },
  }),
  definePortalRoute({
    method: 'patch',
    path: '/institutions/{id}/keys/{keyId}',
    operationId: 'updateApiKey',
    tag: 'Keys',
    summary: 'Rename a key or change its rate limit',
    access: 'member',
    roles: KEY_ROLES,
    params: keyParams,
    body: apiKeyUpdateInput,
    response: apiKeySchema,
    handler: async ({ access, params, body }) => presentApiKey(await updateApiKey(access.tenant, params.keyId, body)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/keys/{keyId}/revoke',
    operationId: 'revokeApiKey',
    tag: 'Keys',
    summary: 'Revoke a key; it stops working at once',
    access: 'member',
    roles: KEY_ROLES,
    params: keyParams,
    response: apiKeySchema,
    handler: async ({ access, params }) => presentApiKey(await revokeApiKey(access.tenant, params.keyId)),
  }),
];
