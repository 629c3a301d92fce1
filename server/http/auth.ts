import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { InstitutionRow } from '../models/institution.js';
import { missingScopes, type Scope } from '../policies/scopes.js';
import { hashToken } from '../crypto/tokens.js';

export const API_KEY_PATTERN = /^cb_live_[A-Za-z0-9]{32}$/;

export interface KeyAuth {
  kind: 'key';
  key: ApiKeyRow;
  institution: InstitutionRow;
  tenant: Tenant;
}

const LAST_USED_RESOLUTION_MS = 60_000;

const invalidKey = () => new AppError('invalid_api_key', 'The API key is not valid.');

/**
 * Bearer key authentication followed by the institution's state, in the order of docs/api.md#order-of-checks.
 * Nothing is cached: a key revoked or an institution suspended by the CLI fails on the next request.
 */
export function authenticateKey(db: Database) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new AppError('unauthorized', 'Send the API key as "Authorization: Bearer <key>".');
    const presented = match[1];
    if (!API_KEY_PATTERN.test(presented)) throw invalidKey();

    const hash = hashToken(presented);
    // One query for key and institution: this runs on every request.
    const key = (await db.models.ApiKey.findOne({ where: { key_hash: hash }, include: [{ association: 'institution' }] })) as
      (ApiKeyRow & { institution?: InstitutionRow }) | null;
    // The lookup is by hash, so its timing says nothing about the key; the comparison is constant-time anyway.
    if (!key || !timingSafeEqual(Buffer.from(key.key_hash, 'hex'), Buffer.from(hash, 'hex'))) throw invalidKey();
    if (key.status !== 'active') throw invalidKey();

    const institution = key.institution;
    if (!institution || institution.status === 'suspended') throw invalidKey();
    if (institution.status !== 'approved') {
      throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
    }

    req.auth = { kind: 'key', key, institution, tenant: new Tenant(db, institution.id) };
    req.rateLimitSubject = { id: key.id, limit: key.rate_limit_per_min };
    recordUse(db, key, req);
    next();
  };
}

/** `last_used_at` at one-minute resolution, so a busy key costs one write a minute, not one per request. */
function recordUse(db: Database, key: ApiKeyRow, req: Request): void {
  const now = Date.now();
  if (key.last_used_at && now - key.last_used_at.getTime() < LAST_USED_RESOLUTION_MS) return;
  // In a (queued) transaction like every other write, never blocking a pool thread on the lock.
  db.sequelize
    .transaction((transaction) => db.models.ApiKey.update({ last_used_at: new Date(now) }, { where: { id: key.id }, transaction }))
    .catch((err: unknown) => {
      req.log?.warn({ err, request_id: req.requestId }, 'could not record key use');
    });
}

export function requireScope(scope: Scope | 'any') {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (scope === 'any') return next();
    const granted = req.auth?.key.scopes ?? [];
    const missing = missingScopes(granted, [scope]);
    if (missing.length > 0) {
      throw new AppError('insufficient_scope', `This operation needs the ${scope} scope.`, {
        required: [scope],
        missing,
      });
    }
    next();
  };
}
