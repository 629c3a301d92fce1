import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { AnyRoute } from './route.js';
import { z } from '../validation/zod.js';

export const API_VERSION_LABEL = '2026-09-14';

/** Codes every operation of a kind can answer, in the check order of docs/api.md#order-of-checks. */
const COMMON_ERRORS: Record<'key' | 'session' | 'none', ErrorCode[]> = {
  key: [
    'unauthorized',
    'invalid_api_key',
    'institution_not_approved',
    'insufficient_scope',
    'validation_error',
    'rate_limited',
    'rate_limiter_unavailable',
    'internal_error',
  ],
  session: ['unauthorized', 'institution_not_approved', 'validation_error', 'rate_limited', 'rate_limiter_unavailable', 'internal_error'],
  none: ['validation_error', 'internal_error'],
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone',
  422: 'The request is not valid',
  429: 'Rate limit exceeded',
  500: 'Internal error',
  503: 'Rate limiter unavailable',
};

function errorSchema(codes: ErrorCode[]) {
  return z.object({
    success: z.literal(false),
    error: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'With validation_error: one entry per problem.' }),
    required: z.array(z.string()).optional().openapi({ description: 'With insufficient_scope: scopes the operation needs.' }),
    missing: z.array(z.string()).optional().openapi({ description: 'With insufficient_scope: those the key lacks.' }),
  });
}

function errorResponses(route: AnyRoute) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...COMMON_ERRORS[route.auth ?? 'key'], ...(route.errors ?? [])]) {
    const status = ERROR_STATUS[code];
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  const responses: Record<string, { description: string; content: { 'application/json': { schema: z.ZodType } } }> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.join(', ')}`,
      content: { 'application/json': { schema: errorSchema(codes) } },
    };
  }
  return responses;
}

const requestIdHeader = z.object({
  'X-Request-Id': z.string().openapi({ description: 'Echoed when the request sent a valid one; generated otherwise.' }),
});

const rateLimitHeaders = requestIdHeader.extend({
  'X-RateLimit-Limit': z.string().openapi({ description: 'Requests allowed in the current 60-second window.' }),
  'X-RateLimit-Remaining': z.string().openapi({ description: 'Requests left in the current window.' }),
  'X-RateLimit-Reset': z.string().openapi({ description: 'End of the current window, Unix seconds.' }),
});

export interface ExtraPath {
  register(registry: OpenAPIRegistry): void;
}

/** The OpenAPI 3.1 document, generated from the same route definitions that validate requests. */
export function buildOpenApiDocument(routes: readonly AnyRoute[], extras: readonly ExtraPath[] = []) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key, `cb_live_` followed by 32 characters, created in the portal or with `cli key create`.',
  });

  const session = registry.registerComponent('securitySchemes', 'learnerSession', {
    type: 'http',
    scheme: 'bearer',
    description: 'A learner session token, `cb_sess_` followed by 32 characters, from POST /sso/exchange. Accepted only on /app/* operations.',
  });

  for (const route of routes) {
    const kind = route.auth ?? 'key';
    const access =
      route.auth === 'session'
        ? { security: [{ [session.name]: [] }], note: 'Learner session (from the launch-token exchange).', scope: undefined }
        : route.auth === 'none'
          ? { security: [], note: 'No credentials.', scope: undefined }
          : {
              security: [{ [bearer.name]: [] }],
              note: route.scope === 'any' ? 'Any valid key.' : `Scope: \`${route.scope}\` (a \`:write\` scope implies its \`:read\`).`,
              scope: route.scope,
            };
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
    // Public operations are not rate-limited per caller: only X-Request-Id is promised there.
    const headers = kind === 'none' ? requestIdHeader : rateLimitHeaders;
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
      'x-auth': kind,
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...body,
      },
      responses: { 200: success, ...errorResponses(route) },
    });
  }
  for (const extra of extras) extra.register(registry);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'CampusBridge Institution API',
      version: API_VERSION_LABEL,
      description:
        'The institution-scoped REST API of a CampusBridge appliance. Every request is scoped to the institution that owns the key. ' +
        'Successful responses are `{ success: true, data }`; failures are `{ success: false, error, message }`.',
    },
    servers: [{ url: '/v1', description: 'This appliance' }],
  });
}
