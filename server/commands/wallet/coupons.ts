import { randomBytes } from 'node:crypto';
import { Op, type WhereOptions } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { type Page, type PageRequest } from '../../db/paging.js';
import { AppError, notFound, validationError } from '../../errors.js';
import { emit } from '../../events/emit.js';
import type { LearnerAuth } from '../learner/auth.js';
import { newId } from '../../ids.js';
import type { CouponBatchRow, CouponCodeRow, CouponRedemptionRow } from '../../models/coupon.js';
import { loginEmails, postToWallet, walletOwner } from './merits.js';
import { personRefWhere } from '../people/people.js';

export const MAX_COUPONS_PER_BATCH = 10_000;
export const MAX_COUPON_VALUE_CENTS = 100_000;

/** 32 symbols without the look-alikes 0/O and 1/I: 5 bits each, so a byte maps without bias. */
export const COUPON_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_SYMBOLS = 16;
/** `XXXX-XXXX-XXXX-XXXX`: 16 symbols, 80 bits from the CSPRNG. */
export const COUPON_CODE_PATTERN = new RegExp(`^[${COUPON_ALPHABET}]{4}(-[${COUPON_ALPHABET}]{4}){3}$`);
const INSERT_CHUNK = 500;

const group = (symbols: string) => symbols.match(/.{4}/g)!.join('-');

export function generateCouponCode(): string {
  let symbols = '';
  for (const byte of randomBytes(CODE_SYMBOLS)) symbols += COUPON_ALPHABET[byte & 31];
  return group(symbols);
}

/**
 * What a student typed, in the stored form: case, spaces and hyphens do not matter. Anything that
 * cannot be a code is null (and answers like an unknown code).
 */
export function normalizeCouponCode(input: string): string | null {
  const symbols = input.replace(/[\s-]/g, '').toUpperCase();
  if (symbols.length !== CODE_SYMBOLS || [...symbols].some((symbol) => !COUPON_ALPHABET.includes(symbol))) return null;
  return group(symbols);
}

export type CouponStatus = 'available' | 'redeemed' | 'expired';

/** A code is expired once its batch's `expiry_date` is reached, unless it was redeemed before. */
export function couponStatus(code: CouponCodeRow, batch: CouponBatchRow, now = new Date()): CouponStatus {
  if (code.redeemed_at) return 'redeemed';
  return batch.expiry_date.getTime() <= now.getTime() ? 'expired' : 'available';
}

export async function findBatch(tenant: Tenant, id: string): Promise<CouponBatchRow> {
  const batch = await tenant.couponBatches.findById(id);
  if (!batch) throw notFound('coupon batch');
  return batch;
}

export interface NewBatch {
  name: string;
  description: string;
  total_coupons: number;
  value_cents: number;
  expiry_date: Date;
}

/** POST /coupons/batches: a `pending` batch, without codes until the operator approves it. */
export function createBatch(tenant: Tenant, input: NewBatch, now = new Date()): Promise<CouponBatchRow> {
  if (input.expiry_date.getTime() <= now.getTime()) {
    throw validationError([{ path: 'expiry_date', message: 'Must be in the future.' }]);
  }
  return tenant.inTransaction((tx) =>
    tx.couponBatches.create({
      id: newId('cpb'),
      name: input.name,
      description: input.description,
      total_coupons: input.total_coupons,
      value_cents: input.value_cents,
      expiry_date: input.expiry_date,
      status: 'pending',
      decided_at: null,
    }),
  );
}

