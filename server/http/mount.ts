import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import fs from 'node:fs';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validation/parse.js';
import { z } from '../validation/zod.js';
import { authenticateKey, requireScope } from './auth.js';
import { idempotency } from './idempotency.js';
import { auditPortalChange, authenticatePortalCaller, authenticatePortalRoute } from './portal-caller.js';
import { rateLimit } from './rate-limit.js';
import { PORTAL_CALLERS, RawResponse, type AnyPortalRoute, type AnyRoute, type InstitutionCaller } from './route.js';
import { authenticateSession } from './session-auth.js';
import { receiveUpload, type UploadedFile } from './upload.js';

type CommonInput = { params: unknown; query: unknown; body: unknown; file: UploadedFile | undefined; requestId: string; ctx: AppContext };

/** Where a list of routes is mounted: the integration API, the portal's own API, or pages at the root (LTI, guardian links). */
export type RouteMount = '/v1' | '/portal/api' | '/';

export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

const strictEmpty = z.strictObject({});
const jsonType = ['application/json', 'application/*+json'];
/** The API takes bulk bodies; the portal's own forms are small. */
const jsonBody = { api: express.json({ limit: '2mb', type: jsonType }), portal: express.json({ limit: '100kb', type: jsonType }) };
/** An HTML form's fields (an LMS's id_token is the largest); each a string, repeated names an array. */
const formBody = express.urlencoded({ extended: false, limit: '256kb' });

/**
 * Whether a caller kind may be served under a mount: key and learner operations under `/v1`, the
 * portal's callers under `/portal/api`, and only credential-free pages at the root. The portal
 * also serves a key operation (but one describing the key itself, `/me`) to the institution's
 * members, under `/institutions/{institution}`.
 */
function servedUnder(route: AnyRoute, mount: RouteMount): boolean {
  if (route.caller === 'anyone') return true;
  if (mount === '/') return false;
  if (mount === '/portal/api' && route.caller === 'key') return !route.keyOnly;
  return PORTAL_CALLERS.includes(route.caller) === (mount === '/portal/api');
}

/** The /v1 operations the portal also serves, to the institution's members: every key operation but those describing the key (`/me`). */
export function memberOperations(routes: readonly AnyRoute[]): AnyRoute[] {
  return routes.filter((route) => route.caller === 'key' && !route.keyOnly);
}

/** Where the portal serves an institution operation of /v1: the same path under the member's institution. */
const PORTAL_INSTITUTION_PREFIX = '/institutions/{institution}';

/**
 * Mounts every route with the same middleware order, so none can skip a step:
 * auth (401) → institution state (403) → rate limit (429) → scope or role (403) → body → Idempotency-Key (POST) → validation → handler → envelope.
 * The chain is built from the declaration's caller kind and the mount: API keys and learner
 * sessions get the rate limit and, on POST, `Idempotency-Key`; the portal's mount gets its
 * session, CSRF and audit checks, for credential-free operations (sign-in) too. Under the portal,
 * a key operation is served to the institution's members (`/institutions/{institution}/…`): the
 * same declaration, schemas, command, presenter and envelope, behind the member's checks and the
 * role's scopes instead of a key's; its changes are audited.
 */
export function mountRoutes(router: Router, ctx: AppContext, routes: readonly AnyRoute[], mount: RouteMount): void {
  const authenticate = { key: authenticateKey(ctx.db), session: authenticateSession(ctx.db) };
  const limit = rateLimit(ctx.rateLimitStore);
  const portal = mount === '/portal/api';
  for (const route of routes) {
    if (!servedUnder(route, mount)) throw new Error(`${route.method} ${route.path} cannot be mounted under ${mount}`);
    const forMembers = portal && route.caller === 'key';
    const path = forMembers ? `${PORTAL_INSTITUTION_PREFIX}${route.path}` : route.path;
    const chain: RequestHandler[] = [
      (req, _res, next) => {
        req.routePattern = mount === '/' ? path : `${mount}${path}`;
        next();
      },
    ];
    if (forMembers) chain.push(authenticatePortalCaller(ctx, route.scope));
    else if (route.caller === 'key') chain.push(authenticate.key, limit, requireScope(route.scope));
    else if (route.caller === 'learner') chain.push(authenticate.session, limit);
    else if (portal) chain.push(authenticatePortalRoute(ctx, route));
    if (route.upload) chain.push(checkBeforeUpload(ctx, route), receiveUpload(ctx, route.upload.maxBytes));
    else if (route.form) chain.push(formBody);
    // An institution operation takes its bulk bodies in the portal too; the portal's own forms are small.
    else if (takesBody(route)) chain.push(portal && !forMembers ? jsonBody.portal : jsonBody.api);
    if (route.method === 'post' && !portal && (route.caller === 'key' || route.caller === 'learner')) chain.push(idempotency(ctx.db));
    chain.push(handle(ctx, route, mount));
    router[route.method](expressPath(path), ...chain);
  }
}

