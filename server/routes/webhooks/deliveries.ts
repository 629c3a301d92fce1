import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentWebhookDelivery, presentWebhookDeliveryDetail } from '../../presenters/webhook-delivery.js';
import { getDeliveryDetail, listDeliveries, replayDelivery } from '../../commands/webhooks/deliveries.js';
import { deliveryDetailSchema, deliveryPage, deliveryParams, listDeliveriesQuery, replayDeliveryBody, replayDeliveryResponse } from './deliveries-schema.js';

export const webhookDeliveryRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries',
    description: 'Newest first. Deliveries are kept 30 days. The payload is in the single GET.',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    query: listDeliveriesQuery,
    response: deliveryPage,
    handler: async ({ tenant, query }) => {
      const page = await listDeliveries(tenant, query);
      return { ...page, items: page.items.map(presentWebhookDelivery) };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/webhooks/deliveries/{id}',
    operationId: 'getWebhookDelivery',
    summary: 'Read a webhook delivery with its payload and attempts',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    params: deliveryParams,
    response: deliveryDetailSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentWebhookDeliveryDetail(await getDeliveryDetail(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/deliveries/{id}/replay',
    operationId: 'replayWebhookDelivery',
    summary: 'Replay a webhook delivery',
    description:
      'Creates a new delivery of the same event payload to the same endpoint, with `replay_of` set; the original is unchanged. It is sent at once, signed with a fresh timestamp, and retried like any delivery. The endpoint must be active: `409 endpoint_inactive`. Replays emit no event.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: deliveryParams,
    body: replayDeliveryBody,
    response: replayDeliveryResponse,
    errors: ['not_found', 'endpoint_inactive', 'conflict'],
    handler: async ({ tenant, params, body, ctx }) => {
      const { delivery, replayed } = await replayDelivery(tenant, params.id, body.ref);
      // Committed: the engine may claim it now.
      if (!replayed) ctx.webhooks?.kick();
      return { ...presentWebhookDelivery(delivery), replayed };
    },
  }),
];
