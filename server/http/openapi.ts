import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { AnyRoute, ApiRoute, KeyRoute } from './route.js';
import { z } from '../validation/zod.js';
import {
  errorResponses,
  idempotencyRequestHeaders,
  portalAccessNote,
  rateLimitHeaders,
  replayedHeader,
  requestIdHeader,
  xAuth,
  type OpenApiDocumentKind,
} from './openapi-answers.js';

export type { OpenApiDocumentKind };
export { apiReferencePage } from './api-reference.js';

export const API_VERSION_LABEL = '2026-09-14';

/**
 * Shown at the top of the explorer (`/v1/docs`), whose "Try it out" sends real requests: said
 * before anyone authorizes a key there.
 */
export const LIVE_DATA_NOTICE =
  "**Try it out with a sandbox key.** Requests sent from this page are real. A sandbox key (`cb_test_…`: the portal's " +
  "API keys → Create key → Sandbox) acts on the institution's sandbox, whose students, mail and webhooks are its own. A live key " +
  '(`cb_live_…`) reads and changes the institution itself, as your LMS would: this page asks before it sends a change with one. ' +
  'Give a key only the scopes you are trying, and revoke it afterwards.';

const DOCUMENT_INFO: Record<OpenApiDocumentKind, { title: string; description: string; server: string }> = {
  api: {
    title: 'CampusBridge Institution API',
    description:
      'The institution-scoped REST API of a CampusBridge appliance. Every request is scoped to the institution that owns the key. ' +
      'Successful responses are `{ success: true, data }`; failures are `{ success: false, error, message }`.\n\n' +
      LIVE_DATA_NOTICE,
    server: '/v1',
  },
  portal: {
    title: 'CampusBridge portal API',
    description:
      "The portal's own operations (sign-in, keys, developers, outbox, audit, operator), and every institution operation of the API " +
      '(`/v1/openapi.json`) as the portal serves it to its members: under `/institutions/{institution}` followed by its /v1 path, ' +
      "for a member whose role grants the operation's scope.",
    server: '/portal/api',
  },
};

/**
 * The institution operations of /v1 as the portal mounts them for its members (mountRoutes under /portal/api):
 * `/institutions/{institution}` before the path, the portal's session instead of a key. `/me`, which
 * describes a key, is not among them.
 */
export function institutionOperations(routes: readonly ApiRoute[]): KeyRoute[] {
  return routes.flatMap((route) => {
    if (route.caller !== 'key' || route.keyOnly) return [];
    const institution = z.string().openapi({ description: 'The institution (`inst_…`) the member acts on.' });
    const params = route.params ? (route.params as z.ZodObject<z.ZodRawShape>).extend({ institution }) : z.object({ institution });
    return [{ ...route, path: `/institutions/{institution}${route.path}` as const, params, operationId: `institution_${route.operationId}` }];
  });
}

