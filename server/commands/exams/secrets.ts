import type { Tenant, TenantTx } from '../../db/tenant.js';
import { AppError } from '../../errors.js';

/** Column context of the sealed key: a value copied to another column does not decrypt. */
const CONTEXT = 'exam_secrets.hidden_key';

const noSecret = () => new AppError('no_secret', 'No hidden-tests key is stored for this exam.');

/** Stores (or replaces) the 32-byte hidden-tests key, sealed under the master key. */
export async function storeExamKey(tx: TenantTx, examId: string, key: Buffer): Promise<void> {
  const sealed = tx.fieldCrypto.encrypt(key.toString('base64'), `${CONTEXT}:${examId}`);
  const existing = await tx.examSecrets.findOne({ where: { exam_id: examId } });
  if (existing) await existing.update({ key_sealed: sealed }, { transaction: tx.tx });
  else await tx.examSecrets.create({ exam_id: examId, key_sealed: sealed });
}

/** When the key was stored, or null. */
export async function examKeyStoredAt(tenant: Tenant, examId: string): Promise<Date | null> {
  const row = await tenant.examSecrets.findOne({ attributes: ['updated_at'], where: { exam_id: examId } });
  return row ? row.updated_at : null;
}

/** The key as base64; `404 no_secret` when none is stored. Callers decide who may read it. */
export async function readExamKey(tenant: Tenant, examId: string): Promise<string> {
  const row = await tenant.examSecrets.findOne({ where: { exam_id: examId } });
  if (!row) throw noSecret();
  return tenant.fieldCrypto.decrypt(row.key_sealed, `${CONTEXT}:${examId}`);
}
