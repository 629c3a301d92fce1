import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { API_VERSION_LABEL } from '../http/openapi.js';
import { z } from '../validation/zod.js';
import type { PortalRoute } from './route.js';

const errorEnvelope = z.object({
  success: z.literal(false),
  error: z.string().openapi({ example: 'forbidden' }),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

const WHO: Record<PortalRoute['access'], string> = {
  none: 'No session needed.',
  session: 'Any signed-in account.',
  operator: 'The appliance operator.',
  member: 'An active member of the institution in the path',
};

/**
 * The OpenAPI 3.1 document of the portal's own operations (sign-in, keys, developers, outbox,
 * audit, operator), from the same declarations that validate them. The institution operations the
 * portal also calls are those of `/v1/openapi.json`, mounted under `/institutions/{institution}`.
 */
export function buildPortalOpenApiDocument(routes: readonly PortalRoute[]) {
  const registry = new OpenAPIRegistry();
  const cookie = registry.registerComponent('securitySchemes', 'portalSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'cb_portal',
    description: 'The portal session cookie from POST /login or /setup; every write also sends `X-CSRF-Token` from GET /session.',
  });
  for (const route of routes) {
    const who = route.access === 'member' ? `${WHO.member}, with the role ${route.roles.join(' or ')}.` : WHO[route.access];
    const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
    registry.registerPath({
      method: route.method,
      path: route.path,
      summary: route.summary,
      description: who,
      tags: [route.path.split('/')[1] === 'institutions' ? (route.path.split('/')[3] ?? 'institution') : (route.path.split('/')[1] ?? 'portal')],
      security: route.access === 'none' ? [] : [{ [cookie.name]: [] }],
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.body ? { body: { content: json(route.body) } } : {}),
      },
      responses: {
        200: { description: 'Success', content: json(z.object({ success: z.literal(true), data: route.response })) },
        default: { description: 'An error in the envelope', content: json(errorEnvelope) },
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'CampusBridge portal API',
      version: API_VERSION_LABEL,
      description:
        "The portal's own operations. Every institution operation of the API (`/v1/openapi.json`) is also served here, " +
        'for portal sessions, under `/institutions/{institution}` followed by its /v1 path.',
    },
    servers: [{ url: '/portal/api', description: 'This appliance' }],
  });
}
