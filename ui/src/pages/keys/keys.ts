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

/** The specification's bounds for a key's per-minute limit. */
export const RATE_LIMIT = { min: 10, max: 6000, default: 600 } as const;
/** Active keys an institution may hold at once. */
export const MAX_ACTIVE_KEYS = 25;

export const keysQueryKey = (institutionId: string) => ['institution', institutionId, 'keys'] as const;
