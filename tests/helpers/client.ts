import { createClient, type CampusBridgeClient, type ClientOptions } from '../../server/client/index.js';
import type { Appliance } from '../../server/appliance.js';
import type { TestKey } from './appliance.js';

/**
 * The typed client (server/client/) on a test appliance's /v1 with a test key. Suites see every
 * answer as the server gave it: no retries and no automatic Idempotency-Key unless they ask.
 */
export function clientFor(app: Pick<Appliance, 'origin'>, key: TestKey, options: Partial<ClientOptions> = {}): CampusBridgeClient {
  return createClient({ baseUrl: `${app.origin}/v1`, apiKey: key.key, maxRetries: 0, idempotencyKeys: false, ...options });
}

/** Everything an async iterator yields (client.events(), client.paginate()). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
