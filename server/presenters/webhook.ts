import type { EndpointWithSecret, RotatedSecret } from '../commands/webhooks/endpoints.js';
import type { WebhookEndpointRow } from '../models/webhook.js';

/** The Webhook endpoint object: never the secret, sealed or not, nor the rotation state. */
export function presentWebhookEndpoint(endpoint: WebhookEndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: [...endpoint.events],
    status: endpoint.status,
    disabled_reason: endpoint.disabled_reason,
    consecutive_failures: endpoint.consecutive_failures,
    created_at: endpoint.created_at.toISOString(),
    updated_at: endpoint.updated_at.toISOString(),
  };
}

/** The answer to creation: the one time, with rotation, that the secret is shown. */
export function presentCreatedWebhookEndpoint({ endpoint, secret }: EndpointWithSecret) {
  return { ...presentWebhookEndpoint(endpoint), secret };
}

/** The answer to a rotation: the new secret and when the one it replaced stops signing. */
export function presentRotatedWebhookEndpoint({ endpoint, secret, previousExpiresAt }: RotatedSecret) {
  return { ...presentWebhookEndpoint(endpoint), secret, previous_secret_expires_at: previousExpiresAt.toISOString() };
}
