import type { NextFunction, Request, Response } from 'express';
import { unredactedChild, type Logger } from '../logger.js';

/** Reads that succeed: the bulk of an integration's traffic (polling `/v1/events`, listing). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * One line per request: id, key, route pattern, path, status, time. Query strings and headers
 * are left out on purpose: a filter such as `?email=` may hold a personal email.
 * Levels: server errors `error`; writes and every refused request `info`; reads that succeed
 * `debug`, so the default log holds every change and every failure without a line per poll
 * (`LOG_LEVEL=debug` shows them all). A line per read cost a third or more of a read's
 * throughput, and a district's polling would flood the system journal
 * (docs/decisions/authenticated-hot-path.md).
 */
export function requestLog(logger: Logger) {
  // The line below names every field and none is secret, so it skips the redaction pass.
  const lines = unredactedChild(logger);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (res.locals.logged) return next(); // a sub-app (the docs explorer) may pass the request through again
    res.locals.logged = true;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = res.statusCode;
      const line = {
        request_id: req.requestId,
        key_id: req.auth?.kind === 'key' ? req.auth.key.id : undefined,
        method: req.method,
        route: req.routePattern ?? null,
        path: req.originalUrl.split('?')[0],
        status,
        ms: Math.round(ms * 10) / 10,
      };
      if (status >= 500) lines.error(line, 'request');
      else if (status < 400 && READS.has(req.method)) lines.debug(line, 'request');
      else lines.info(line, 'request');
    });
    next();
  };
}
