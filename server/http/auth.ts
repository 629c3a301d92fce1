import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import type { ApiKeyRow } from '../models/api-key.js';
import type { InstitutionRow } from '../models/institution.js';
import { keyCacheFor } from './key-cache.js';
import { missingScopes, type Scope } from '../policies/scopes.js';
import { hashToken } from '../crypto/tokens.js';

/** Live keys `cb_live_…`, sandbox keys `cb_test_…` (docs/decisions/sandbox.md). */
export const API_KEY_PATTERN = /^cb_(?:live|test)_[A-Za-z0-9]{32}$/;

export interface KeyAuth {
  kind: 'key';
  key: ApiKeyRow;
  /** The institution the key acts on: its sandbox for a sandbox key (`key.environment`). */
  institution: InstitutionRow;
  tenant: Tenant;
}

const LAST_USED_RESOLUTION_MS = 60_000;

const invalidKey = () => new AppError('invalid_api_key', 'The API key is not valid.');

/**
 * Bearer key authentication followed by the institution's state, in the order of docs/api.md#order-of-checks.
 * The key and its institution come from a cache that is exact (server/http/key-cache.ts): a key
 * revoked or an institution suspended by the CLI fails on the next request.
 */
export function authenticateKey(db: Database) {
  const keys = keyCacheFor(db);
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new AppError('unauthorized', 'Send the API key as "Authorization: Bearer <key>".');
    const presented = match[1];
    if (!API_KEY_PATTERN.test(presented)) throw invalidKey();

    const hash = hashToken(presented);
    const found = await keys.find(hash);
    // The lookup is by hash, so its timing says nothing about the key; the comparison is constant-time anyway.
    if (!found || !timingSafeEqual(Buffer.from(found.key.key_hash, 'hex'), Buffer.from(hash, 'hex'))) throw invalidKey();
    const { key, institution, sandbox } = found;
    if (key.status !== 'active') throw invalidKey();
    // Checked on every request against the (cached) row, so a key fails on its first request past `expires_at`.
    if (key.expires_at && key.expires_at.getTime() <= Date.now()) throw invalidKey();

    if (!institution || institution.status === 'suspended') throw invalidKey();
    if (institution.status !== 'approved') {
      throw new AppError('institution_not_approved', 'This institution has not been approved by the appliance operator yet.');
    }

    // A sandbox key passes the live institution's checks above, then acts on its sandbox only.
    const actsOn = key.environment === 'sandbox' ? sandbox : institution;
    if (!actsOn) throw invalidKey();
    req.auth = { kind: 'key', key, institution: actsOn, tenant: new Tenant(db, actsOn.id) };
    req.rateLimitSubject = { id: key.id, limit: key.rate_limit_per_min };
    recordUse(db, key, req);
    next();
  };
}

/** When this process last wrote each key's `last_used_at`: the cached row keeps its old value until reread. */
const useRecordedAt = new Map<string, number>();

/**
 * `last_used_at` and the caller's address (`req.ip`: the connection's, or the client's behind a `TRUST_PROXY` proxy) at
 * one-minute resolution, so a busy key costs one write a minute, not one per request.
 */
function recordUse(db: Database, key: ApiKeyRow, req: Request): void {
  const now = Date.now();
  if (key.last_used_at && now - key.last_used_at.getTime() < LAST_USED_RESOLUTION_MS) return;
  const recorded = useRecordedAt.get(key.id);
  if (recorded !== undefined && now - recorded < LAST_USED_RESOLUTION_MS) return;
  if (useRecordedAt.size >= 10_000) useRecordedAt.clear();
  useRecordedAt.set(key.id, now);
  // Read now: once the response is sent and the socket closed, `req.ip` is undefined.
  const address = req.ip ?? null;
  // In a (queued) transaction like every other write, never blocking a pool thread on the lock.
  db.sequelize
    .transaction((transaction) => db.models.ApiKey.update({ last_used_at: new Date(now), last_used_ip: address }, { where: { id: key.id }, transaction }))
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
