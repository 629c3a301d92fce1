import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  pingEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  urlRulesOf,
} from '../commands/webhook-endpoints.js';
import { EVENT_TYPES } from '../events/catalog.js';
import { z } from '../http/zod.js';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../models/webhook.js';
import { presentWebhookDelivery, presentWebhookDeliveryDetail } from '../presenters/webhook-delivery.js';
import { presentCreatedWebhookEndpoint, presentRotatedWebhookEndpoint, presentWebhookEndpoint } from '../presenters/webhook.js';
import { eventTypesResponse } from '../routes/events/schema.js';
import { deliveryDetailSchema, deliveryPage, listDeliveriesQuery, replayDeliveryBody, replayDeliveryResponse } from '../routes/webhooks/deliveries-schema.js';
import {
  createEndpointBody,
  createdEndpointSchema,
  deleteEndpointResponse,
  endpointList,
  endpointSchema,
  pingResult,
  rotateSecretBody,
  rotatedEndpointSchema,
  updateEndpointBody,
} from '../routes/webhooks/endpoints-schema.js';
import { getDeliveryDetail, listDeliveries, replayDelivery } from '../webhooks/deliveries.js';
import { definePortalRoute, type PortalRoute } from './route.js';

// ---------------------------------------------------------------------------------------------
// Schemas: the public API's, with the two things only the portal shows.
// ---------------------------------------------------------------------------------------------

const institutionParams = z.strictObject({ id: z.string().min(1).max(40) });
const endpointParams = institutionParams.extend({ endpointId: z.string().min(1).max(320) });
const deliveryParams = institutionParams.extend({ deliveryId: z.string().min(1).max(320) });

const portalAttemptSchema = deliveryDetailSchema.shape.attempts.element.extend({
  response_body: z.string().nullable(),
});

const requestHeaderSchema = z.object({ name: z.string(), value: z.string() });

const portalDeliveryDetailSchema = deliveryDetailSchema.extend({
  attempts: z.array(portalAttemptSchema),
  /** What every attempt sends; the signature headers are computed afresh at each attempt. */
  request_headers: z.array(requestHeaderSchema),
});

const eventTypeSchema = eventTypesResponse.shape.items.element.extend({
  /** The first segment (`student`, `coupon_batch`): the picker groups by it and offers `<area>.*`. */
  area: z.string(),
});

// ---------------------------------------------------------------------------------------------
// Presenters
// ---------------------------------------------------------------------------------------------

/**
 * The request a delivery makes, as contract §5 lists it. The appliance does not store the
 * headers of each attempt: the ids are the delivery's own, and the signatures depend on the
 * attempt's time and on the secrets valid then, so they are described rather than invented.
 */
function requestHeaders(delivery: WebhookDeliveryRow): z.input<typeof requestHeaderSchema>[] {
  return [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'X-Service-Event-Id', value: delivery.event_id },
    { name: 'X-Service-Delivery-Id', value: delivery.id },
    { name: 'X-Service-Signature', value: 't=<unix seconds of the attempt>,v1=<hex HMAC-SHA256 per valid secret, newest first>' },
    { name: 'webhook-id', value: delivery.event_id },
    { name: 'webhook-timestamp', value: '<unix seconds of the attempt>' },
    { name: 'webhook-signature', value: 'v1,<base64 HMAC-SHA256 per valid secret, space-separated>' },
  ];
}

/** The public detail, plus each attempt's response body and the request headers. */
function presentPortalDeliveryDetail(detail: { delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }): z.input<typeof portalDeliveryDetailSchema> {
  const shown = presentWebhookDeliveryDetail(detail);
  return {
    ...shown,
    attempts: shown.attempts.map((attempt, index) => ({ ...attempt, response_body: detail.attempts[index]!.response_body })),
    request_headers: requestHeaders(detail.delivery),
  };
}

const areaOf = (type: string) => type.slice(0, type.indexOf('.'));

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/** Developers see keys, webhooks and deliveries (specification, Authentication 8). */
const WEBHOOK_ROLES = ['admin', 'developer'] as const;

