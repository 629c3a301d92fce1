import fs from 'node:fs';
import path from 'node:path';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppContext } from './context.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { apiReferencePage } from './http/openapi.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import { mountRoutes } from './http/mount.js';
import { meterUnrouted } from './http/unrouted.js';
import { portalDir } from './paths.js';
import { LoginThrottle } from './portal/login-throttle.js';
import { createPortalRouter } from './routes/portal.js';
import { framingOf, ltiFraming } from './routes/lti/framing.js';
import { apiDocument, routeRegistry, workerRoutes } from './routes/index.js';
import { trustProxySetting } from './http/trust-proxy.js';

/** The whole HTTP surface: API under /v1 (with its reference), the portal at /. */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  // Behind a reverse proxy the operator names (TRUST_PROXY): req.ip and req.secure are the
  // client's, for sign-in throttling, key last-use addresses, audit entries and Secure cookies.
  app.set('trust proxy', trustProxySetting(ctx.config.trustProxy));

  app.use(requestId);
  app.use((req, _res, next) => {
    req.log = ctx.logger;
    next();
  });
  app.use(requestLog(ctx.logger));
  const routes = routeRegistry(new LoginThrottle());
  // The learner page opened by an LTI launch may be framed by that launch's platform (docs/lms.md#inside-the-lms-frame).
  app.get('/launch', ltiFraming(ctx.db));
  app.use(
    helmet({
      // Plain HTTP on localhost or the campus LAN: no HSTS, no upgrade of insecure requests.
      strictTransportSecurity: false,
      contentSecurityPolicy: {
        directives: {
          'default-src': ["'self'"],
          'script-src': ["'self'"],
          // read-excel-file unzips a large .xlsx in Web Workers made from blob: URLs the portal's own
          // script creates; without this a big roster hangs. A worker has no DOM, and page scripts stay 'self'.
          'worker-src': ["'self'", 'blob:'],
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:'],
          'connect-src': ["'self'"],
          // 'self' but on the learner page of an LTI launch (ltiFraming): its platform's origins too.
          'frame-ancestors': [(_req, res) => framingOf(res)],
          'upgrade-insecure-requests': null,
        },
      },
    }),
  );

  // The reference page renders the document (declared at /v1/openapi.json) at its first request:
  // most appliances never open it, and with its page it is several megabytes kept for the process's life.
  const v1 = express.Router();
  v1.use('/docs', apiReferencePage(apiDocument, 'CampusBridge API reference'));
  mountRoutes(v1, ctx, routes['/v1'], '/v1');
  const unrouted = meterUnrouted(ctx);
  v1.use(unrouted.request, notFoundHandler);
  v1.use(unrouted.error);
  app.use('/v1', v1);

  // The portal's API (session cookie + CSRF header), before the static portal so no file can shadow it.
  app.use('/portal/api', createPortalRouter(ctx, routes['/portal/api']));

  // Pages the server renders or serves itself (no key): the LTI 1.3 tool (docs/lms.md#lti-13),
  // guardian invitation links, and the learner page a launch opens.
  const pages = express.Router();
  mountRoutes(pages, ctx, routes['/'], '/');
  app.use(pages);

  const portal = portalDir();
  if (fs.existsSync(path.join(portal, 'index.html'))) app.use(express.static(portal, { index: 'index.html', maxAge: '1h' }));
  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return app;
}

/**
 * A worker process's HTTP surface (`--role worker`, docs/decisions/process-roles.md): `/healthz`
 * for the service manager and nothing else, so a misrouted client learns where it is.
 */
export function createWorkerApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId);
  app.use(requestLog(ctx.logger));
  const health = express.Router();
  mountRoutes(health, ctx, workerRoutes, '/');
  app.use(health);
  app.use((_req, res) => {
    res.status(404).json({
      success: false,
      error: 'not_found',
      message: 'This is a worker process (--role worker): it serves only /healthz. The API is on the api processes.',
    });
  });
  app.use(errorHandler(ctx.logger));
  return app;
}
