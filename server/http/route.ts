import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import fs from 'node:fs';
import type { AppContext } from '../context.js';
import type { Tenant } from '../db/tenant.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { Scope } from '../policies/scopes.js';
import { authenticateKey, requireScope, type KeyAuth } from './auth.js';
import { auditPortalChange, authenticatePortalCaller, PORTAL_OPERATIONS_PREFIX, type PortalCaller } from './portal-caller.js';
import { rateLimit } from './rate-limit.js';
import { authenticateSession, type LearnerAuth } from './session-auth.js';
import { receiveUpload, type UploadedFile } from './upload.js';
import { parseInput } from '../validation/parse.js';
import { z } from '../validation/zod.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Empty = z.ZodObject<Record<never, never>>;

/** A handler result written by the handler itself (CSV streams, files), not wrapped in the envelope. */
export class RawResponse {
  constructor(readonly write: (res: Response) => Promise<void> | void) {}
}

interface CommonInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** With `upload`: the received file, in a temporary place until the handler stores it. */
  file: UploadedFile | undefined;
  requestId: string;
  ctx: AppContext;
}

/** Who calls an institution operation: an API key, or a portal member acting with their role's scopes. */
export type InstitutionCaller = KeyAuth | PortalCaller;

/** The scopes the caller holds, whoever they are. */
export const callerScopes = (caller: InstitutionCaller): readonly string[] => (caller.kind === 'key' ? caller.key.scopes : caller.scopes);

export interface HandlerInput<P, Q, B> extends CommonInput<P, Q, B> {
  /** The caller's institution: the only door to its data. */
  tenant: Tenant;
  auth: InstitutionCaller;
}

export interface LearnerHandlerInput<P, Q, B> extends CommonInput<P, Q, B> {
  tenant: Tenant;
  learner: LearnerAuth;
}

export type PublicHandlerInput<P, Q, B> = CommonInput<P, Q, B>;

type Output<R extends z.ZodType> = Promise<z.input<R> | RawResponse>;

interface RouteBase<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> {
  method: HttpMethod;
  /** Relative to /v1, OpenAPI style: `/students/{id}`. */
  path: `/${string}`;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** The response's media type when it is not the JSON envelope (the handler returns a RawResponse). */
  produces?: string;
  response: R;
  /** Codes this operation answers besides the ones every operation can (401, 403, 422, 429). */
  errors?: ErrorCode[];
}

/**
 * A multipart upload with one `file` field instead of a JSON body. `before` checks the route's
 * ids and the caller's right to upload there before a byte of the body is received, so nobody
 * can make the appliance store 50 MB against an id that does not exist or is not theirs.
 */
export interface UploadOptions<I> {
  maxBytes: number;
  before: (input: I) => Promise<void>;
}

type BeforeUpload<I> = Omit<I, 'body' | 'file'>;

