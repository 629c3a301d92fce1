import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { InstitutionRow } from '../models/institution.js';
import type { MembershipRole } from '../models/membership.js';
import { grants, roleScopes, type Scope } from '../policies/scopes.js';
import { recordPortalAction } from '../portal/audit-log.js';
import { requireCsrf } from '../portal/csrf.js';
import { requireMember, requireMemberOrSandbox, requireOperator } from '../portal/policies.js';
import { findSession, signInAgain, type PortalAuth } from '../portal/session.js';
import type { Tenant } from '../db/tenant.js';

/**
 * A signed-in portal member acting on one institution's data through the very operations API
 * keys call: an admin with every scope, a developer with the scopes of that role.
 */
export interface PortalCaller {
  kind: 'portal';
  portal: PortalAuth;
  role: MembershipRole;
  institution: InstitutionRow;
  tenant: Tenant;
  scopes: readonly Scope[];
}

/**
 * The portal's checks, in the order an API key's run: session (401) → CSRF on writes (403) →
 * membership of the institution in the path (404, as for one that does not exist) → institution
 * approved (403) → the role's scopes (403 forbidden, naming the scope).
 */
export function authenticatePortalCaller(ctx: AppContext, scope: Scope | 'any'): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.set('Cache-Control', 'no-store');
    const portal = await findSession(ctx.db, req);
    if (!portal) throw signInAgain();
    requireCsrf(req, portal);
    const institutionId = String(req.params.institution ?? '');
    // The institution's sandbox answers here too, for the members of its live institution.
    const access = await requireMemberOrSandbox(ctx.db, portal, institutionId, ['admin', 'developer']);
    if (access.institution.status !== 'approved') {
      throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
    }
    const scopes = roleScopes(access.role);
    if (scope !== 'any' && !grants(scopes, scope)) {
      throw new AppError('forbidden', `The ${access.role} role cannot do this: it needs the ${scope} scope.`, { required: [scope] });
    }
    req.portalCaller = { kind: 'portal', portal, role: access.role, institution: access.institution, tenant: access.tenant, scopes };
    next();
  };
}

/** A portal operation's rule: who may call it (its declaration's caller kind, server/http/route.ts). */
export type PortalAccessRule = { caller: 'anyone' | 'signed-in' | 'operator' } | { caller: 'member'; roles: readonly MembershipRole[]; sandbox?: true };

/**
 * The checks of a portal-only operation, in the same order: session (401) → CSRF on writes (403)
 * → operator (403) or membership of the institution in `{id}` with an allowed role (404/403).
 * Sets `req.portalSession`, and `req.portalAccess` for member operations.
 */
export function authenticatePortalRoute(ctx: AppContext, rule: PortalAccessRule): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    // Answers carry session data (a CSRF token, keys): never cached.
    res.set('Cache-Control', 'no-store');
    if (rule.caller === 'anyone') return next();
    const portal = await findSession(ctx.db, req);
    if (!portal) throw signInAgain();
    requireCsrf(req, portal);
    if (rule.caller === 'operator') requireOperator(portal);
    if (rule.caller === 'member') {
      const id = String(req.params.id ?? '');
      req.portalAccess = rule.sandbox ? await requireMemberOrSandbox(ctx.db, portal, id, rule.roles) : await requireMember(ctx.db, portal, id, rule.roles);
    }
    req.portalSession = portal;
    next();
  };
}

/** After a successful change made in the portal: the audit entry, as for the portal's own operations. */
export function auditPortalChange(
  ctx: AppContext,
  req: Request,
  route: { method: string; path: string; summary: string },
  params: Record<string, unknown>,
  result: unknown,
  /** A portal-only operation's institution, when it is not the caller's (operator actions). */
  institutionId: string | null = null,
) {
  const caller = req.portalCaller;
  const auth = caller?.portal ?? req.portalSession;
  if (!auth || route.method === 'get') return Promise.resolve();
  return recordPortalAction(ctx, {
    auth,
    institutionId: caller?.institution.id ?? req.portalAccess?.institution.id ?? institutionId,
    method: route.method,
    path: caller ? `/institutions/{institution}${route.path}` : route.path,
    summary: route.summary,
    params,
    result,
    ip: req.ip ?? null,
    requestId: req.requestId,
  });
}
