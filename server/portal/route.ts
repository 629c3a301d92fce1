import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AppContext } from '../context.js';
import { expressPath, type HttpMethod } from '../http/route.js';
import { parseInput } from '../validation/parse.js';
import { z } from '../validation/zod.js';
import type { MembershipRole } from '../models/membership.js';
import { recordPortalAction } from './audit-log.js';
import { requireCsrf } from './csrf.js';
import { requireMember, requireOperator, type InstitutionAccess } from './policies.js';
import { findSession, signInAgain, type PortalAuth } from './session.js';

type Empty = z.ZodObject<Record<never, never>>;

export interface PortalInput<P, B, Q = Record<string, never>> {
  params: P;
  body: B;
  /** The parsed query string (`route.query`); empty when the route declares none. */
  query: Q;
  ctx: AppContext;
  requestId: string;
  /** For the few operations that set or clear the session cookie (setup, login, logout). */
  req: Request;
  res: Response;
}

export interface SignedInInput<P, B, Q = Record<string, never>> extends PortalInput<P, B, Q> {
  auth: PortalAuth;
}

export interface MemberInput<P, B, Q = Record<string, never>> extends SignedInInput<P, B, Q> {
  /** The institution named by the `{id}` path parameter, the caller's role in it, and its scoped data. */
  access: InstitutionAccess;
}

interface PortalRouteBase<P extends z.ZodType, B extends z.ZodType, R extends z.ZodType, Q extends z.ZodType> {
  method: HttpMethod;
  /** Relative to /portal/api, OpenAPI style: `/institutions/{id}/keys`. */
  path: `/${string}`;
  summary: string;
  params?: P;
  body?: B;
  /** Query-string parameters (filters, paging); unknown ones are refused (422). */
  query?: Q;
  response: R;
  /**
   * For operator actions on one institution (approving it, its batch, its allowance): which one,
   * so the entry also appears in that institution's audit log. Member routes need none.
   */
  auditInstitution?: (call: { params: z.output<P>; result: z.input<R> }) => string | null;
}

type Out<R extends z.ZodType> = Promise<z.input<R>>;

/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * Who may call: `none` (setup, login), `session` (any signed-in account), `operator`, or
 * `member` (an active member of the institution in `{id}` with one of `roles`).
 */
export type PortalRoute<P extends z.ZodType = any, B extends z.ZodType = any, R extends z.ZodType = any, Q extends z.ZodType = any> = PortalRouteBase<
  P,
  B,
  R,
  Q
> &
  (
    | { access: 'none'; handler: (input: PortalInput<z.output<P>, z.output<B>, z.output<Q>>) => Out<R> }
    | { access: 'session' | 'operator'; handler: (input: SignedInInput<z.output<P>, z.output<B>, z.output<Q>>) => Out<R> }
    | { access: 'member'; roles: readonly MembershipRole[]; handler: (input: MemberInput<z.output<P>, z.output<B>, z.output<Q>>) => Out<R> }
  );
/* eslint-enable @typescript-eslint/no-explicit-any */

export function definePortalRoute<P extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType, Q extends z.ZodType = Empty>(
  route: PortalRoute<P, B, R, Q>,
): PortalRoute<P, B, R, Q> {
  return route;
}

const strictEmpty = z.strictObject({});

const jsonBody = express.json({ limit: '100kb', type: ['application/json', 'application/*+json'] });

/**
 * Mounts portal operations with one fixed order, like the public API's mountRoutes:
 * session (401) → CSRF on non-GET (403) → params → role policy (404/403) → body (422) → handler → envelope.
 */
export function mountPortalRoutes(router: Router, ctx: AppContext, routes: readonly PortalRoute[]): void {
  for (const route of routes) {
    const chain: RequestHandler[] = [
      (req, res, next) => {
        req.routePattern = `/portal/api${route.path}`;
        // Answers carry session data (a CSRF token, keys): never cached.
        res.set('Cache-Control', 'no-store');
        next();
      },
    ];
    if (route.method !== 'get' && route.method !== 'delete') chain.push(jsonBody);
    chain.push(async (req, res) => {
      const common = { ctx, req, res, requestId: req.requestId };
      // Query and body are read only after the caller is known and allowed: 401/403 before 422.
      const input = () => ({
        query: parseInput(route.query ?? strictEmpty, req.query ?? {}),
        body: parseInput(route.body ?? strictEmpty, req.body ?? {}),
      });
      let data: unknown;
      if (route.access === 'none') {
        const params = parseInput(route.params ?? strictEmpty, req.params);
        data = await route.handler({ ...common, params, ...input() });
      } else {
        const auth = await findSession(ctx.db, req);
        if (!auth) throw signInAgain();
        requireCsrf(req, auth);
        const params = parseInput(route.params ?? strictEmpty, req.params) as Record<string, unknown>;
        let institutionId: string | null;
        if (route.access === 'member') {
          if (typeof params.id !== 'string') throw new Error(`${route.path} has no {id} institution parameter`);
          const access = await requireMember(ctx.db, auth, params.id, route.roles);
          institutionId = access.institution.id;
          data = await route.handler({ ...common, params, ...input(), auth, access });
        } else {
          if (route.access === 'operator') requireOperator(auth);
          data = await route.handler({ ...common, params, ...input(), auth });
          institutionId = route.auditInstitution?.({ params, result: data }) ?? null;
        }
        if (route.method !== 'get') {
          await recordPortalAction(ctx, {
            auth,
            institutionId,
            method: route.method,
            path: route.path,
            summary: route.summary,
            params,
            result: data,
            ip: req.ip ?? null,
            requestId: req.requestId,
          });
        }
      }
      if (ctx.validateResponses) {
        const checked = route.response.safeParse(data);
        if (!checked.success) throw new Error(`response of portal ${route.method} ${route.path} does not match its schema: ${checked.error.message}`);
      }
      res.status(200).json({ success: true, data });
    });
    router[route.method](expressPath(route.path), ...chain);
  }
}
