import express, { type Router } from 'express';
import type { AppContext } from '../context.js';
import { mountPortalOperations, mountRoutes } from '../http/mount.js';
import { institutionOperations, lazyOpenApiDocument } from '../http/openapi.js';
import type { AnyPortalRoute } from '../http/route.js';
import { accountRoutes } from './account/account.js';
import { auditRoutes } from './audit/audit.js';
import { backupRoutes } from './operator/backups.js';
import { operatorJobRoutes } from './operator/jobs.js';
import { developerRoutes } from './developers/developers.js';
import { apiRoutes } from './index.js';
import { keyRoutes } from './keys/keys.js';
import { ltiPortalRoutes } from './lti/portal.js';
import { nameRoutes } from './names/names.js';
import { operatorRoutes } from './operator/operator.js';
import { outboxRoutes } from './outbox/outbox.js';
import { onerosterRoutes } from './oneroster/oneroster.js';
import { gradebookRoutes } from './oneroster/gradebook.js';
import { gradeStandingRoutes } from './grade-standing/grade-standing.js';
import { passwordRoutes } from './account/password.js';
import { institutionAdminRoutes } from './operator/institution-admins.js';
import { operatorAccountRoutes } from './operator/accounts.js';
import { settingsRoutes } from './operator/settings.js';
import { sandboxRoutes } from './sandbox/sandbox.js';
import { statsRoutes } from './stats/stats.js';
import { webhookDebuggingPortalRoutes } from './webhooks/debugging.js';
import { LoginThrottle } from '../portal/login-throttle.js';

/** Every operation only the portal has, each declared in server/routes/<area>/. */
export function portalRoutes(throttle: LoginThrottle): AnyPortalRoute[] {
  return [
    ...accountRoutes(throttle),
    ...keyRoutes,
    ...sandboxRoutes,
    ...nameRoutes,
    ...statsRoutes,
    ...webhookDebuggingPortalRoutes,
    ...developerRoutes(throttle),
    ...auditRoutes,
    ...operatorRoutes,
    ...outboxRoutes,
    ...onerosterRoutes,
    ...gradebookRoutes,
    ...gradeStandingRoutes,
    ...ltiPortalRoutes,
    ...passwordRoutes(throttle),
    ...institutionAdminRoutes,
    ...operatorAccountRoutes,
    ...settingsRoutes,
    ...backupRoutes,
    ...operatorJobRoutes,
  ];
}

/**
 * The portal's API, mounted at /portal/api with the session cookie and the CSRF header: its own
 * operations (accounts, keys, developers, settings, outbox, audit, operator), and every
 * institution operation of /v1, the very same declarations, under /institutions/{institution}.
 */
export function createPortalRouter(ctx: AppContext): Router {
  const router = express.Router();
  const routes = portalRoutes(new LoginThrottle());
  const openApiDocument = lazyOpenApiDocument([...routes, ...institutionOperations(apiRoutes)], 'portal');
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  mountRoutes(router, ctx, routes, '/portal/api');
  mountPortalOperations(router, ctx, apiRoutes);
  router.use((_req, res) => {
    res.status(404).json({ success: false, error: 'not_found', message: 'No such portal operation.' });
  });
  return router;
}
