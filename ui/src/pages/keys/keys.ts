import type { z } from 'zod';
import type { MAX_ACTIVE_KEYS as SERVER_MAX_ACTIVE_KEYS } from '../../../../server/commands/institutions/api-keys';
import type { apiKeySchema, createdApiKeySchema, rolledApiKeySchema } from '../../../../server/routes/keys/schema';

/** As the portal's key operations answer (type-only imports of the server's schemas in server/routes/keys/keys.ts). */
export type ApiKey = z.input<typeof apiKeySchema>;

/** The answer of creating a key: the only one that carries the full `key`. */
export type CreatedApiKey = z.input<typeof createdApiKeySchema>;

/** The answer of rolling a key: the new key (shown once) and the old key as it now stands. */
export type RolledApiKey = z.input<typeof rolledApiKeySchema>;

/** A roll's overlap in hours: how long the old key keeps working beside the new one (server/commands/institutions/api-keys.ts). */
export const ROLL_OVERLAP = { max: 168, default: 24 } as const;

/** The bounds of a key's per-minute limit (docs/api.md#rate-limits). */
export const RATE_LIMIT = { min: 10, max: 6000, default: 600 } as const;
/**
 * Active keys an institution may hold at once. The server's constant is in a command module
 * (database code), so the value is repeated here and its type pins it to the server's.
 */
export const MAX_ACTIVE_KEYS: typeof SERVER_MAX_ACTIVE_KEYS = 25;

export const keysQueryKey = (institutionId: string) => ['institution', institutionId, 'keys'] as const;
