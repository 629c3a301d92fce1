/**
 * A `fetch` that waits and tries again on `429` and `503`, as docs/api.md#rate-limits asks:
 * `Retry-After` (seconds or an HTTP date) when the answer carries it, otherwise 1, 2, 4… seconds.
 * Only requests that are safe to send twice are retried: GET, HEAD, OPTIONS, PUT, DELETE, and a
 * POST with an `Idempotency-Key` (the appliance answers a repeated key with the first response).
 * PATCH is never retried.
 */

export interface RetryOptions {
  /** Further attempts after the first (default 3; 0 turns retrying off). */
  maxRetries?: number;
  /** The longest wait before one retry, in milliseconds (default 60 000). A longer `Retry-After` is not waited for: the 429 or 503 is returned. */
  maxDelayMs?: number;
  /** Told before each wait: for logs and tests. */
  onRetry?: (retry: { attempt: number; delayMs: number; status: number; request: Request }) => void;
}

const RETRY_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether a request may be sent again without doing its work twice. */
export function isRetryable(request: Request): boolean {
  return SAFE_METHODS.has(request.method) || (request.method === 'POST' && request.headers.has('Idempotency-Key'));
}

/**
 * Milliseconds to wait from a `Retry-After` value: delta-seconds or an HTTP date (RFC 9110
 * §10.2.3); undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function retryingFetch(baseFetch: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return async (request) => {
    if (maxRetries <= 0 || !isRetryable(request)) return baseFetch(request);
    // Each attempt sends a copy, so the body can be read again.
    for (let attempt = 1; ; attempt++) {
      const response = await baseFetch(request.clone());
      if (!RETRY_STATUSES.has(response.status) || attempt > maxRetries) return response;
      const delayMs = retryAfterMs(response.headers.get('Retry-After')) ?? 1000 * 2 ** (attempt - 1);
      if (delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, status: response.status, request });
      await sleep(delayMs, request.signal);
    }
  };
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
