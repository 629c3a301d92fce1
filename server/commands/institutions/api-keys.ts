import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { parseInput } from '../../validation/parse.js';
import { isoDateTime } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { newId, randomToken } from '../../ids.js';
import { KEY_ENVIRONMENTS, type ApiKeyRow, type KeyEnvironment } from '../../models/api-key.js';
import { assertCanGrant, parseScopes, type KeyGranterRole } from '../../policies/scopes.js';
import { hashToken } from '../../crypto/tokens.js';

export const MAX_ACTIVE_KEYS = 25;
/** How far ahead a key's expiry may lie: three years, past which an expiry is a typo more often than a plan. */
export const MAX_KEY_LIFETIME_DAYS = 1096;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
export const KEY_PREFIX = 'cb_live_';
/** Sandbox keys (docs/decisions/sandbox.md): the same length, so prefixes and last fours read alike. */
export const SANDBOX_KEY_PREFIX = 'cb_test_';

const prefixOf = (environment: KeyEnvironment) => (environment === 'sandbox' ? SANDBOX_KEY_PREFIX : KEY_PREFIX);

export const apiKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.string()).min(1),
  rate_limit_per_min: z.number().int().min(10).max(6000).default(600),
  created_by: z.string().nullable().default(null),
  environment: z.enum(KEY_ENVIRONMENTS).default('live').openapi({ description: "`sandbox`: a `cb_test_` key acting on the institution's sandbox." }),
  expires_at: isoDateTime
    .nullable()
    .default(null)
    .openapi({
      description: `When the key stops working (ISO 8601, in the future, at most ${MAX_KEY_LIFETIME_DAYS} days ahead); null or absent: never.`,
      example: '2027-06-30T00:00:00.000Z',
    }),
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
  const { name, scopes, rate_limit_per_min, created_by, expires_at, environment } = parseInput(apiKeyInput, input);
  const expiresAt = keyExpiry(expires_at, new Date());
  const granted = parseScopes(scopes);
  if (options.grantedBy) assertCanGrant(options.grantedBy, granted);
  return tenant.inTransaction(async (tx) => {
    const active = await tx.apiKeys.count({ where: usableKeyWhere(new Date()) });
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AppError('key_limit', `An institution can hold at most ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
    }
    const key = `${prefixOf(environment)}${randomToken(32)}`;
    const row = await tx.apiKeys.create({
      id: newId('key'),
      name,
      key_hash: hashToken(key),
      environment,
      prefix: key.slice(0, KEY_PREFIX.length + 4),
      last4: key.slice(-4),
      scopes: granted,
      rate_limit_per_min,
      status: 'active',
      created_by,
      last_used_at: null,
      revoked_at: null,
      expires_at: expiresAt,
    });
    return { row, key };
  });
}

/** A requested expiry as a date: in the future and within MAX_KEY_LIFETIME_DAYS, else 422. */
function keyExpiry(expiresAt: string | null, now: Date): Date | null {
  if (expiresAt === null) return null;
  const at = new Date(expiresAt);
  if (at.getTime() <= now.getTime()) throw validationError([{ path: 'expires_at', message: 'Must be in the future.' }]);
  if (at.getTime() - now.getTime() > MAX_KEY_LIFETIME_DAYS * DAY_MS) {
    throw validationError([{ path: 'expires_at', message: `Must be at most ${MAX_KEY_LIFETIME_DAYS} days ahead.` }]);
  }
  return at;
}

/** Keys that still authenticate at `now`: not revoked, not past their expiry. */
function usableKeyWhere(now: Date) {
  return { status: 'active' as const, [Op.or]: [{ expires_at: null }, { expires_at: { [Op.gt]: now } }] };
}

export type EffectiveKeyStatus = 'active' | 'revoked' | 'expired';

/** What a key is at `now`: an active key past its `expires_at` is `expired` (the row keeps `active`; nothing sweeps it). */
export function effectiveKeyStatus(row: Pick<ApiKeyRow, 'status' | 'expires_at'>, now = new Date()): EffectiveKeyStatus {
  if (row.status === 'active' && row.expires_at && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.status;
}

export const MAX_ROLL_OVERLAP_HOURS = 168;
export const DEFAULT_ROLL_OVERLAP_HOURS = 24;

export const rollApiKeyInput = z.strictObject({
  overlap_hours: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROLL_OVERLAP_HOURS)
    .default(DEFAULT_ROLL_OVERLAP_HOURS)
    .openapi({ description: `Hours the old key keeps working beside the new one, 0 to ${MAX_ROLL_OVERLAP_HOURS} (7 days); 0 ends it at once.` }),
});

export interface RolledApiKey extends CreatedApiKey {
  /** The rolled key, now ending at its `expires_at` and naming its replacement. */
  old: ApiKeyRow;
}

/**
 * Rolls a key: a new key with the old one's name, scopes, rate limit and lifetime (an expiring
 * key's replacement expires as long after its creation), while the old key keeps working
 * for `overlap_hours` (never past an expiry it already had) and names its replacement. A key is
 * rolled once: rolling a revoked, expired or already rolled key is 409 conflict. The roll does
 * not count against MAX_ACTIVE_KEYS: the old key is on its way out (docs/decisions/api-key-lifecycle.md).
 * The new key belongs to whoever rolled it (`rolledBy`), who alone was shown it: removing them from
 * the team revokes it, as it revokes the keys they created. A roll from the CLI keeps the creator.
 */
export async function rollApiKey(
  tenant: Tenant,
  keyId: string,
  input: z.input<typeof rollApiKeyInput> = {},
  options: { grantedBy?: KeyGranterRole; rolledBy?: string } = {},
): Promise<RolledApiKey> {
  const { overlap_hours } = parseInput(rollApiKeyInput, input);
  return tenant.inTransaction(async (tx) => {
    const now = new Date();
    const old = await tx.apiKeys.findById(keyId);
    if (!old) throw notFound('API key');
    const status = effectiveKeyStatus(old, now);
    if (status !== 'active') throw new AppError('conflict', `A${status === 'expired' ? 'n' : ''} ${status} key cannot be rolled; create a new key.`);
    if (old.replaced_by) throw new AppError('conflict', 'This key has already been rolled; roll the key that replaced it.');
    if (options.grantedBy) assertCanGrant(options.grantedBy, parseScopes(old.scopes));

    const key = `${prefixOf(old.environment)}${randomToken(32)}`;
    const id = newId('key');
    const overlapEnd = new Date(now.getTime() + overlap_hours * HOUR_MS);
    const oldEnd = old.expires_at && old.expires_at.getTime() < overlapEnd.getTime() ? old.expires_at : overlapEnd;
    // Claimed by a conditional write, so of two rolls racing on the same key one finds it taken.
    const claimed = await tx.apiKeys.update({ replaced_by: id, expires_at: oldEnd }, { id: old.id, status: 'active', replaced_by: null });
    if (claimed !== 1) throw new AppError('conflict', 'This key has already been rolled; roll the key that replaced it.');
    const row = await tx.apiKeys.create({
      id,
      name: old.name,
      key_hash: hashToken(key),
      environment: old.environment,
      prefix: key.slice(0, KEY_PREFIX.length + 4),
      last4: key.slice(-4),
      scopes: old.scopes,
      rate_limit_per_min: old.rate_limit_per_min,
      status: 'active',
      created_by: options.rolledBy ?? old.created_by,
      last_used_at: null,
      revoked_at: null,
      expires_at: old.expires_at ? new Date(now.getTime() + (old.expires_at.getTime() - old.created_at.getTime())) : null,
      replaces: old.id,
    });
    await old.reload({ transaction: tx.tx });
    return { row, key, old };
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
