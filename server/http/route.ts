import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AppContext } from '../context.js';
import type { Tenant } from '../db/tenant.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { Scope } from '../policies/scopes.js';
import { authenticateKey, requireScope, type KeyAuth } from './auth.js';
import { rateLimit } from './rate-limit.js';
import { parseInput } from './validate.js';
import { z } from './zod.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Empty = z.ZodObject<{}>;

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The caller's institution: the only door to its data. */
  tenant: Tenant;
  auth: KeyAuth;
  requestId: string;
  ctx: AppContext;
}

/** One operation: path, scope, schemas and a thin handler. Validation, docs and types all come from here. */
export interface RouteDefinition<
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Relative to /v1, OpenAPI style: `/students/{id}`. */
  path: `/${string}`;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** `any` = any valid key (`/me`, `/scopes`). */
  scope: Scope | 'any';
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  /** Codes this operation answers besides the ones every operation can (401, 403, 422, 429). */
  errors?: ErrorCode[];
  handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<z.input<R>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, any>;

export function defineRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}

export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

const strictEmpty = z.strictObject({});
const JSON_LIMIT = '2mb';
const jsonBody = express.json({ limit: JSON_LIMIT, type: ['application/json', 'application/*+json'] });

/**
 * Mounts every route with the same middleware order, so none can skip a step:
 * auth (401) → institution state (403) → rate limit (429) → scope (403) → body → validation → handler → envelope.
 */
export function mountRoutes(router: Router, ctx: AppContext, routes: readonly AnyRoute[]): void {
  const authenticate = authenticateKey(ctx.db);
  const limit = rateLimit(ctx.rateLimitStore);
  for (const route of routes) {
    const chain: RequestHandler[] = [
      (req, _res, next) => {
        req.routePattern = `/v1${route.path}`;
        next();
      },
      authenticate,
      limit,
      requireScope(route.scope),
    ];
    if (route.method !== 'get' && route.method !== 'delete') chain.push(jsonBody);
    chain.push(handle(ctx, route));
    router[route.method](expressPath(route.path), ...chain);
  }
}

function handle(ctx: AppContext, route: AnyRoute) {
  return async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
    const auth = req.auth;
    if (!auth) throw new AppError('unauthorized', 'Authentication is required.');
    const params = route.params ? parseInput(route.params, req.params) : {};
    const query = parseInput(route.query ?? strictEmpty, { ...req.query });
    const body = parseBody(route, req.body);

    const data = await route.handler({ params, query, body, tenant: auth.tenant, auth, requestId: req.requestId, ctx });
    if (ctx.validateResponses) {
      const checked = route.response.safeParse(data);
      if (!checked.success) {
        throw new Error(`response of ${route.operationId} does not match its schema: ${checked.error.message}`);
      }
    }
    res.status(200).json({ success: true, data });
  };
}

function parseBody(route: AnyRoute, raw: unknown): unknown {
  const body = raw === undefined || raw === null ? {} : raw;
  return parseInput(route.body ?? strictEmpty, body);
}
