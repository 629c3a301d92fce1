import { effectiveKeyStatus, type RolledApiKey } from '../commands/institutions/api-keys.js';
import { iso } from './common.js';
import type { InstitutionRow } from '../models/institution.js';
import type { ApiKeyRow } from '../models/api-key.js';

/** A key as lists show it: never the key, never its hash. An active key past its expiry is `expired`. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    key_id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: row.scopes,
    rate_limit_per_min: row.rate_limit_per_min,
    environment: row.environment,
    status: effectiveKeyStatus(row),
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    last_used_ip: row.last_used_ip ?? null,
    revoked_at: iso(row.revoked_at),
    expires_at: iso(row.expires_at ?? null),
    replaced_by: row.replaced_by ?? null,
    replaces: row.replaces ?? null,
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
    environment: row.environment,
    expires_at: iso(row.expires_at ?? null),
  };
}

/** The answer to a roll: the new key, shown this once, and the old key as it now stands (ending at its `expires_at`). */
export function presentRolledApiKey({ row, key, old }: RolledApiKey) {
  return { ...presentCreatedApiKey(row, key), replaces: old.id, old_key: presentApiKey(old) };
}

/** GET /me. */
export function presentCallingKey(auth: { key: ApiKeyRow; institution: Pick<InstitutionRow, 'id' | 'name'> }, requestId: string) {
  return {
    key_id: auth.key.id,
    name: auth.key.name,
    environment: auth.key.environment,
    // A sandbox key's institution is its sandbox, with the sandbox's own id (docs/decisions/sandbox.md).
    institution: { id: auth.institution.id, name: auth.institution.name },
    scopes: auth.key.scopes,
    rate_limit_per_min: auth.key.rate_limit_per_min,
    request_id: requestId,
  };
}
