import { countInstitution, replaceIntegrationConfig } from '../../commands/institutions/profile.js';
import { defineRoute } from '../../http/route.js';
import { presentInstitution, presentIntegrationConfig } from '../../presenters/institution.js';
import { institutionResponse, integrationConfig } from './schema.js';

export const institutionRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/institution',
    operationId: 'getInstitution',
    summary: 'Read the institution profile with user and license counts',
    tag: 'Institution',
    scope: 'institution:read',
    response: institutionResponse,
    handler: async ({ tenant }) => presentInstitution(await tenant.institution(), await countInstitution(tenant)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/institution/config',
    operationId: 'getIntegrationConfig',
    summary: 'Read the integration config',
    tag: 'Institution',
    scope: 'institution:read',
    response: integrationConfig,
    handler: async ({ tenant }) => presentIntegrationConfig(await tenant.institution()),
  }),
  defineRoute({
    caller: 'key',
    method: 'put',
    path: '/institution/config',
    operationId: 'replaceIntegrationConfig',
    summary: 'Replace the integration config',
    description: 'Replaces the whole config: every field is required, `toolchain_mirror` may be null.',
    tag: 'Institution',
    scope: 'institution:write',
    body: integrationConfig,
    response: integrationConfig,
    handler: async ({ tenant, body }) => presentIntegrationConfig(await replaceIntegrationConfig(tenant, body)),
  }),
];
