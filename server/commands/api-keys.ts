import type { Database } from '../db/index.js';
import type { Tenant } from '../db/tenant.js';
import { AppError, notFound } from '../errors.js';
import { parseInput } from '../validation/parse.js';
import { z } from '../validation/zod.js';
import { newId, randomToken } from '../ids.js';
import type { ApiKeyRow } from '../models/api-key.js';
import { assertCanGrant, parseScopes, type KeyGranterRole } from '../policies/scopes.js';
import { hashToken } from '../crypto/tokens.js';

export const MAX_ACTIVE_KEYS = 25;
export const KEY_PREFIX = 'cb_live_';

export const apiKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.string()).min(1),
  rate_limit_per_min: z.number().int().min(10).max(6000).default(600),
  created_by: z.string().nullable().default(null),
});

export interface CreatedApiKey {
  row: ApiKeyRow;
  /** The only time the full key exists outside the caller's hands. */
  key: string;
}

/**
 * Creates a live key for the tenant's institution; only its SHA-256 hash is stored. A key made
 * by a portal member holds only scopes that member's role may grant (`grantedBy`); the CLI is
 * the appliance's operator and may grant any.
 */
export async function createApiKey(tenant: Tenant, input: z.input<typeof apiKeyInput>, options: { grantedBy?: KeyGranterRole } = {}): Promise<CreatedApiKey> {
  const { name, scopes, rate_limit_per_min, created_by } = parseInput(apiKeyInput, input);
  const granted = parseScopes(scopes);
  if (options.grantedBy) assertCanGrant(options.grantedBy, granted);
  return tenant.inTransaction(async (tx) => {
    const active = await tx.apiKeys.count({ where: { status: 'active' } });
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AppError('key_limit', `An institution can hold at most ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
    }
    const key = `${KEY_PREFIX}${randomToken(32)}`;
    const row = await tx.apiKeys.create({
      id: newId('key'),
      name,
      key_hash: hashToken(key),
      prefix: key.slice(0, KEY_PREFIX.length + 4),
      last4: key.slice(-4),
      scopes: granted,
      rate_limit_per_min,
      status: 'active',
      created_by,
      last_used_at: null,
      revoked_at: null,
    });
    return { row, key };
  });
}

export async function revokeApiKey(tenant: Tenant, keyId: string): Promise<ApiKeyRow> {
  return tenant.inTransaction(async (tx) => {
    const row = await tx.apiKeys.findById(keyId);
    if (!row) throw notFound('API key');
    if (row.status !== 'revoked') await row.update({ status: 'revoked', revoked_at: new Date() }, { transaction: tx.tx });
    return row;
  });
}

export const apiKeyUpdateInput = z.strictObject({
  name: apiKeyInput.shape.name.optional(),
  rate_limit_per_min: z.number().int().min(10).max(6000).optional(),
});

/** Renames a key or changes its rate limit; scopes are fixed at creation. A revoked key cannot be edited. */
export async function updateApiKey(tenant: Tenant, keyId: string, input: z.input<typeof apiKeyUpdateInput>): Promise<ApiKeyRow> {
  const changes = parseInput(apiKeyUpdateInput, input);
  return tenant.inTransaction(async (tx) => {
    const row = await tx.apiKeys.findById(keyId);
    if (!row) throw notFound('API key');
    if (row.status === 'revoked') throw new AppError('conflict', 'A revoked key cannot be edited.');
    const values: Partial<Pick<ApiKeyRow, 'name' | 'rate_limit_per_min'>> = {};
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.rate_limit_per_min !== undefined) values.rate_limit_per_min = changes.rate_limit_per_min;
    if (Object.keys(values).length > 0) await row.update(values, { transaction: tx.tx });
    return row;
  });
}

export function listApiKeys(tenant: Tenant): Promise<ApiKeyRow[]> {
  return tenant.apiKeys.findAll({ order: [['created_at', 'ASC']] });
}

/** The institution a key belongs to, for callers that hold only the key id (the CLI). */
export async function institutionOfKey(db: Database, keyId: string): Promise<string> {
  const row = await db.models.ApiKey.findByPk(keyId, { attributes: ['institution_id'] });
  if (!row) throw notFound('API key');
  return row.institution_id;
}
