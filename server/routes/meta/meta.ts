import { AppError } from '../../errors.js';
import { defineRoute } from '../../http/route.js';
import { SCOPES } from '../../policies/scopes.js';
import { presentCallingKey } from '../../presenters/api-key.js';
import { meResponse, scopesResponse } from './schema.js';

export const metaRoutes = [
  defineRoute({
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'Describe the calling key',
    tag: 'Meta',
    scope: 'any',
    response: meResponse,
    handler: async ({ auth, requestId }) => {
      // `any`-scope operations describe a key and are mounted for keys only.
      if (auth.kind !== 'key') throw new AppError('not_found', 'No such operation for a portal session.');
      return presentCallingKey(auth, requestId);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/scopes',
    operationId: 'listScopes',
    summary: 'List all scopes with descriptions',
    tag: 'Meta',
    scope: 'any',
    response: scopesResponse,
    handler: async () => ({ items: Object.entries(SCOPES).map(([scope, description]) => ({ scope, description })) }),
  }),
];
