import { checkEndpointSignature, deliveryAsCurl, replayFailedSince, sendExampleEvent } from '../../commands/webhooks/debugging.js';
import { defineRoute, type AnyPortalRoute, type ApiRoute } from '../../http/route.js';
import type { MembershipRole } from '../../models/membership.js';
import { grants, roleScopes } from '../../policies/scopes.js';
import { presentWebhookDelivery } from '../../presenters/webhook-delivery.js';
import { TIMESTAMP_TOLERANCE_SECONDS } from '../../webhooks/signature-check.js';
import { deliverySchema } from './deliveries-schema.js';
import {
  checkerParams,
  curlParams,
  curlResponse,
  replaySinceBody,
  replaySinceResponse,
  sendExampleBody,
  signatureCheckBody,
  signatureCheckResponse,
} from './debugging-schema.js';
import { endpointParams } from './endpoints-schema.js';

/** Webhook debugging on /v1 (and so in the portal): replay what failed since a date, send an example. */
export const webhookDebuggingRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/endpoints/{id}/replay',
    operationId: 'replayWebhookDeliveriesSince',
    summary: 'Replay every delivery that failed since a time',
    description:
      'Replays each delivery of the endpoint with `status` (`dead` by default) created at or after `since`, oldest first, at most 1000 per call (`beyond_limit` counts the rest), as the single replay does: a new delivery with `replay_of`, signed when sent. Each delivery is replayed once: one with a replay already is skipped (`already_replayed`), so calling twice replays nothing more; a replay that fails in turn is replayed by a later call. `dry_run: true` only counts. The endpoint must be active: `409 endpoint_inactive`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    body: replaySinceBody,
    response: replaySinceResponse,
    errors: ['not_found', 'endpoint_inactive'],
    handler: async ({ tenant, params, body, ctx }) => {
      const result = await replayFailedSince(tenant, params.id, { since: new Date(body.since), status: body.status, dry_run: body.dry_run });
      if (result.delivery_ids.length > 0) ctx.webhooks?.kick();
      return result;
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/endpoints/{id}/example',
    operationId: 'sendWebhookExample',
    summary: 'Send an example event',
    description:
      'Sends a realistic sample event of `type` to the endpoint (whatever it subscribes to) as a normal delivery: signed, retried and in the delivery log. Its body carries `"example": true` beside the usual fields, and its ids name no real record. No event is written to the events feed. The endpoint must be active: `409 endpoint_inactive`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    body: sendExampleBody,
    response: deliverySchema,
    errors: ['not_found', 'endpoint_inactive'],
    handler: async ({ tenant, params, body, ctx }) => {
      const delivery = await sendExampleEvent(tenant, params.id, body.type);
      ctx.webhooks?.kick();
      return presentWebhookDelivery(delivery);
    },
  }),
];

/** Members whose role may write webhooks: the checker and curl use the endpoint's secrets (never returning them). */
const WEBHOOK_WRITERS = (['admin', 'developer'] as const satisfies readonly MembershipRole[]).filter((role) => grants(roleScopes(role), 'webhooks:write'));

/** Portal-only: they answer with the endpoint's secrets' work, so no API key may call them. */
export const webhookDebuggingPortalRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/webhook-debugging/endpoints/{endpointId}/signature-check',
    operationId: 'checkWebhookSignature',
    tag: 'Webhooks',
    summary: 'Tell why a pasted webhook request does not verify',
    caller: 'member',
    roles: WEBHOOK_WRITERS,
    params: checkerParams,
    body: signatureCheckBody,
    response: signatureCheckResponse,
    errors: ['not_found'],
    handler: async ({ access, params, body }) => ({
      ...(await checkEndpointSignature(access.tenant, params.endpointId, body)),
      tolerance_seconds: TIMESTAMP_TOLERANCE_SECONDS,
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/institutions/{id}/webhook-debugging/deliveries/{deliveryId}/curl',
    operationId: 'webhookDeliveryCurl',
    tag: 'Webhooks',
    summary: 'A delivery as a curl command, signed now',
    caller: 'member',
    roles: WEBHOOK_WRITERS,
    params: curlParams,
    response: curlResponse,
    errors: ['not_found'],
    handler: async ({ access, params }) => deliveryAsCurl(access.tenant, params.deliveryId),
  }),
];