export function listBatches(tenant: Tenant, request: PageRequest): Promise<Page<CouponBatchRow>> {
  return tenant.couponBatches.page(
    {
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    request,
  );
}

export interface BatchDetail {
  batch: CouponBatchRow;
  /** Null until the batch is approved: codes are shown only then. */
  codes: CouponCodeRow[] | null;
}

export async function getBatchDetail(tenant: Tenant, id: string): Promise<BatchDetail> {
  const batch = await findBatch(tenant, id);
  if (batch.status !== 'approved') return { batch, codes: null };
  const codes = await tenant.couponCodes.findAll({ where: { batch_id: batch.id }, order: [['code', 'ASC']] });
  return { batch, codes };
}

/** The operator acts on any institution's batch: its tenant is found from the batch id. */
async function tenantOfBatch(db: Database, batchId: string): Promise<Tenant> {
  const row = await db.models.CouponBatch.findByPk(batchId, { attributes: ['institution_id'] });
  if (!row) throw notFound('coupon batch');
  return new Tenant(db, row.institution_id);
}

/** `count` distinct codes that no coupon on the appliance has yet (80 bits make a clash all but impossible; it is still checked). */
async function freshCodes(tx: TenantTx, count: number): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < count) {
    const candidates = new Set<string>();
    while (codes.size + candidates.size < count) {
      const code = generateCouponCode();
      if (!codes.has(code)) candidates.add(code);
    }
    const list = [...candidates];
    for (let start = 0; start < list.length; start += INSERT_CHUNK) {
      const chunk = list.slice(start, start + INSERT_CHUNK);
      // Unscoped on purpose: codes are unique across institutions. Only existence is read.
      const takenSet = await tx.appliance.takenCouponCodes(chunk);
      for (const code of chunk) if (!takenSet.has(code)) codes.add(code);
    }
  }
  return [...codes];
}

/**
 * Operator (CLI): approves a pending batch. Its codes are generated and stored in the same
 * transaction as the status change and `coupon_batch.approved`, so an approved batch always has
 * all its codes. Not pending, or already past its expiry: `409 conflict`.
 */
export async function approveBatch(db: Database, batchId: string, now = new Date()): Promise<CouponBatchRow> {
  const tenant = await tenantOfBatch(db, batchId);
  return tenant.inTransaction(async (tx) => {
    const batch = await findBatch(tx, batchId);
    if (batch.status !== 'pending') throw new AppError('conflict', `This coupon batch is already ${batch.status}.`);
    if (batch.expiry_date.getTime() <= now.getTime()) {
      throw new AppError('conflict', 'This coupon batch expired before it was approved; reject it, and the institution can request a new one.');
    }
    const codes = await freshCodes(tx, batch.total_coupons);
    for (let start = 0; start < codes.length; start += INSERT_CHUNK) {
      await tx.couponCodes.bulkCreate(
        codes.slice(start, start + INSERT_CHUNK).map((code) => ({ id: newId('cpn'), batch_id: batch.id, code, redeemed_at: null, created_at: now })),
      );
    }
    await batch.update({ status: 'approved', decided_at: now }, { transaction: tx.tx });
    await emit(tx, 'coupon_batch.approved', { batch_id: batch.id, total_coupons: batch.total_coupons });
    return batch;
  });
}

/** Operator (CLI): rejects a pending batch; it never gets codes. Not pending: `409 conflict`. */
export async function rejectBatch(db: Database, batchId: string, now = new Date()): Promise<CouponBatchRow> {
  const tenant = await tenantOfBatch(db, batchId);
  return tenant.inTransaction(async (tx) => {
    const batch = await findBatch(tx, batchId);
    if (batch.status !== 'pending') throw new AppError('conflict', `This coupon batch is already ${batch.status}.`);
    await batch.update({ status: 'rejected', decided_at: now }, { transaction: tx.tx });
    return batch;
  });
}

export interface Redemption {
  redemption: CouponRedemptionRow;
  code: string;
  email: string;
}

export interface RedemptionFilter extends PageRequest {
  /** Login email (or id) of the student. */
  email?: string;
  /** Inclusive: `redeemed_at >= since`. */
  since?: Date;
}

