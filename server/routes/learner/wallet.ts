import { redeemCoupon } from '../../commands/coupons.js';
import { spendOnAi } from '../../commands/merits.js';
import { defineLearnerRoute, type ApiRoute } from '../../http/route.js';
import { redeemBody, redeemResponse } from '../coupons/schema.js';
import { aiUsageBody, aiUsageResponse } from '../merits/schema.js';

const STUDENTS_ONLY = "Students only: a faculty member's session is `403 forbidden`.";

/** The learner's merit wallet (`/app/*`, learner session): coupons in, AI usage out. */
export const walletLearnerRoutes: ApiRoute[] = [
  defineLearnerRoute({
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
  defineLearnerRoute({
    method: 'post',
    path: '/app/ai/usage',
    operationId: 'recordLearnerAiUsage',
    summary: 'Learner: pay for AI usage from the merit wallet',
    description:
      'Spends `cost_cents` from the wallet (a `spend` ledger row; a cost of 0 writes none). More than the balance: `409 insufficient_allowance` ' +
      'with the current `balance_cents`, and nothing is spent. Not idempotent: each call is a new spend. ' +
      STUDENTS_ONLY,
    tag: 'Merits',
    body: aiUsageBody,
    response: aiUsageResponse,
    errors: ['forbidden', 'insufficient_allowance'],
    handler: async ({ learner, body }) => spendOnAi(learner, body),
  }),
];
