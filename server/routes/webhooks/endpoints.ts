import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  pingEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  urlRulesOf,
} from '../../commands/webhooks/endpoints.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentCreatedWebhookEndpoint, presentRotatedWebhookEndpoint, presentWebhookEndpoint } from '../../presenters/webhook.js';
import {
  createEndpointBody,
  createdEndpointSchema,
  deleteEndpointResponse,
  endpointList,
  endpointParams,
  endpointSchema,
  pingResult,
  rotateSecretBody,
  rotatedEndpointSchema,
  updateEndpointBody,
} from './endpoints-schema.js';

export const webhookEndpointRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/webhooks/endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description: 'Not paged: an institution has at most 20 endpoints. Secrets are never listed.',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    response: endpointList,
    handler: async ({ tenant }) => ({ items: (await listEndpoints(tenant)).map(presentWebhookEndpoint) }),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'The endpoint starts `active`. `secret` is returned only in this answer (and on rotation): it signs every delivery (`X-Service-Signature`, and the Standard Webhooks headers). At most 20 endpoints per institution: `422 endpoint_limit`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    body: createEndpointBody,
    response: createdEndpointSchema,
    errors: ['https_required', 'private_host', 'events_required', 'endpoint_limit'],
    handler: async ({ tenant, body, ctx }) => presentCreatedWebhookEndpoint(await createEndpoint(tenant, body, await urlRulesOf(ctx.db, ctx.config))),
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/webhooks/endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Read a webhook endpoint',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    params: endpointParams,
    response: endpointSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => presentWebhookEndpoint(await findEndpoint(tenant, params.id)),
  }),
  defineRoute({
    caller: 'key',
    method: 'patch',
    path: '/webhooks/endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Update, pause, resume or re-enable a webhook endpoint',
    description:
      'Changes the fields given. `status`: `paused` queues deliveries until the endpoint is `active` again; `active` resumes, or re-enables a disabled endpoint, with `consecutive_failures` reset to 0 and `disabled_reason` to null; `disabled` stops deliveries with `disabled_reason` `disabled_by_user`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    body: updateEndpointBody,
    response: endpointSchema,
    errors: ['not_found', 'https_required', 'private_host', 'events_required'],
    handler: async ({ tenant, params, body, ctx }) => {
      const endpoint = await updateEndpoint(tenant, params.id, body, await urlRulesOf(ctx.db, ctx.config));
      // Resumed or re-enabled: what queued meanwhile goes out now, not at the next sweep.
      if (body.status === 'active') ctx.webhooks?.kick();
      return presentWebhookEndpoint(endpoint);
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'delete',
    path: '/webhooks/endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Its deliveries, pending ones included, are deleted with it.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    response: deleteEndpointResponse,
    errors: ['not_found'],
    handler: async ({ tenant, params }) => deleteEndpoint(tenant, params.id),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description:
      'The new secret is current at once. The replaced one keeps signing beside it (one `v1=` entry each, newest first) until `previous_secret_expires_at`, `grace_hours` from now (default 24, at most 168; 0 retires it at once). Rotating again during a grace period makes the then-current secret the previous one, and the older one stops signing immediately. The body may be omitted.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    body: rotateSecretBody,
    response: rotatedEndpointSchema,
    errors: ['not_found'],
    handler: async ({ tenant, params, body }) => presentRotatedWebhookEndpoint(await rotateEndpointSecret(tenant, params.id, body.grace_hours)),
  }),
  defineRoute({
    caller: 'key',
    method: 'post',
    path: '/webhooks/endpoints/{id}/test',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a test ping',
    description:
      'Sends one `webhook.ping` event (`data: {endpoint_id}`) now, signed like any delivery, and answers with what the receiver said. A failing ping is still a 200 with `delivered: false`. The ping is not a delivery: it is not stored and does not change `consecutive_failures`. An endpoint that is not `active`: `409 endpoint_inactive`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    params: endpointParams,
    response: pingResult,
    errors: ['not_found', 'endpoint_inactive'],
    handler: async ({ tenant, params, ctx, requestId }) => {
      const { error, ...result } = await pingEndpoint(tenant, params.id, {
        ...(await urlRulesOf(ctx.db, ctx.config)),
        timeoutMs: ctx.config.webhooks.timeoutMs,
      });
      ctx.logger.info(
        { request_id: requestId, endpoint_id: params.id, delivered: result.delivered, response_status: result.response_status, error },
        'webhook ping',
      );
      return result;
    },
  }),
];