/** An integration operation, called with an API key. */
export interface RouteDefinition<
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
> extends RouteBase<P, Q, B, R> {
  auth?: 'key';
  /** `any` = any valid key, or any member of the institution in the portal (`/me`, `/scopes`). */
  scope: Scope | 'any';
  /** Describes the calling key itself (`/me`): not mounted for portal sessions. */
  keyOnly?: true;
  upload?: UploadOptions<BeforeUpload<HandlerInput<z.output<P>, z.output<Q>, never>>>;
  handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/** A learner-side operation (`/app/*`), called with a session token from the launch exchange. */
export interface LearnerRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends RouteBase<P, Q, B, R> {
  auth: 'session';
  upload?: UploadOptions<BeforeUpload<LearnerHandlerInput<z.output<P>, z.output<Q>, never>>>;
  handler: (input: LearnerHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/** An operation without credentials (the launch-token exchange, signed file links). */
export interface PublicRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends RouteBase<P, Q, B, R> {
  auth: 'none';
  upload?: never;
  handler: (input: PublicHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnyRoute = RouteDefinition<any, any, any, any> | LearnerRouteDefinition<any, any, any, any> | PublicRouteDefinition<any, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

export function defineRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}

export function defineLearnerRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: Omit<LearnerRouteDefinition<P, Q, B, R>, 'auth'>,
): LearnerRouteDefinition<P, Q, B, R> {
  return { ...route, auth: 'session' };
}

export function definePublicRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: Omit<PublicRouteDefinition<P, Q, B, R>, 'auth'>,
): PublicRouteDefinition<P, Q, B, R> {
  return { ...route, auth: 'none' };
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
  const authenticate = { key: authenticateKey(ctx.db), session: authenticateSession(ctx.db) };
  const limit = rateLimit(ctx.rateLimitStore);
  for (const route of routes) {
    const chain: RequestHandler[] = [
      (req, _res, next) => {
        req.routePattern = `/v1${route.path}`;
        next();
      },
    ];
    if (route.auth === 'session') chain.push(authenticate.session, limit);
    else if (route.auth !== 'none') chain.push(authenticate.key, limit, requireScope(route.scope));
    if (route.upload) chain.push(checkBeforeUpload(ctx, route), receiveUpload(ctx, route.upload.maxBytes));
    else if (route.method !== 'get' && route.method !== 'delete') chain.push(jsonBody);
    chain.push(handle(ctx, route));
    router[route.method](expressPath(route.path), ...chain);
  }
}

/**
 * Mounts the institution operations (the API-key routes, but `/me`, which describes a key)
 * for portal sessions under `/institutions/{institution}`: the same declaration, schemas, command,
 * presenter and envelope, behind the portal's checks instead of a key's; changes are audited.
 */
export function mountPortalOperations(router: Router, ctx: AppContext, routes: readonly AnyRoute[]): void {
  for (const route of routes) {
    if (route.auth === 'session' || route.auth === 'none' || route.keyOnly) continue;
    const chain: RequestHandler[] = [
      (req, _res, next) => {
        req.routePattern = `/portal/api/institutions/{institution}${route.path}`;
        next();
      },
      authenticatePortalCaller(ctx, route.scope),
    ];
    if (route.upload) chain.push(checkBeforeUpload(ctx, route), receiveUpload(ctx, route.upload.maxBytes));
    else if (route.method !== 'get' && route.method !== 'delete') chain.push(jsonBody);
    chain.push(handle(ctx, route));
    router[route.method](`${PORTAL_OPERATIONS_PREFIX}${expressPath(route.path)}`, ...chain);
  }
}

/** The route's own path parameters: a portal mount adds `{institution}` in front. */
function ownParams(req: Request): Record<string, unknown> {
  const { institution: _institution, ...own } = req.params as Record<string, unknown>;
  return req.portalCaller ? own : (req.params as Record<string, unknown>);
}

/** An institution operation's caller: the key, or the portal member. */
function institutionCaller(req: Request): InstitutionCaller {
  const caller = req.auth ?? req.portalCaller;
  if (!caller) throw new AppError('unauthorized', 'Authentication is required.');
  return caller;
}

/** Runs an upload route's `before` with its parsed params and query, ahead of the body. */
function checkBeforeUpload(ctx: AppContext, route: AnyRoute): RequestHandler {
  const check = async (req: Request) => {
    const params = route.params ? parseInput(route.params, ownParams(req)) : {};
    const query = parseInput(route.query ?? strictEmpty, { ...req.query });
    const common = { params, query, requestId: req.requestId, ctx };
    if (route.auth === 'session') {
      if (!req.learner) throw new AppError('unauthorized', 'A learner session is required.');
      await route.upload?.before({ ...common, tenant: req.learner.tenant, learner: req.learner });
    } else if (route.auth !== 'none') {
      const caller = institutionCaller(req);
      await route.upload?.before({ ...common, tenant: caller.tenant, auth: caller });
    }
  };
  return async (req, res, next) => {
    try {
      await check(req);
    } catch (error) {
      // The body is never read: close the connection after the answer rather than drain it.
      res.setHeader('Connection', 'close');
      throw error;
    }
    next();
  };
}

function handle(ctx: AppContext, route: AnyRoute) {
  return async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
    const file = req.uploadedFile;
    try {
      const params = route.params ? parseInput(route.params, ownParams(req)) : {};
      const query = parseInput(route.query ?? strictEmpty, { ...req.query });
      const body = route.upload ? {} : parseInput(route.body ?? strictEmpty, req.body ?? {});
      const common = { params, query, body, file, requestId: req.requestId, ctx };

      let data: unknown;
      if (route.auth === 'session') {
        if (!req.learner) throw new AppError('unauthorized', 'A learner session is required.');
        data = await route.handler({ ...common, tenant: req.learner.tenant, learner: req.learner });
      } else if (route.auth === 'none') {
        data = await route.handler(common);
      } else {
        const caller = institutionCaller(req);
        data = await route.handler({ ...common, tenant: caller.tenant, auth: caller });
        await auditPortalChange(ctx, req, route, params as Record<string, unknown>, data instanceof RawResponse ? null : data);
      }

      if (data instanceof RawResponse) {
        await data.write(res);
        return;
      }
      if (ctx.validateResponses) {
        const checked = route.response.safeParse(data);
        if (!checked.success) {
          throw new Error(`response of ${route.operationId} does not match its schema: ${checked.error.message}`);
        }
      }
      res.status(200).json({ success: true, data });
    } finally {
      // A file the handler did not move into storage is removed.
      if (file) await fs.promises.rm(file.path, { force: true });
    }
  };
}
