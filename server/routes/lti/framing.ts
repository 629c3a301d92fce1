import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { frameAncestorsFor } from '../../commands/lti/frame.js';
import type { Database } from '../../db/index.js';

/**
 * The learner page (`/launch`) after an LTI launch names its platform (`?lti=`, frame.ts): the
 * page may then be framed by that platform's origins, and by nothing else. Without the parameter,
 * or with an unknown platform, it stays 'self' only. Runs before helmet, which reads framingOf.
 */
export function ltiFraming(db: Database) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const platformId = typeof req.query.lti === 'string' && req.query.lti.length <= 40 ? req.query.lti : undefined;
    if (platformId) {
      const sources = await frameAncestorsFor(db, platformId);
      if (sources.length > 1) res.locals.frameAncestors = sources.join(' ');
    }
    next();
  };
}

/** The `frame-ancestors` sources of this response: the platform's when ltiFraming allowed them, else 'self'. */
export function framingOf(res: ServerResponse): string {
  const allowed = (res as Partial<Response>).locals?.frameAncestors;
  return typeof allowed === 'string' ? allowed : "'self'";
}

/** True when this response may be framed by a platform: X-Frame-Options (SAMEORIGIN) must then go, or older browsers refuse the frame. */
export const framedByPlatform = (res: Response): boolean => typeof res.locals.frameAncestors === 'string';
