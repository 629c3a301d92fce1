import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + base64 of 24 random bytes (docs/api.md#webhooks-and-events). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The signature headers of one delivery, for every secret currently valid (newest first):
 * - `X-Service-Signature: t=<t>,v1=<hex HMAC-SHA256(secret as UTF-8, "<t>.<body>")>[,v1=…]`
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64 HMAC-SHA256(base64-decoded part after whsec_, "<id>.<t>.<body>")>[ v1,…]`
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, body: string, timestamp: number): Record<string, string> {
  const t = String(timestamp);
  const serviceSignatures = secrets.map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${body}`, 'utf8').digest('hex')}`);
  const standardSignatures = secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return `v1,${createHmac('sha256', key).update(`${eventId}.${t}.${body}`, 'utf8').digest('base64')}`;
  });
  return {
    'X-Service-Signature': [`t=${t}`, ...serviceSignatures].join(','),
    'webhook-id': eventId,
    'webhook-timestamp': t,
    'webhook-signature': standardSignatures.join(' '),
  };
}
