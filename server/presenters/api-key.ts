import { iso } from './common.js';
import type { InstitutionRow } from '../models/institution.js';
import type { ApiKeyRow } from '../models/api-key.js';

/** A key as lists show it: never the key, never its hash. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    key_id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: row.scopes,
    rate_limit_per_min: row.rate_limit_per_min,
    status: row.status,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

/** The one response that carries the full key: the answer to its creation. */
export function presentCreatedApiKey(row: ApiKeyRow, key: string) {
  return {
    key_id: row.id,
    key,
    name: row.name,
    scopes: row.scopes,
    rate_limit_per_min: row.rate_limit_per_min,
    prefix: row.prefix,
    last4: row.last4,
  };
}

/** GET /me. */
export function presentCallingKey(auth: { key: ApiKeyRow; institution: Pick<InstitutionRow, 'id' | 'name'> }, requestId: string) {
  return {
    key_id: auth.key.id,
    name: auth.key.name,
    environment: 'live' as const,
    institution: { id: auth.institution.id, name: auth.institution.name },
    scopes: auth.key.scopes,
    rate_limit_per_min: auth.key.rate_limit_per_min,
    request_id: requestId,
  };
}
