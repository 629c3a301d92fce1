import { couponStatus, type BatchDetail, type Redemption } from '../commands/wallet/coupons.js';
import type { CouponBatchRow } from '../models/coupon.js';
import { iso } from './common.js';

/** The Coupon batch object (codes are not part of it). */
export function presentBatch(batch: CouponBatchRow) {
  return {
    id: batch.id,
    name: batch.name,
    description: batch.description,
    total_coupons: batch.total_coupons,
    value_cents: Number(batch.value_cents),
    expiry_date: batch.expiry_date.toISOString(),
    status: batch.status,
    redeemed_count: batch.redeemed_count,
    created_at: batch.created_at.toISOString(),
  };
}

/** The single GET: `codes` is added only once the batch is approved; before that the field is absent. */
export function presentBatchDetail({ batch, codes }: BatchDetail, now = new Date()) {
  if (!codes) return presentBatch(batch);
  return {
    ...presentBatch(batch),
    codes: codes.map((code) => ({ code: code.code, status: couponStatus(code, batch, now), redeemed_at: iso(code.redeemed_at) })),
  };
}

export function presentRedemption({ redemption, code, email }: Redemption) {
  return {
    id: redemption.id,
    code,
    batch_id: redemption.batch_id,
    student_id: redemption.student_id,
    login_email: email,
    value_cents: Number(redemption.value_cents),
    redeemed_at: redemption.redeemed_at.toISOString(),
  };
}