const takesBody = (route: AnyRoute) => route.method !== 'get' && route.method !== 'head' && route.method !== 'delete';

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
    if (route.caller === 'learner') {
      if (!req.learner) throw new AppError('unauthorized', 'A learner session is required.');
      await route.upload?.before({ ...common, tenant: req.learner.tenant, learner: req.learner });
    } else if (route.caller === 'key') {
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

/** A portal-only or credential-free operation's handler, with what its caller's checks found. */
function callPortalRoute(route: AnyPortalRoute, common: CommonInput, req: Request, res: Response) {
  const input = { ...common, req, res };
  if (route.caller === 'anyone') return route.handler(input);
  const auth = req.portalSession;
  if (!auth) throw new AppError('unauthorized', 'Sign in to the portal.');
  if (route.caller !== 'member') return route.handler({ ...input, auth });
  if (!req.portalAccess) throw new Error(`${route.path} was mounted without its membership check`);
  return route.handler({ ...input, auth, access: req.portalAccess });
}

/** A refusal (an AppError) answered as the route's own page, when it has one for it; false leaves it to the error middleware. */
async function answeredAsPage(route: AnyRoute, error: unknown, req: Request, res: Response): Promise<boolean> {
  if (!route.refusalPage || !(error instanceof AppError)) return false;
  const page = route.refusalPage(error, req.accepts(['json', 'html']) === 'html');
  if (!page) return false;
  await page.write(res);
  return true;
}

function handle(ctx: AppContext, route: AnyRoute, mount: RouteMount) {
  return async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
    try {
      await answer(ctx, route, mount, req, res);
    } catch (error) {
      if (!(await answeredAsPage(route, error, req, res))) throw error;
    }
  };
}

async function answer(ctx: AppContext, route: AnyRoute, mount: RouteMount, req: Request, res: Response): Promise<void> {
  const file = req.uploadedFile;
  try {
    const params = route.params ? parseInput(route.params, ownParams(req)) : {};
    const query = parseInput(route.query ?? strictEmpty, { ...req.query });
    const body = route.upload ? {} : parseInput(route.body ?? strictEmpty, req.body ?? {});
    const common: CommonInput = { params, query, body, file, requestId: req.requestId, ctx };

    let data: unknown;
    if (route.caller === 'learner') {
      if (!req.learner) throw new AppError('unauthorized', 'A learner session is required.');
      data = await route.handler({ ...common, tenant: req.learner.tenant, learner: req.learner });
    } else if (route.caller === 'key') {
      const caller = institutionCaller(req);
      data = await route.handler({ ...common, tenant: caller.tenant, auth: caller });
      await auditPortalChange(ctx, req, route, params as Record<string, unknown>, data instanceof RawResponse ? null : data);
    } else if (mount === '/portal/api') {
      data = await callPortalRoute(route, common, req, res);
      const institutionId = route.auditInstitution?.({ params, result: data }) ?? null;
      await auditPortalChange(ctx, req, route, params as Record<string, unknown>, data instanceof RawResponse ? null : data, institutionId);
    } else if (route.caller === 'anyone') {
      data = await route.handler({ ...common, req, res });
    } else {
      throw new Error(`${route.path} was mounted under ${mount} without its caller's checks`);
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
}
