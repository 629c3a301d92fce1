import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../context.js';
import { authenticateKey } from './auth.js';
import { rateLimit } from './rate-limit.js';

/**
 * A request under /v1 that reaches no operation (an unknown path, or one the router could not
 * decode) still answers a valid key with its rate-limit headers and counts against its window,
 * as every response to a valid key does. Any other credential changes nothing: unknown routes
 * answer `404 not_found` with or without a key.
 */
export function meterUnrouted(ctx: AppContext): { request: RequestHandler; error: ErrorRequestHandler } {
  const authenticate = authenticateKey(ctx.db);
  const limit = rateLimit(ctx.rateLimitStore);

  const meter = async (req: Request, res: Response): Promise<void> => {
    if (res.headersSent || res.getHeader('X-RateLimit-Limit') !== undefined) return;
    if (!req.auth && req.get('authorization')) {
      try {
        await authenticate(req, res, () => undefined);
      } catch {
        return; // not a valid key: the route's own answer stands
      }
    }
    if (req.auth) await limit(req, res, () => undefined); // throws 429 past the limit
  };

  return {
    request: async (req: Request, res: Response, next: NextFunction) => {
      await meter(req, res);
      next();
    },
    error: async (error: unknown, req: Request, res: Response, next: NextFunction) => {
      await meter(req, res);
      next(error);
    },
  };
}
