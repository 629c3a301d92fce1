import express, { type Router } from 'express';
import type { AppContext } from '../context.js';
import { mountRoutes } from '../http/mount.js';
import type { AnyRoute } from '../http/route.js';

/**
 * The portal's API, mounted at /portal/api with the session cookie and the CSRF header: the
 * registry's `/portal/api` list, which holds the portal's own operations (its OpenAPI document
 * among them) and every institution operation of /v1, the very same declarations, which
 * mountRoutes serves to members under /institutions/{institution}.
 */
export function createPortalRouter(ctx: AppContext, routes: readonly AnyRoute[]): Router {
  const router = express.Router();
  mountRoutes(router, ctx, routes, '/portal/api');
  router.use((_req, res) => {
    res.status(404).json({ success: false, error: 'not_found', message: 'No such portal operation.' });
  });
  return router;
}
