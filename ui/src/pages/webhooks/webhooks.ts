import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { DEFAULT_GRACE_HOURS, MAX_GRACE_HOURS, MAX_WEBHOOK_ENDPOINTS } from '../../../../server/commands/webhooks/endpoints';
import type { eventTypesResponse } from '../../../../server/routes/events/schema';
import type { deliveryDetailSchema, deliverySchema, replayDeliveryResponse } from '../../../../server/routes/webhooks/deliveries-schema';
import type {
  createdEndpointSchema,
  endpointList,
  endpointSchema,
  pingResult,
  rotatedEndpointSchema,
} from '../../../../server/routes/webhooks/endpoints-schema';
import type {
  DELIVERY_STATUSES as SERVER_DELIVERY_STATUSES,
  MAX_CONSECUTIVE_FAILURES as SERVER_MAX_CONSECUTIVE_FAILURES,
} from '../../../../server/webhooks/deliveries';
import { call, portal } from '../../api/portal';

/**
 * Webhooks' wire types: type-only imports of the server's /v1 schemas (z.input: the JSON the
 * handler returns), so nothing of the server is bundled.
 */
export type WebhookEndpoint = z.input<typeof endpointSchema>;
export type EndpointStatus = WebhookEndpoint['status'];
export type EndpointList = z.input<typeof endpointList>;
export type CreatedEndpoint = z.input<typeof createdEndpointSchema>;
export type RotatedEndpoint = z.input<typeof rotatedEndpointSchema>;
export type PingResult = z.input<typeof pingResult>;

export type Delivery = z.input<typeof deliverySchema>;
export type DeliveryStatus = Delivery['status'];
export type ReplayedDelivery = z.input<typeof replayDeliveryResponse>;

export type DeliveryDetail = z.input<typeof deliveryDetailSchema>;
export type DeliveryAttempt = DeliveryDetail['attempts'][number];

/** An event type with its `area` (its first segment, which the picker groups by). */
export type EventType = z.input<typeof eventTypesResponse>['items'][number];

/**
 * The server's values below live in modules with run-time server code (database, HTTP), so they are
 * repeated here; their types are the server constants' own, so a change there fails the type check.
 */
export const DELIVERY_STATUSES: typeof SERVER_DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'dead'];

/**
 * A delivery's status in words: the API's `failed` is an attempt that failed with another to come,
 * so it reads "retrying" beside its next attempt; `dead` is the end, after the last retry.
 */
export const DELIVERY_STATUS_WORDS: Record<(typeof DELIVERY_STATUSES)[number], string> = {
  pending: 'pending',
  delivering: 'delivering',
  succeeded: 'succeeded',
  failed: 'retrying',
  dead: 'failed for good',
};

/** The API's bounds for a rotation's grace period, in hours. */
export const GRACE_HOURS = { min: 0, max: 168, default: 24 } as const satisfies { min: 0; max: typeof MAX_GRACE_HOURS; default: typeof DEFAULT_GRACE_HOURS };
/** Endpoints an institution may have. */
export const MAX_ENDPOINTS: typeof MAX_WEBHOOK_ENDPOINTS = 20;
/** Failed attempts in a row that disable an endpoint. */
export const MAX_CONSECUTIVE_FAILURES: typeof SERVER_MAX_CONSECUTIVE_FAILURES = 30;

/**
 * The endpoint forms' labels by API field: shown on the inputs, and in a refusal's words (a refused
 * address, `https_required` or `private_host`, shows under URL; `events_required` under Events).
 */
export const ENDPOINT_LABELS = { url: 'URL', description: 'Description', events: 'Events' } as const;

/** Why an endpoint is disabled, in words. */
export const DISABLED_REASONS: Record<string, string> = {
  too_many_failures: `${MAX_CONSECUTIVE_FAILURES} failed attempts in a row`,
  gone: 'the receiver answered 410 Gone',
  disabled_by_user: 'disabled by a user',
};

export const webhooksKey = (institutionId: string) => ['institution', institutionId, 'webhooks'] as const;
export const endpointsKey = (institutionId: string) => [...webhooksKey(institutionId), 'endpoints'] as const;
export const deliveriesKey = (institutionId: string) => [...webhooksKey(institutionId), 'deliveries'] as const;
export const deliveryKey = (institutionId: string, deliveryId: string) => [...deliveriesKey(institutionId), deliveryId] as const;

export function useEndpoints(institutionId: string) {
  return useQuery({
    queryKey: endpointsKey(institutionId),
    queryFn: async () => (await call(portal.GET('/institutions/{institution}/webhooks/endpoints', { params: { path: { institution: institutionId } } }))).items,
  });
}

export function useEventTypes(institutionId: string) {
  return useQuery({
    queryKey: ['institution', institutionId, 'event-types'],
    queryFn: async () => (await call(portal.GET('/institutions/{institution}/events/types', { params: { path: { institution: institutionId } } }))).items,
    staleTime: Infinity,
  });
}
