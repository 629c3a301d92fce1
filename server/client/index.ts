/**
 * The typed CampusBridge client: openapi-fetch over the types generated from /v1/openapi.json
 * (`npm run client:generate`), with retries on 429/503, iterators over paged lists and over the
 * event stream, and the webhook verifier. It imports nothing from the server: an integrator can
 * copy server/client/ into a project that has `openapi-fetch`.
 *
 *   const cb = createClient({ baseUrl: 'http://127.0.0.1:4780/v1', apiKey: process.env.CB_KEY! });
 *   const { data } = await cb.POST('/students', { body: { full_name: 'Ada Lovelace' } });
 *   for await (const student of cb.paginate('/students', { query: { limit: 200 } })) …
 *   for await (const event of cb.events({ since })) if (event.type === 'exam.graded') event.data.score;
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { CampusBridgeEvent } from './events.js';
import type { paths } from './generated/openapi.js';
import { retryingFetch, sleep, type RetryOptions } from './retry.js';

export type { paths, components, operations } from './generated/openapi.js';
export * from './events.js';
export { isRetryable, retryAfterMs, type RetryOptions } from './retry.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders, type WebhookScheme } from './webhooks.js';

export interface ClientOptions {
  /** The API's base, ending in `/v1`: `http://<host>:4780/v1`. */
  baseUrl: string;
  /** `cb_live_…` (or a sandbox `cb_test_…`) key, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Another fetch (a proxy agent, a test double); default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Further attempts on 429/503 after the first (default 3; 0 turns retrying off). */
  maxRetries?: number;
  /** The longest single wait for `Retry-After`, in milliseconds (default 60 000). */
  maxRetryDelayMs?: number;
  /** Told before each retry's wait. */
  onRetry?: RetryOptions['onRetry'];
  /**
   * Give every POST without one an `Idempotency-Key` (a random UUID), so it may be retried
   * without doing its work twice (default true). Pass your own key in `headers` to retry across
   * restarts of your program too.
   */
  idempotencyKeys?: boolean;
}

/** A failed call made by `paginate` or `events`, with the API's error envelope. */
export class CampusBridgeError extends Error {
  override name = 'CampusBridgeError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

type JsonData<Operation> = Operation extends { responses: { 200: { content: { 'application/json': { data: infer Data } } } } } ? Data : never;
type Get<P extends keyof paths> = paths[P] extends { get: infer Operation } ? Operation : never;

/** The GET operations answering `{items, page, limit, total, totalPages}` (docs/api.md#pagination). */
export type PagedPath = {
  [P in keyof paths]: JsonData<Get<P>> extends { items: unknown[]; page: number; totalPages: number } ? P : never;
}[keyof paths];
/** One item of a paged list. */
export type PageItem<P extends PagedPath> = JsonData<Get<P>> extends { items: Array<infer Item> } ? Item : never;
type Parameters<P extends PagedPath> = Get<P> extends { parameters: infer Params } ? Params : never;
/** A paged list's filters and `limit` (the iterator sets `page`), and its path parameters if it has any. */
export type PageParams<P extends PagedPath> = {
  query?: Omit<NonNullable<Parameters<P> extends { query?: infer Query } ? Query : never>, 'page'>;
} & (Parameters<P> extends { path: infer PathParams extends Record<string, unknown> } ? { path: PathParams } : { path?: never });

export interface EventsOptions {
  /** Start strictly after this instant: the newest `created_at` you processed (omit for the oldest kept). */
  since?: string;
  /** `*`, a family such as `exam.*`, or an exact type. */
  type?: string;
  /** Events per request (1–200, default 200). */
  limit?: number;
  /** Keep polling once caught up, every `pollIntervalMs` (default 10 000), until `signal` aborts. Without it the iterator ends when caught up. */
  follow?: boolean;
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

export interface CampusBridgeClient extends Client<paths> {
  /** Every item of a paged list, page after page, each once (while the list does not change underneath). */
  paginate<P extends PagedPath>(path: P, params?: PageParams<P>): AsyncGenerator<PageItem<P>>;
  /** Every event after `since`, oldest first, each once, typed by its `type` (the polling recipe of docs/events.md). */
  events(options?: EventsOptions): AsyncGenerator<CampusBridgeEvent>;
}

export function createClient(options: ClientOptions): CampusBridgeClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const fetch = retryingFetch(baseFetch, { maxRetries: options.maxRetries, maxDelayMs: options.maxRetryDelayMs, onRetry: options.onRetry });
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl, fetch, headers: { Authorization: `Bearer ${options.apiKey}` } });
  if (options.idempotencyKeys ?? true) {
    client.use({
      onRequest({ request }) {
        if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
        return request;
      },
    });
  }

  // The generic path cannot be checked against each operation's own parameters here; the public signature does that.
  const getJson = async (path: string, params: { query?: Record<string, unknown>; path?: Record<string, unknown> }, signal?: AbortSignal) => {
    const get = client.GET as unknown as (
      path: string,
      init: { params: typeof params; signal?: AbortSignal },
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await get(path, { params, signal });
    if (!response.ok) throw envelopeError(response.status, error);
    return (data as { data: unknown }).data;
  };

  async function* paginate<P extends PagedPath>(path: P, params?: PageParams<P>): AsyncGenerator<PageItem<P>> {
    for (let page = 1; ; page++) {
      const query = { ...(params?.query as Record<string, unknown> | undefined), page };
      const result = (await getJson(path, { query, path: params?.path as Record<string, unknown> | undefined })) as {
        items: PageItem<P>[];
        totalPages: number;
      };
      yield* result.items;
      if (page >= result.totalPages || result.items.length === 0) return;
    }
  }

  async function* events(eventsOptions: EventsOptions = {}): AsyncGenerator<CampusBridgeEvent> {
    let since = eventsOptions.since;
    for (;;) {
      const query = { since, type: eventsOptions.type, limit: eventsOptions.limit ?? 200 };
      const result = (await getJson('/events', { query }, eventsOptions.signal)) as { items: CampusBridgeEvent[]; has_more: boolean };
      for (const event of result.items) {
        yield event;
        since = event.created_at;
      }
      if (result.has_more) continue;
      if (!eventsOptions.follow) return;
      await sleep(eventsOptions.pollIntervalMs ?? 10_000, eventsOptions.signal);
    }
  }

  return Object.assign(client, { paginate, events });
}

function envelopeError(status: number, body: unknown): CampusBridgeError {
  const envelope = (body && typeof body === 'object' ? body : {}) as { error?: unknown; message?: unknown; details?: unknown };
  return new CampusBridgeError(
    status,
    typeof envelope.error === 'string' ? envelope.error : 'http_error',
    typeof envelope.message === 'string' ? envelope.message : `HTTP ${status}`,
    envelope.details,
  );
}
