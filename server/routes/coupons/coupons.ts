import { createBatch, getBatchDetail, listBatches, listRedemptions } from '../../commands/wallet/coupons.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentBatch, presentBatchDetail, presentRedemption } from '../../presenters/coupon.js';
import { batchDetailSchema, batchPage, batchParams, batchSchema, createBatchBody, listBatchesQuery, listRedemptionsQuery, redemptionPage } from './schema.js';

export const couponRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/coupons/batches',
    operationId: 'listCouponBatches',
    summary: 'List coupon batches',
    description: 'Oldest first. Codes are not listed here; read one batch for them.',
    tag: 'Coupons',
    scope: 'coupons:read',
    query: listBatchesQuery,
    response: batchPage,
    handler: async ({ tenant, query }) => {
      const page = await listBatches(tenant, query);
      return { ...page, items: page.items.map(presentBatch) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/coupons/batches',
    operationId: 'createCouponBatch',
    summary: 'Request a coupon batch',
    description:
      'The batch starts `pending`. The appliance operator approves it (`coupons approve <batch_id>`, which generates the codes and emits ' +
      "`coupon_batch.approved`) or rejects it. A redeemed coupon credits the student's merit wallet with `value_cents`, outside the merit allowance.",
    tag: 'Coupons',
    scope: 'coupons:write',
    body: createBatchBody,
    response: batchSchema,
    handler: async ({ tenant, body }) => presentBatch(await createBatch(tenant, body)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/coupons/batches/{id}',
    operationId: 'getCouponBatch',
    summary: 'Read a coupon batch, with its codes once approved',
    tag: 'Coupons',
    scope: 'coupons:read',
    params: batchParams,
    response: batchDetailSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentBatchDetail(await getBatchDetail(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/coupons/redemptions',
    operationId: 'listCouponRedemptions',
    summary: 'List coupon redemptions',
    description: 'Oldest first, by `redeemed_at`.',
    tag: 'Coupons',
    scope: 'coupons:read',
    query: listRedemptionsQuery,
    response: redemptionPage,
    handler: async ({ tenant, query }) => {
      const page = await listRedemptions(tenant, query);
      return { ...page, items: page.items.map(presentRedemption) };
    },
  }),
];