/** The same setting the public routes pass: `WEBHOOK_ALLOW_PRIVATE_HOSTS`. */
/** Webhook endpoints, the delivery log and the event catalog, under /portal/api; the /v1 commands and schemas. */
export const webhookPortalRoutes: PortalRoute[] = [
  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/event-types',
    summary: 'Every event type with its description, for the event-pattern picker',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: institutionParams,
    response: z.object({ items: z.array(eventTypeSchema) }),
    handler: async () => ({ items: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description, area: areaOf(type) })) }),
  }),

  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/webhooks/endpoints',
    summary: "The institution's webhook endpoints (never their secrets)",
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: institutionParams,
    response: endpointList,
    handler: async ({ access }) => ({ items: (await listEndpoints(access.tenant)).map(presentWebhookEndpoint) }),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/webhooks/endpoints',
    summary: 'Create a webhook endpoint; its signing secret is in this answer only',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: institutionParams,
    body: createEndpointBody,
    response: createdEndpointSchema,
    handler: async ({ access, body, ctx }) => presentCreatedWebhookEndpoint(await createEndpoint(access.tenant, body, urlRulesOf(ctx.config))),
  }),
  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/webhooks/endpoints/{endpointId}',
    summary: 'One webhook endpoint',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: endpointParams,
    response: endpointSchema,
    handler: async ({ access, params }) => presentWebhookEndpoint(await findEndpoint(access.tenant, params.endpointId)),
  }),
  definePortalRoute({
    method: 'patch',
    path: '/institutions/{id}/webhooks/endpoints/{endpointId}',
    summary: 'Change URL, description or event patterns; `status` pauses, resumes or re-enables',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: endpointParams,
    body: updateEndpointBody,
    response: endpointSchema,
    handler: async ({ access, params, body, ctx }) => {
      const endpoint = await updateEndpoint(access.tenant, params.endpointId, body, urlRulesOf(ctx.config));
      // Resumed or re-enabled: what queued meanwhile goes out now, not at the next sweep.
      if (body.status === 'active') ctx.webhooks?.kick();
      return presentWebhookEndpoint(endpoint);
    },
  }),
  definePortalRoute({
    method: 'delete',
    path: '/institutions/{id}/webhooks/endpoints/{endpointId}',
    summary: 'Delete a webhook endpoint and its deliveries',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: endpointParams,
    response: deleteEndpointResponse,
    handler: async ({ access, params }) => deleteEndpoint(access.tenant, params.endpointId),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/webhooks/endpoints/{endpointId}/rotate-secret',
    summary: 'Rotate the signing secret; the new one is in this answer only, the old one signs too for `grace_hours`',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: endpointParams,
    body: rotateSecretBody,
    response: rotatedEndpointSchema,
    handler: async ({ access, params, body }) =>
      presentRotatedWebhookEndpoint(await rotateEndpointSecret(access.tenant, params.endpointId, body.grace_hours)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/webhooks/endpoints/{endpointId}/test',
    summary: 'Send a test ping now and report what the receiver answered',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: endpointParams,
    response: pingResult,
    handler: async ({ access, params, ctx, requestId }) => {
      const { error, ...result } = await pingEndpoint(access.tenant, params.endpointId, { ...urlRulesOf(ctx.config), timeoutMs: ctx.config.webhooks.timeoutMs });
      ctx.logger.info(
        { request_id: requestId, endpoint_id: params.endpointId, delivered: result.delivered, response_status: result.response_status, error },
        'webhook ping',
      );
      return result;
    },
  }),

  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/webhooks/deliveries',
    summary: 'The delivery log, newest first; query `endpoint_id`, `status`, `event_type`, `page`, `limit` as in /v1',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: institutionParams,
    query: listDeliveriesQuery,
    response: deliveryPage,
    handler: async ({ access, query }) => {
      const page = await listDeliveries(access.tenant, query);
      return { ...page, items: page.items.map(presentWebhookDelivery) };
    },
  }),
  definePortalRoute({
    method: 'get',
    path: '/institutions/{id}/webhooks/deliveries/{deliveryId}',
    summary: 'One delivery: payload, request headers and every attempt with its response',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: deliveryParams,
    response: portalDeliveryDetailSchema,
    handler: async ({ access, params }) => presentPortalDeliveryDetail(await getDeliveryDetail(access.tenant, params.deliveryId)),
  }),
  definePortalRoute({
    method: 'post',
    path: '/institutions/{id}/webhooks/deliveries/{deliveryId}/replay',
    summary: 'Send the same event to the same endpoint again, as a new delivery',
    access: 'member',
    roles: WEBHOOK_ROLES,
    params: deliveryParams,
    body: replayDeliveryBody,
    response: replayDeliveryResponse,
    handler: async ({ access, params, body, ctx }) => {
      const { delivery, replayed } = await replayDelivery(access.tenant, params.deliveryId, body.ref);
      // Committed: the engine may claim it now.
      if (!replayed) ctx.webhooks?.kick();
      return { ...presentWebhookDelivery(delivery), replayed };
    },
  }),
];
