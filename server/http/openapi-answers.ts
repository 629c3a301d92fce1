import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { AnyPortalRoute, AnyRoute } from './route.js';
import { z } from '../validation/zod.js';

// What every documented operation answers besides its own result: the error codes its kind of
// caller can meet, their envelope, and the headers of the rate limiter and of Idempotency-Key.

/** Which document: the integration API (`/v1/openapi.json`) or the portal's own (`/portal/api/openapi.json`). */
export type OpenApiDocumentKind = 'api' | 'portal';

/** Codes every operation of a kind can answer, in the check order of docs/api.md#order-of-checks. */
const COMMON_ERRORS: Record<'key' | 'session' | 'none' | 'portal' | 'portal-member', ErrorCode[]> = {
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
  portal: ['unauthorized', 'forbidden', 'validation_error', 'internal_error'],
  'portal-member': ['unauthorized', 'forbidden', 'not_found', 'validation_error', 'internal_error'],
};

/** Which list of common errors an operation draws from. */
export function errorKind(route: AnyRoute, kind: OpenApiDocumentKind): keyof typeof COMMON_ERRORS {
  switch (route.caller) {
    case 'key':
      // In the portal's document, the member's checks: no key, but a membership (404) and a role (403).
      return kind === 'portal' ? 'portal-member' : 'key';
    case 'learner':
      return 'session';
    case 'anyone':
      return 'none';
    case 'member':
      return 'portal-member';
    default:
      return 'portal';
  }
}

/** The document's `x-auth` for an operation: `key`, `session` (learner), `none`, or `portal` for everything the portal's document lists. */
export function xAuth(route: AnyRoute, kind: OpenApiDocumentKind): string {
  if (kind === 'portal') return 'portal';
  return route.caller === 'learner' ? 'session' : route.caller === 'anyone' ? 'none' : 'key';
}

/** Who may call a portal operation, in words. */
export function portalAccessNote(route: AnyPortalRoute): string {
  switch (route.caller) {
    case 'anyone':
      return 'No session needed.';
    case 'signed-in':
      return 'Any signed-in account.';
    case 'operator':
      return 'The appliance operator.';
    case 'member':
      return `An active member of the institution in the path, with the role ${route.roles.join(' or ')}.`;
  }
}

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

export function errorResponses(route: AnyRoute, kind: OpenApiDocumentKind, extra: readonly ErrorCode[] = []) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...COMMON_ERRORS[errorKind(route, kind)], ...(route.errors ?? []), ...extra]) {
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

export const requestIdHeader = z.object({
  'X-Request-Id': z.string().openapi({ description: 'Echoed when the request sent a valid one; generated otherwise.' }),
});

export const rateLimitHeaders = requestIdHeader.extend({
  'X-RateLimit-Limit': z.string().openapi({ description: 'Requests allowed in the current 60-second window.' }),
  'X-RateLimit-Remaining': z.string().openapi({ description: 'Requests left in the current window.' }),
  'X-RateLimit-Reset': z.string().openapi({ description: 'End of the current window, Unix seconds.' }),
});

export const idempotencyRequestHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/)
    .optional()
    .openapi({
      description:
        'Optional, 1 to 255 printable ASCII characters, unique per request you mean once (a UUID). The first answer (status and body) is kept 24 hours for ' +
        'this caller and key; the same request with the same key gets it again with `Idempotent-Replayed: true` instead of running again. The same key with ' +
        'another path or body, or while the first is still running, is `409 conflict`. Answers of 500 and above are not kept.',
      example: 'f1b9e0c2-7c4e-4a8e-9d0a-3b1f2f6b8d11',
    }),
});

export const replayedHeader = z.object({
  'Idempotent-Replayed': z
    .literal('true')
    .optional()
    .openapi({ description: 'Present when this is the kept answer of an earlier request with the same Idempotency-Key.' }),
});
