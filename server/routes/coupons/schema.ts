import { MAX_COUPON_VALUE_CENTS, MAX_COUPONS_PER_BATCH } from '../../commands/wallet/coupons.js';
import { idParam, isoDateTime, pageOf, pageQuery, timestamp } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';

const BATCH_EXAMPLE = 'cpb_4Nc8kW2xRq7Lz1Pb9Tm3Vd6Y';
const STUDENT_EXAMPLE = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
const CODE_EXAMPLE = '7KQM-X4PZ-R9TB-WH3N';

export const createBatchBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Science fair prizes' }),
    description: z.string().max(2000).default('').openapi({ example: 'One coupon per finalist.' }),
    total_coupons: z
      .number()
      .int()
      .min(1)
      .max(MAX_COUPONS_PER_BATCH)
      .openapi({ description: `How many codes, 1 to ${MAX_COUPONS_PER_BATCH}.`, example: 50 }),
    value_cents: z
      .number()
      .int()
      .min(1)
      .max(MAX_COUPON_VALUE_CENTS)
      .openapi({ description: `What one coupon credits to the student's merit wallet, 1 to ${MAX_COUPON_VALUE_CENTS} cents.`, example: 500 }),
    expiry_date: isoDateTime
      .transform((value) => new Date(value))
      .openapi({ description: 'When the codes stop being redeemable; must be in the future (`422 validation_error`).', example: '2026-12-31T23:59:59.000Z' }),
  })
  .openapi('CouponBatchCreate');

export const batchStatus = z.enum(['pending', 'approved', 'rejected']).openapi({
  description: '`pending` until the appliance operator approves (codes are generated then) or rejects it.',
});

export const batchSchema = z
  .object({
    id: z.string().openapi({ example: BATCH_EXAMPLE }),
    name: z.string().openapi({ example: 'Science fair prizes' }),
    description: z.string().openapi({ example: 'One coupon per finalist.' }),
    total_coupons: z.number().int().openapi({ example: 50 }),
    value_cents: z.number().int().openapi({ example: 500 }),
    expiry_date: timestamp,
    status: batchStatus,
    redeemed_count: z.number().int().openapi({ example: 3 }),
    created_at: timestamp,
  })
  .openapi('CouponBatch');

export const couponCodeSchema = z
  .object({
    code: z.string().openapi({ description: '16 symbols of `23456789ABCDEFGHJKLMNPQRSTUVWXYZ` in four groups (80 random bits).', example: CODE_EXAMPLE }),
    status: z.enum(['available', 'redeemed', 'expired']).openapi({ description: "`expired`: not redeemed before the batch's `expiry_date`." }),
    redeemed_at: timestamp.nullable().openapi({ example: null }),
  })
  .openapi('CouponCode');

export const batchDetailSchema = batchSchema
  .extend({
    codes: z
      .array(couponCodeSchema)
      .optional()
      .openapi({ description: 'Every code of the batch, by code. Present only once the batch is `approved`; absent while `pending` or when `rejected`.' }),
  })
  .openapi('CouponBatchDetail');

export const batchPage = pageOf(batchSchema);
export const batchParams = idParam('Coupon batch id.', BATCH_EXAMPLE);
export const listBatchesQuery = z.strictObject({ ...pageQuery });

export const redemptionSchema = z
  .object({
    id: z.string().openapi({ example: 'cpr_9Xc2vB7nM4kL1pQ8wE5rT3yU' }),
    code: z.string().openapi({ example: CODE_EXAMPLE }),
    batch_id: z.string().openapi({ example: BATCH_EXAMPLE }),
    student_id: z.string().openapi({ description: "The student's internal id.", example: STUDENT_EXAMPLE }),
    login_email: z.string().openapi({ example: 'ada.lovelace@riverside-high.campusbridge.local' }),
    value_cents: z.number().int().openapi({ description: "Credited to the student's merit wallet.", example: 500 }),
    redeemed_at: timestamp,
  })
  .openapi('CouponRedemption');

export const redemptionPage = pageOf(redemptionSchema);

export const listRedemptionsQuery = z.strictObject({
  email: z.string().min(1).max(320).optional().openapi({
    description: "Only this student's redemptions: login email (or student id). An unknown student gives an empty list.",
    example: 'ada.lovelace@riverside-high.campusbridge.local',
  }),
  since: isoDateTime
    .transform((value) => new Date(value))
    .optional()
    .openapi({ description: 'Only redemptions with `redeemed_at` at or after this instant (inclusive).', example: '2026-09-14T00:00:00.000Z' }),
  ...pageQuery,
});

/** Learner side: POST /app/coupons/redeem. */
export const redeemBody = z
  .strictObject({
    code: z.string().min(1).max(64).openapi({ description: 'The coupon code; case, spaces and hyphens do not matter.', example: CODE_EXAMPLE }),
  })
  .openapi('CouponRedeem');

export const redeemResponse = z
  .object({
    value_cents: z.number().int().openapi({ description: 'What the coupon credited.', example: 500 }),
    balance_cents: z.number().int().openapi({ description: 'The wallet balance right after the credit.', example: 1250 }),
  })
  .openapi('CouponRedeemed');
