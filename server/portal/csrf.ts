import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '../errors.js';
import { type PortalAuth } from './session.js';
import { hashToken } from '../crypto/tokens.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every state-changing request of a signed-in session must echo the session's CSRF token in
 * `X-CSRF-Token`. Another site can make the browser send the cookie (SameSite=Strict already
 * stops most of that) but cannot read GET /portal/api/session to learn the token.
 */
export function requireCsrf(req: Request, auth: PortalAuth): void {
  if (SAFE_METHODS.has(req.method)) return;
  const presented = req.get('x-csrf-token');
  // Hashes have the same length whatever was sent, so the comparison is constant-time.
  const ok =
    typeof presented === 'string' &&
    presented.length > 0 &&
    timingSafeEqual(Buffer.from(hashToken(presented), 'hex'), Buffer.from(auth.session.csrf_token_hash, 'hex'));
  if (!ok) throw new AppError('forbidden', 'Missing or wrong X-CSRF-Token header; reload the portal.');
}
