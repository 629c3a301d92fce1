import { recordAiUsage } from '../../commands/wallet/ai-usage.js';
import { redeemCoupon } from '../../commands/wallet/coupons.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { redeemBody, redeemResponse } from '../coupons/schema.js';
import { aiUsageBody, aiUsageResponse } from '../merits/schema.js';

const STUDENTS_ONLY = "Students only: a faculty member's session is `403 forbidden`.";

/** The learner's merit wallet (`/app/*`, learner session): coupons in, AI usage out. */
export const walletLearnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/coupons/redeem',
    operationId: 'redeemLearnerCoupon',
    summary: 'Learner: redeem a coupon code',
    description:
      "Credits the coupon's `value_cents` to the student's merit wallet (not drawn from the institution's allowance) and emits `coupon.redeemed`. " +
      "Unknown code, or another institution's: `404 not_found`; already redeemed (by anyone) or past the batch's `expiry_date`: `409 conflict`. " +
      STUDENTS_ONLY,
    tag: 'Coupons',
    body: redeemBody,
    response: redeemResponse,
    errors: ['forbidden', 'not_found', 'conflict'],
    handler: async ({ learner, body }) => redeemCoupon(learner, body.code),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/ai/usage',
    operationId: 'recordLearnerAiUsage',
    summary: 'Learner: record AI usage on an attempt and pay for it from the merit wallet',
    description:
      "Adds `interactions` and `cost_cents` to the attempt's recorded AI usage (which becomes the submission's `ai_usage`) and spends `cost_cents` " +
      'from the wallet (a `spend` ledger row whose `ref` is the attempt id; a cost of 0 writes none), in one transaction. ' +
      "Refused, with nothing recorded or spent: an attempt that is not the student's or not open (submitted, time run out, exam closed): `409 conflict`; " +
      "the exam's `ai_policy.allowed` not true: `403 forbidden`; a total above `ai_policy.max_interactions`: `409 conflict`; " +
      'more than the balance: `409 insufficient_allowance` with the current `balance_cents`. Not idempotent: each call is new usage. ' +
      STUDENTS_ONLY,
    tag: 'Merits',
    body: aiUsageBody,
    response: aiUsageResponse,
    errors: ['forbidden', 'conflict', 'insufficient_allowance'],
    handler: async ({ learner, body }) => recordAiUsage(learner, body),
  }),
];
