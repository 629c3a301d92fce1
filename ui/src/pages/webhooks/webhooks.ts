import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';

export type EndpointStatus = 'active' | 'paused' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'dead';

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: EndpointStatus;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export interface CreatedEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface RotatedEndpoint extends CreatedEndpoint {
  previous_secret_expires_at: string;
}

export interface PingResult {
  delivered: boolean;
  response_status: number | null;
  response_time_ms: number;
  response_body: string | null;
}

export interface Delivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  response_time_ms: number | null;
  response_body: string | null;
  replay_of: string | null;
  created_at: string;
}

export interface DeliveryAttempt {
  at: string;
  response_status: number | null;
  error: string | null;
  response_time_ms: number | null;
  response_body: string | null;
}

export interface DeliveryDetail extends Delivery {
  payload: { id: string; type: string; created_at: string; institution_id: string; data: Record<string, unknown> };
  attempts: DeliveryAttempt[];
  request_headers: Array<{ name: string; value: string }>;
}

export interface EventType {
  type: string;
  description: string;
  area: string;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'succeeded', 'failed', 'dead'];

/** The API's bounds for a rotation's grace period, in hours. */
export const GRACE_HOURS = { min: 0, max: 168, default: 24 } as const;
/** Endpoints an institution may have. */
export const MAX_ENDPOINTS = 20;

/** Why an endpoint is disabled, in words. */
export const DISABLED_REASONS: Record<string, string> = {
  too_many_failures: '30 failed attempts in a row',
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
    queryFn: async () => (await api.get<{ items: WebhookEndpoint[] }>(`/institutions/${institutionId}/webhooks/endpoints`)).items,
  });
}

export function useEventTypes(institutionId: string) {
  return useQuery({
    queryKey: ['institution', institutionId, 'event-types'],
    queryFn: async () => (await api.get<{ items: EventType[] }>(`/institutions/${institutionId}/event-types`)).items,
    staleTime: Infinity,
  });
}
