import type { Redis } from 'ioredis';
import type { RateLimitStore } from '../context.js';
import type { Logger } from '../logger.js';
import { WINDOW_MS } from './rate-limit.js';

/**
 * How long a hit may wait for Redis before the request is refused with 503 (fails closed). Two
 * seconds: on a busy 2-core appliance a healthy Redis answered some hits after 500 ms, and each
 * such hit was a 503 for a request that should have passed; a Redis that is down fails at once
 * anyway (no offline queue).
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;
/** A window's counter outlives the window a little, so a slow clock on one process still finds it. */
const EXPIRY_MARGIN_MS = 5_000;
/** Reconnection waits grow to this and stay there: Redis back is noticed within about this long. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/** INCR and the expiry in one atomic round trip; the expiry is set once, by the window's first hit. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
return count`;

/**
 * Counters in Redis, shared by every process that points at it (RATE_LIMIT_STORE=redis://…). One
 * key per API key (or session) and window: `campusbridge:rl:<subject>:<window start>`, so windows
 * never mix. While Redis cannot answer, `hit` throws at once (no offline queue) or after
 * REDIS_COMMAND_TIMEOUT_MS, and the middleware answers 503; the client keeps reconnecting by itself.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  private reachable = true;
  private closing = false;

  /**
   * A store on `url`. ioredis is loaded here rather than at start: an appliance whose counters live
   * in memory (the default) never needs it (docs/decisions/idle-memory.md).
   */
  static async open(url: string, logger: Logger): Promise<RedisRateLimitStore> {
    const { Redis: RedisClient } = await import('ioredis');
    return new RedisRateLimitStore(
      new RedisClient(url, {
        enableOfflineQueue: false,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        maxRetriesPerRequest: 0,
        connectTimeout: 2_000,
        retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
      }),
      logger,
    );
  }

  private constructor(client: Redis, logger: Logger) {
    this.client = client;
    // Logged on changes only: the client reports every failed reconnection, one a second.
    const lost = (reason: string) => {
      if (!this.reachable || this.closing) return;
      this.reachable = false;
      logger.error({ reason }, 'rate limiter store (Redis) unreachable: rate-limited requests get 503 until it is back');
    };
    this.client.on('error', (err: Error) => lost(err.message));
    this.client.on('close', () => lost('connection closed'));
    this.client.on('ready', () => {
      if (this.reachable) return;
      this.reachable = true;
      logger.info('rate limiter store (Redis) reachable again');
    });
  }

  /**
   * Resolves once connected (true) or after `timeoutMs` (false), so the first requests after a
   * start are not refused while the connection is still being made. Never rejects.
   */
  async connected(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    let timer: NodeJS.Timeout | undefined;
    let onReady: (() => void) | undefined;
    const result = await new Promise<boolean>((resolve) => {
      onReady = () => resolve(true);
      this.client.once('ready', onReady);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    if (onReady) this.client.off('ready', onReady);
    return result;
  }

  async hit(key: string, windowStart: number): Promise<number> {
    const count = await this.client.eval(HIT_SCRIPT, 1, `campusbridge:rl:${key}:${windowStart}`, windowStart + WINDOW_MS + EXPIRY_MARGIN_MS);
    return Number(count);
  }

  /** Closes the connection and stops reconnecting. */
  async close(): Promise<void> {
    this.closing = true;
    this.client.disconnect();
  }
}
