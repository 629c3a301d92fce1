import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import type { PortalAccountRow } from '../models/portal-account.js';
import type { PortalSessionRow } from '../models/portal-session.js';
import { hashToken } from '../crypto/tokens.js';

export const PORTAL_COOKIE = 'cb_portal';
/**
 * A session ends 2 hours after its last request (a portal left open over lunch asks again) and
 * 12 hours after sign-in whatever happens (one working day), so a stolen cookie is short-lived.
 */
export const IDLE_TIMEOUT_MS = 2 * 60 * 60 * 1000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` is written at most once a minute, not on every request. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
const TOKEN_PATTERN = /^[A-Za-z0-9]{43}$/;

export interface PortalAuth {
  session: PortalSessionRow;
  account: PortalAccountRow;
  /** Returned by GET /portal/api/session; every non-GET request sends it back in `X-CSRF-Token`. */
  csrfToken: string;
}

/**
 * The CSRF token is derived from the cookie token, so it can be handed out again on every
 * GET /session without being stored; the table keeps only its hash, to check it against.
 */
const csrfTokenOf = (token: string) => createHmac('sha256', token).update('cb_portal csrf').digest('base64url');

export const signInAgain = () => new AppError('unauthorized', 'Sign in to the portal.');

function readCookie(req: Request, name: string): string | null {
  const header = req.get('cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    return part.slice(at + 1).trim();
  }
  return null;
}

function cookieOptions(req: Request) {
  // Secure only over https: the appliance usually runs on plain HTTP on localhost or the campus LAN.
  return { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: req.secure };
}

/** Signs an account in: a new session (never a reused one, against fixation) and its cookie. */
export async function startSession(db: Database, req: Request, res: Response, account: PortalAccountRow): Promise<PortalAuth> {
  await destroySession(db, req); // the cookie is overwritten below
  const token = randomToken(43);
  const csrfToken = csrfTokenOf(token);
  const now = new Date();
  const session = await db.sequelize.transaction((transaction) =>
    db.models.PortalSession.create(
      {
        id: newId('psess'),
        account_id: account.id,
        token_hash: hashToken(token),
        csrf_token_hash: hashToken(csrfToken),
        expires_at: new Date(now.getTime() + ABSOLUTE_TIMEOUT_MS),
        last_seen_at: now,
        created_at: now,
      },
      { transaction },
    ),
  );
  res.cookie(PORTAL_COOKIE, token, { ...cookieOptions(req), maxAge: ABSOLUTE_TIMEOUT_MS });
  return { session, account, csrfToken };
}

/**
 * The caller's session, or null: no cookie, an unknown token, past its absolute or idle end, or
 * an account that is no longer active. Nothing is cached, so suspending an account signs it out.
 */
export async function findSession(db: Database, req: Request): Promise<PortalAuth | null> {
  const token = readCookie(req, PORTAL_COOKIE);
  if (!token || !TOKEN_PATTERN.test(token)) return null;
  const now = Date.now();
  const session = await db.models.PortalSession.findOne({
    where: {
      token_hash: hashToken(token),
      expires_at: { [Op.gt]: new Date(now) },
      last_seen_at: { [Op.gt]: new Date(now - IDLE_TIMEOUT_MS) },
    },
  });
  if (!session) return null;
  const account = await db.models.PortalAccount.findByPk(session.account_id);
  if (!account || account.status !== 'active') return null;
  if (now - session.last_seen_at.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await db.sequelize.transaction((transaction) => session.update({ last_seen_at: new Date(now) }, { transaction }));
  }
  return { session, account, csrfToken: csrfTokenOf(token) };
}

async function destroySession(db: Database, req: Request): Promise<void> {
  const token = readCookie(req, PORTAL_COOKIE);
  if (!token || !TOKEN_PATTERN.test(token)) return;
  await db.sequelize.transaction((transaction) => db.models.PortalSession.destroy({ where: { token_hash: hashToken(token) }, transaction }));
}

/** Signs out: the session row goes (if any) and the cookie is cleared. */
export async function endSession(db: Database, req: Request, res: Response): Promise<void> {
  await destroySession(db, req);
  res.clearCookie(PORTAL_COOKIE, cookieOptions(req));
}
