import type { MAX_ACTIVE_KEYS as SERVER_MAX_ACTIVE_KEYS } from '../../../../server/commands/api-keys';

/** The portal's own key operations have no /v1 schema, so their types are written here. */
export interface ApiKey {
  key_id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: string[];
  rate_limit_per_min: number;
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey {
  key_id: string;
  key: string;
  name: string;
  scopes: string[];
  rate_limit_per_min: number;
  prefix: string;
  last4: string;
}

/** The bounds of a key's per-minute limit (docs/api.md#rate-limits). */
export const RATE_LIMIT = { min: 10, max: 6000, default: 600 } as const;
/**
 * Active keys an institution may hold at once. The server's constant is in a command module
 * (database code), so the value is repeated here and its type pins it to the server's.
 */
export const MAX_ACTIVE_KEYS: typeof SERVER_MAX_ACTIVE_KEYS = 25;

export const keysQueryKey = (institutionId: string) => ['institution', institutionId, 'keys'] as const;
