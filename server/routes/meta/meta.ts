import { AppError } from '../../errors.js';
import { defineRoute } from '../../http/route.js';
import { ADMIN_ONLY_SCOPES, ALL_SCOPES, SCOPES } from '../../policies/scopes.js';
import { presentCallingKey } from '../../presenters/api-key.js';
import { meResponse, scopesResponse } from './schema.js';

export const metaRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'Describe the calling key',
    tag: 'Meta',
    scope: 'any',
    keyOnly: true,
    response: meResponse,
    handler: async ({ auth, requestId }) => {
      if (auth.kind !== 'key') throw new AppError('not_found', 'No such operation for a portal session.');
      return presentCallingKey(auth, requestId);
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/scopes',
    operationId: 'listScopes',
    summary: 'List all scopes with descriptions',
    description: '`admin_only` marks the scopes only an admin of the institution may grant to a key.',
    tag: 'Meta',
    scope: 'any',
    response: scopesResponse,
    handler: async () => ({ items: ALL_SCOPES.map((scope) => ({ scope, description: SCOPES[scope], admin_only: ADMIN_ONLY_SCOPES.includes(scope) })) }),
  }),
];
