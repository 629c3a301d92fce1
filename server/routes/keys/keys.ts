import {
  apiKeyInput,
  apiKeyUpdateInput,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  rollApiKeyInput,
  updateApiKey,
} from '../../commands/institutions/api-keys.js';
import { ensureSandbox } from '../../commands/institutions/sandbox.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import { presentApiKey, presentCreatedApiKey, presentRolledApiKey } from '../../presenters/api-key.js';
import { z } from '../../validation/zod.js';
import { apiKeySchema, createdApiKeySchema, institutionParams, keyParams, rolledApiKeySchema } from './schema.js';

/** An institution's API keys, managed in the portal by its admins and developers. */

export const KEY_ROLES = ['admin', 'developer'] as const;

export const keyRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/institutions/{id}/keys',
    operationId: 'listApiKeys',
    tag: 'Keys',
    summary: "The institution's API keys (never the key itself)",
    caller: 'member',
    roles: KEY_ROLES,
    params: institutionParams,
    response: z.array(apiKeySchema),
    handler: async ({ access }) => (await listApiKeys(access.tenant)).map(presentApiKey),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/keys',
    operationId: 'createApiKey',
    tag: 'Keys',
    summary: 'Create an API key; the full key is in this answer only. Developers may not grant admin-only scopes (403 forbidden)',
    caller: 'member',
    roles: KEY_ROLES,
    params: institutionParams,
    body: apiKeyInput.omit({ created_by: true }),
    response: createdApiKeySchema,
    handler: async ({ access, auth, body, ctx }) => {
      if (body.environment === 'sandbox') await ensureSandbox(ctx.db, access.institution.id);
      const { row, key } = await createApiKey(access.tenant, { ...body, created_by: auth.account.id }, { grantedBy: access.role });
      return presentCreatedApiKey(row, key);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/institutions/{id}/keys/{keyId}',
    operationId: 'updateApiKey',
    tag: 'Keys',
    summary: 'Rename a key or change its rate limit',
    caller: 'member',
    roles: KEY_ROLES,
    params: keyParams,
    body: apiKeyUpdateInput,
    response: apiKeySchema,
    handler: async ({ access, params, body }) => presentApiKey(await updateApiKey(access.tenant, params.keyId, body)),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/keys/{keyId}/roll',
    operationId: 'rollApiKey',
    tag: 'Keys',
    summary:
      'Roll a key: a new key (in this answer only) with the same name, scopes, rate limit and lifetime; the old one keeps working for overlap_hours. A revoked, expired or already rolled key: 409 conflict',
    caller: 'member',
    roles: KEY_ROLES,
    params: keyParams,
    body: rollApiKeyInput,
    response: rolledApiKeySchema,
    // The new key is the roller's: only they saw it, so removing them from the team revokes it.
    handler: async ({ auth, access, params, body }) =>
      presentRolledApiKey(await rollApiKey(access.tenant, params.keyId, body, { grantedBy: access.role, rolledBy: auth.account.id })),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/keys/{keyId}/revoke',
    operationId: 'revokeApiKey',
    tag: 'Keys',
    summary: 'Revoke a key; it stops working at once',
    caller: 'member',
    roles: KEY_ROLES,
    params: keyParams,
    response: apiKeySchema,
    handler: async ({ access, params }) => presentApiKey(await revokeApiKey(access.tenant, params.keyId)),
  }),
];