/** GET /coupons/redemptions: oldest first. */
export async function listRedemptions(tenant: Tenant, filter: RedemptionFilter): Promise<Page<Redemption>> {
  const where: WhereOptions<CouponRedemptionRow>[] = [];
  if (filter.email !== undefined) {
    const student = await tenant.people.findOne({ attributes: ['id'], where: personRefWhere('student', filter.email) });
    // An unknown student redeemed nothing: an empty page, as for any filter.
    if (!student) return { items: [], page: filter.page, limit: filter.limit, total: 0, totalPages: 0 };
    where.push({ student_id: student.id });
  }
  if (filter.since !== undefined) where.push({ redeemed_at: { [Op.gte]: filter.since } });
  const page = await tenant.couponRedemptions.page(
    {
      where: where.length > 0 ? { [Op.and]: where } : undefined,
      order: [
        ['redeemed_at', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    filter,
  );
  const codeIds = page.items.map((row) => row.code_id);
  const codes = codeIds.length > 0 ? await tenant.couponCodes.findAll({ attributes: ['id', 'code'], where: { id: { [Op.in]: codeIds } } }) : [];
  const codeOf = new Map(codes.map((row) => [row.id, row.code]));
  const emails = await loginEmails(
    tenant,
    page.items.map((row) => row.student_id),
  );
  return {
    ...page,
    items: page.items.map((redemption) => ({
      redemption,
      code: codeOf.get(redemption.code_id) ?? '',
      email: emails.get(redemption.student_id) ?? '',
    })),
  };
}

export interface RedeemResult {
  value_cents: number;
  balance_cents: number;
}

const unknownCode = () => new AppError('not_found', 'No such coupon code.');

/**
 * POST /app/coupons/redeem (students only). In one transaction: the code is marked redeemed (a
 * compare-and-set on `redeemed_at IS NULL`), the redemption row is written (unique per code), the
 * wallet is credited with a `coupon` row (the institution's merit allowance is not drawn),
 * `redeemed_count` moves and `coupon.redeemed` is emitted. However many students race for one code,
 * exactly one gets it; the others see `409 conflict`.
 * Unknown code (or not a code at all): `404 not_found`; already redeemed, or batch expired: `409 conflict`.
 */
export async function redeemCoupon(learner: LearnerAuth, typed: string): Promise<RedeemResult> {
  const student = walletOwner(learner);
  const code = normalizeCouponCode(typed);
  if (!code) throw unknownCode();
  return learner.tenant.inTransaction(async (tx) => {
    const now = new Date();
    const coupon = await tx.couponCodes.findOne({ where: { code } });
    if (!coupon) throw unknownCode();
    const batch = await findBatch(tx, coupon.batch_id);
    // Codes exist only for approved batches; a batch in any other state is treated as unknown.
    if (batch.status !== 'approved') throw unknownCode();
    if (coupon.redeemed_at) throw new AppError('conflict', 'This coupon code has already been redeemed.');
    if (batch.expiry_date.getTime() <= now.getTime()) throw new AppError('conflict', 'This coupon code has expired.');

    const marked = await tx.couponCodes.update({ redeemed_at: now }, { id: coupon.id, redeemed_at: null });
    if (marked !== 1) throw new AppError('conflict', 'This coupon code has already been redeemed.');
    const value = Number(batch.value_cents);
    const entry = await postToWallet(tx, student, { kind: 'coupon', amount_cents: value, reason: `Coupon: ${batch.name}`, ref: code });
    const redemption = await tx.couponRedemptions.create({
      id: newId('cpr'),
      code_id: coupon.id,
      batch_id: batch.id,
      student_id: student.id,
      value_cents: value,
      ledger_entry_id: entry.id,
      redeemed_at: now,
    });
    const counted = await tx.couponBatches.update({ redeemed_count: batch.redeemed_count + 1 }, { id: batch.id, redeemed_count: batch.redeemed_count });
    if (counted !== 1) throw new Error(`redeemed_count of ${batch.id} changed inside its own transaction`);
    await emit(tx, 'coupon.redeemed', { redemption_id: redemption.id, batch_id: batch.id, student_id: student.id, value_cents: value });
    return { value_cents: value, balance_cents: Number(entry.balance_after_cents) };
  });
}
