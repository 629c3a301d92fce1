import express, { type Router } from 'express';
import type { AppContext } from '../context.js';
import { mountPortalOperations, mountRoutes } from '../http/mount.js';
import { lazyOpenApiDocument } from '../http/openapi.js';
import type { AnyPortalRoute } from '../http/route.js';
import { accountRoutes } from '../routes/account/account.js';
import { auditRoutes } from '../routes/audit/audit.js';
import { backupRoutes } from '../routes/operator/backups.js';
import { operatorJobRoutes } from '../routes/operator/jobs.js';
import { developerRoutes } from '../routes/developers/developers.js';
import { apiRoutes } from '../routes/index.js';
import { keyRoutes } from '../routes/keys/keys.js';
import { ltiPortalRoutes } from '../routes/lti/portal.js';
import { nameRoutes } from '../routes/names/names.js';
import { operatorRoutes } from '../routes/operator/operator.js';
import { outboxRoutes } from '../routes/outbox/outbox.js';
import { onerosterRoutes } from '../routes/oneroster/oneroster.js';
import { gradebookRoutes } from '../routes/oneroster/gradebook.js';
import { gradeStandingRoutes } from '../routes/grade-standing/grade-standing.js';
import { passwordRoutes } from '../routes/account/password.js';
import { institutionAdminRoutes } from '../routes/operator/institution-admins.js';
import { operatorAccountRoutes } from '../routes/operator/accounts.js';
import { settingsRoutes } from '../routes/operator/settings.js';
import { sandboxRoutes } from '../routes/sandbox/sandbox.js';
import { statsRoutes } from '../routes/stats/stats.js';
import { webhookDebuggingPortalRoutes } from '../routes/webhooks/debugging.js';
import { LoginThrottle } from './login-throttle.js';

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
  const openApiDocument = lazyOpenApiDocument(routes, 'portal');
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
