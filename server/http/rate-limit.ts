import type { NextFunction, Request, Response } from 'express';
import type { RateLimitStore } from '../context.js';
import { AppError } from '../errors.js';

export const WINDOW_MS = 60_000;

export type { RateLimitStore } from '../context.js';

/** One process's counters: one entry per key, replaced when its window ends. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { windowStart: number; count: number }>();

  async hit(key: string, windowStart: number): Promise<number> {
    const current = this.counters.get(key);
    if (current && current.windowStart === windowStart) {
      current.count += 1;
      return current.count;
    }
    if (this.counters.size > 50_000) this.dropEndedWindows(windowStart);
    this.counters.set(key, { windowStart, count: 1 });
    return 1;
  }

  private dropEndedWindows(windowStart: number): void {
    for (const [key, counter] of this.counters) if (counter.windowStart < windowStart) this.counters.delete(key);
  }
}

/**
 * Fixed 60-second windows aligned to the clock, per key (or learner session). Headers go on every
 * response to a valid caller, the 429 included; an unreachable store fails closed with 503.
 */
export function rateLimit(store: RateLimitStore, now: () => number = Date.now) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const subject = req.rateLimitSubject;
    if (!subject) return next();
    const limit = subject.limit;
    const at = now();
    const windowStart = Math.floor(at / WINDOW_MS) * WINDOW_MS;
    const windowEnd = windowStart + WINDOW_MS;
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Reset', String(windowEnd / 1000));

    let count: number;
    try {
      count = await store.hit(subject.id, windowStart);
    } catch (cause) {
      res.setHeader('X-RateLimit-Remaining', '0');
      res.setHeader('Retry-After', '5');
      req.log?.error({ err: cause, request_id: req.requestId }, 'rate limiter store unavailable');
      throw new AppError('rate_limiter_unavailable', 'The rate limiter is unavailable; retry in 5 seconds.');
    }

    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    if (count > limit) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil((windowEnd - at) / 1000))));
      throw new AppError('rate_limited', `Rate limit of ${limit} requests per minute exceeded.`);
    }
    next();
  };
}
