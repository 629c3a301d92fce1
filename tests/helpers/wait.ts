/** The least a wait may allow: under this, a busy machine fails a test that a quiet one passes. */
const MIN_TIMEOUT_MS = 5_000;

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Appended to the timeout error, e.g. a child process's output so far. */
  context?: () => string;
}

/**
 * Polls `check` until it gives something truthy (returned), or fails naming `what`. The third
 * argument is the timeout in milliseconds, or options. The timeout is a bound that only a hang
 * should reach, never a claim about speed (that is `npm run bench`'s): the default is generous
 * and a test asking for less than five seconds is refused.
 */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string,
  options: number | WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 15_000, intervalMs = 25, context } = typeof options === 'number' ? { timeoutMs: options } : options;
  if (timeoutMs < MIN_TIMEOUT_MS) throw new Error(`waitFor(${what}): a timeout of ${timeoutMs} ms would assert a speed; give at least ${MIN_TIMEOUT_MS} ms`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${context ? `\n${context()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
