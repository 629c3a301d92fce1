import type { Database } from '../db/index.js';
import type { WebhookEndpointRow } from '../models/webhook.js';

/** Endpoint secrets are sealed with the master key, in a context of their own endpoint. */
const secretContext = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;

/** Anything that seals: the Database, or a Tenant (its `fieldCrypto`). */
type Sealer = Pick<Database, 'fieldCrypto'>;

export const sealSecret = (db: Sealer, endpointId: string, secret: string) => db.fieldCrypto.encrypt(secret, secretContext(endpointId));

/**
 * The secrets that sign a delivery to this endpoint now, newest first: the current one, plus the
 * previous one while its rotation grace period lasts.
 */
export function endpointSecrets(db: Sealer, endpoint: WebhookEndpointRow, now = new Date()): string[] {
  const secrets = [db.fieldCrypto.decrypt(endpoint.secret_sealed, secretContext(endpoint.id))];
  if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at.getTime() > now.getTime()) {
    secrets.push(db.fieldCrypto.decrypt(endpoint.previous_secret_sealed, secretContext(endpoint.id)));
  }
  return secrets;
}