/** The OpenAPI 3.1 document, generated from the same route definitions that validate requests. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], kind: OpenApiDocumentKind = 'api') {
  const registry = new OpenAPIRegistry();
  const schemes = kind === 'api' ? registerApiSchemes(registry) : null;
  const portalCookie =
    kind === 'portal'
      ? registry.registerComponent('securitySchemes', 'portalSession', {
          type: 'apiKey',
          in: 'cookie',
          name: 'cb_portal',
          description: 'The portal session cookie from POST /login or /setup; every write also sends `X-CSRF-Token` from GET /session.',
        })
      : null;

  for (const route of routes) {
    const access = accessOf(route, schemes, portalCookie);
    const body = route.upload
      ? {
          body: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: z.object({
                  file: z.string().openapi({ type: 'string', format: 'binary', description: `At most ${Math.round(route.upload.maxBytes / 1024 / 1024)} MB.` }),
                }),
              },
            },
          },
        }
      : route.body
        ? { body: { required: !route.body.safeParse({}).success, content: { 'application/json': { schema: route.body } } } }
        : {};
    // Only operations behind the per-caller rate limiter promise its headers.
    const idempotent = kind === 'api' && route.method === 'post' && (route.caller === 'key' || route.caller === 'learner');
    const baseHeaders = access.rateLimited ? rateLimitHeaders : requestIdHeader;
    const headers = idempotent ? baseHeaders.extend(replayedHeader.shape) : baseHeaders;
    const success = route.produces
      ? { description: 'Success', headers, content: { [route.produces]: { schema: route.response } } }
      : {
          description: 'Success',
          headers,
          content: { 'application/json': { schema: z.object({ success: z.literal(true), data: route.response }) } },
        };
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, access.note].filter(Boolean).join('\n\n'),
      tags: [route.tag],
      security: access.security,
      ...(access.scope ? { 'x-required-scope': access.scope } : {}),
      'x-auth': xAuth(route, kind),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(idempotent ? { headers: idempotencyRequestHeaders } : {}),
        ...body,
      },
      // An Idempotency-Key reused for another request, or while its first request runs: 409 conflict.
      responses: { 200: success, ...errorResponses(route, kind, idempotent ? ['conflict'] : []) },
    });
  }

  const info = DOCUMENT_INFO[kind];
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: info.title, version: API_VERSION_LABEL, description: info.description },
    servers: [{ url: info.server, description: 'This appliance' }],
  });
}

type SecurityScheme = { name: string };

function registerApiSchemes(registry: OpenAPIRegistry) {
  return {
    bearer: registry.registerComponent('securitySchemes', 'apiKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key, `cb_live_` (or `cb_test_` for a sandbox key) followed by 32 characters, created in the portal or with `cli key create`.',
    }),
    session: registry.registerComponent('securitySchemes', 'learnerSession', {
      type: 'http',
      scheme: 'bearer',
      description: 'A learner session token, `cb_sess_` followed by 32 characters, from POST /sso/exchange. Accepted only on /app/* operations.',
    }),
  };
}

/** The operation's security requirement and the sentence that says who may call it. */
function accessOf(route: AnyRoute, schemes: { bearer: SecurityScheme; session: SecurityScheme } | null, portalCookie: SecurityScheme | null) {
  const none = { security: [], note: 'No credentials.', scope: undefined, rateLimited: false };
  if (route.caller !== 'key' && route.caller !== 'learner' && portalCookie) {
    if (route.caller === 'anyone') return { ...none, note: portalAccessNote(route) };
    return { security: [{ [portalCookie.name]: [] }], note: portalAccessNote(route), scope: undefined, rateLimited: false };
  }
  if (route.caller === 'key' && portalCookie) {
    const needs = route.scope === 'any' ? 'any role' : `a role whose scopes grant \`${route.scope}\``;
    return {
      security: [{ [portalCookie.name]: [] }],
      note: `An active member of the institution in the path with ${needs}. The same operation as /v1${route.path.replace('/institutions/{institution}', '')}.`,
      scope: route.scope,
      rateLimited: false,
    };
  }
  if (!schemes) throw new Error(`${route.method} ${route.path} (caller ${route.caller}) does not belong in the portal document`);
  if (route.caller === 'anyone') return none;
  if (route.caller !== 'key' && route.caller !== 'learner')
    throw new Error(`${route.method} ${route.path} (caller ${route.caller}) does not belong in the API document`);
  if (route.caller === 'learner') {
    return { security: [{ [schemes.session.name]: [] }], note: 'Learner session (from the launch-token exchange).', scope: undefined, rateLimited: true };
  }
  return {
    security: [{ [schemes.bearer.name]: [] }],
    note: route.scope === 'any' ? 'Any valid key.' : `Scope: \`${route.scope}\` (a \`:write\` scope implies its \`:read\`).`,
    scope: route.scope,
    rateLimited: true,
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** `buildOpenApiDocument` at its first use, then the same document (an appliance rarely serves it). */
export function lazyOpenApiDocument(routes: readonly AnyRoute[], kind: OpenApiDocumentKind = 'api'): () => OpenApiDocument {
  let document: OpenApiDocument | undefined;
  return () => (document ??= buildOpenApiDocument(routes, kind));
}
