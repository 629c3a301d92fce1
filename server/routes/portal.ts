import express, { type Router } from 'express';
import type { AppContext } from '../context.js';
import { mountPortalOperations, mountRoutes } from '../http/mount.js';
import { institutionOperations, lazyOpenApiDocument } from '../http/openapi.js';
import type { AnyRoute } from '../http/route.js';
import { apiRoutes } from './index.js';

/**
 * The portal's API, mounted at /portal/api with the session cookie and the CSRF header: its own
 * operations (`routes`, the registry's `/portal/api` list), and every institution operation of
 * /v1, the very same declarations, under /institutions/{institution}.
 */
export function createPortalRouter(ctx: AppContext, routes: readonly AnyRoute[]): Router {
  const router = express.Router();
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
