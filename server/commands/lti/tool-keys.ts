import type { CryptoKey, JWK } from 'jose';
import { loadJose } from './jose.js';
import { Op, type Transaction } from 'sequelize';
import type { Database } from '../../db/index.js';
import { newId, randomToken } from '../../ids.js';
import type { LtiToolKeyRow } from '../../models/lti.js';

/** Binds a sealed private key to its column (field-crypto's context). */
const SEAL_CONTEXT = 'lti_tool_keys.private_key';
export const TOOL_KEY_ALG = 'RS256';
/** How long a retired key stays in the key set by default: platforms cache key sets for hours, some for a day. */
export const DEFAULT_KEY_GRACE_SECONDS = 7 * 24 * 60 * 60;

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

async function createToolKey(db: Database, now: Date, transaction?: Transaction): Promise<LtiToolKeyRow> {
  const { exportJWK, exportPKCS8, generateKeyPair } = await loadJose();
  const { privateKey, publicKey } = await generateKeyPair(TOOL_KEY_ALG, { modulusLength: 2048, extractable: true });
  const kid = randomToken(20);
  const jwk = await exportJWK(publicKey);
  return db.models.LtiToolKey.create(
    {
      id: newId('ltk'),
      kid,
      private_key_sealed: db.fieldCrypto.encrypt(await exportPKCS8(privateKey), SEAL_CONTEXT),
      public_jwk: { ...jwk, kid, alg: TOOL_KEY_ALG, use: 'sig' },
      created_at: now,
      retired_at: null,
      drop_at: null,
    },
    { transaction },
  );
}

/** The key that signs now: the newest unretired one, made on first use. */
async function currentKeyRow(db: Database, now = new Date()): Promise<LtiToolKeyRow> {
  const row = await db.models.LtiToolKey.findOne({ where: { retired_at: null }, order: [['created_at', 'DESC']] });
  return row ?? createToolKey(db, now);
}

export async function signingKey(db: Database): Promise<SigningKey> {
  const row = await currentKeyRow(db);
  const { importPKCS8 } = await loadJose();
  return { kid: row.kid, key: await importPKCS8(db.fieldCrypto.decrypt(row.private_key_sealed, SEAL_CONTEXT), TOOL_KEY_ALG) };
}

/** The public half of the signing key, as a JWK and as PEM (for an LMS that takes a pasted key). */
export async function toolPublicKey(db: Database): Promise<{ jwk: JWK; pem: string }> {
  const row = await currentKeyRow(db);
  const { exportSPKI, importJWK } = await loadJose();
  const key = await importJWK(row.public_jwk as JWK, TOOL_KEY_ALG, { extractable: true });
  return { jwk: row.public_jwk as JWK, pem: await exportSPKI(key as CryptoKey) };
}

/** The key set served at /lti/jwks: the signing key and retired keys still in their grace period. */
export async function toolKeySet(db: Database, now = new Date()): Promise<{ keys: JWK[] }> {
  await currentKeyRow(db, now);
  const rows = await db.models.LtiToolKey.findAll({
    where: { [Op.or]: [{ drop_at: null }, { drop_at: { [Op.gt]: now } }] },
    order: [['created_at', 'DESC']],
  });
  return { keys: rows.map((row) => row.public_jwk as JWK) };
}

export interface RotatedKeys {
  kid: string;
  retired: Array<{ kid: string; drop_at: string }>;
}

/**
 * A new signing key (new kid) takes over at once; the keys it replaces stop signing but stay in
 * the key set for `graceSeconds`, so a platform that cached the old set still verifies what was
 * signed before, and fetches the new set on the first unknown kid.
 */
export function rotateToolKey(db: Database, graceSeconds = DEFAULT_KEY_GRACE_SECONDS, now = new Date()): Promise<RotatedKeys> {
  return db.sequelize.transaction(async (transaction) => {
    const current = await db.models.LtiToolKey.findAll({ where: { retired_at: null }, transaction });
    const dropAt = new Date(now.getTime() + graceSeconds * 1000);
    await db.models.LtiToolKey.update({ retired_at: now, drop_at: dropAt }, { where: { retired_at: null }, transaction });
    const created = await createToolKey(db, now, transaction);
    return { kid: created.kid, retired: current.map((row) => ({ kid: row.kid, drop_at: dropAt.toISOString() })) };
  });
}
