export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Appended to the timeout error, e.g. a child process's output so far. */
  context?: () => string;
}

/**
 * Polls `check` until it gives something truthy (returned), or fails naming `what`. The third
 * argument is the timeout in milliseconds, or options.
 */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string,
  options: number | WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 5_000, intervalMs = 25, context } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${context ? `\n${context()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
