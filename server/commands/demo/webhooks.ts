import type { Tenant } from '../../db/tenant.js';
import { createEndpoint, updateEndpoint } from '../webhooks/endpoints.js';

/** The demo's webhook receiver: this computer's discard port, never a host elsewhere. */
const DEMO_RECEIVER_URL = 'http://127.0.0.1:9/campusbridge-demo';

/**
 * A paused receiver, so every event the demo makes leaves a queued delivery in the webhook log. It
 * points at this computer's discard port and is paused: nothing is sent unless someone resumes it,
 * and even then only with OUTBOUND_PRIVATE_HOSTS=1. Give it your LMS's URL to receive the events.
 */
export async function seedPausedReceiver(tenant: Tenant): Promise<void> {
  const { endpoint } = await createEndpoint(
    tenant,
    { url: DEMO_RECEIVER_URL, description: 'Demo LMS receiver (paused): set your LMS URL and resume', events: ['*'] },
    { privateHosts: 'all' },
  );
  await updateEndpoint(tenant, endpoint.id, { status: 'paused' }, { privateHosts: 'all' });
}
