// @tier integration
// @databases sqlite: the rate-limit counters live in Redis or in memory, never in the database
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { WINDOW_MS } from '../server/http/rate-limit.js';
import { REDIS_COMMAND_TIMEOUT_MS, RedisRateLimitStore } from '../server/http/redis-rate-limit.js';
import { createLogger } from '../server/logger.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution } from './helpers/appliance.js';
import { redisAvailable, startTestRedis, type TestRedis } from './helpers/redis.js';
import { waitFor } from './helpers/wait.js';

/** Waits for the next minute when less than `neededMs` of this one is left, so a run never straddles two windows. */
async function roomInWindow(neededMs: number): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('RATE_LIMIT_STORE', () => {
  it('accepts memory and redis:// or rediss:// URLs, and refuses anything else naming the variable', () => {
    expect(loadConfig({}).rateLimitStore).toEqual({ kind: 'memory' });
    expect(loadConfig({ RATE_LIMIT_STORE: 'redis://127.0.0.1:6379/2' }).rateLimitStore).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379/2' });
    expect(loadConfig({ RATE_LIMIT_STORE: 'rediss://127.0.0.1:6380' }).rateLimitStore).toEqual({ kind: 'redis', url: 'rediss://127.0.0.1:6380' });
    for (const bad of ['sqlite', 'redis://', 'http://127.0.0.1:6379', 'memcached://127.0.0.1']) {
      expect(() => loadConfig({ RATE_LIMIT_STORE: bad })).toThrow(/RATE_LIMIT_STORE: must be memory or redis:\/\//);
    }
  });
});

describe.skipIf(!redisAvailable())('the Redis rate-limit store', () => {
  let redis: TestRedis;
  let first: TestAppliance;
  let second: TestAppliance;
  let institution: TestInstitution;

  beforeAll(async () => {
    redis = await startTestRedis();
    const config = { rateLimitStore: { kind: 'redis' as const, url: redis.url } };
    first = await startTestAppliance({ config });
    // Two appliances on one database (the folder's SQLite file, or the first's PostgreSQL database), as two api processes.
    second = await startTestAppliance({ config: { ...config, databaseUrl: first.ctx.config.databaseUrl }, dataDir: first.dataDir });
    institution = await makeInstitution(first);
  });

  afterAll(async () => {
    await second?.stop();
    await first?.close();
    await redis?.close();
  });

  it('counts one window per key in one place: two stores see one count, the next window starts again, and the counter expires after its window', async () => {
    const logger = createLogger('silent');
    const one = await RedisRateLimitStore.open(redis.url, logger);
    const other = await RedisRateLimitStore.open(redis.url, logger);
    const raw = new Redis(redis.url);
    try {
      expect(await one.connected(2_000)).toBe(true);
      expect(await other.connected(2_000)).toBe(true);
      const windowStart = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
      expect(await one.hit('key_direct', windowStart)).toBe(1);
      expect(await other.hit('key_direct', windowStart)).toBe(2);
      expect(await one.hit('key_direct', windowStart)).toBe(3);
      expect(await other.hit('key_direct', windowStart + WINDOW_MS)).toBe(1);
      expect(await one.hit('key_other', windowStart)).toBe(1);
      const ttl = await raw.pttl(`campusbridge:rl:key_direct:${windowStart}`);
      const untilWindowEnd = windowStart + WINDOW_MS - Date.now();
      expect(ttl).toBeGreaterThan(untilWindowEnd);
      expect(ttl).toBeLessThanOrEqual(untilWindowEnd + 10_000);
    } finally {
      await one.close();
      await other.close();
      raw.disconnect();
    }
  });

  it("counts one key's requests across both appliances: the one over the limit is 429 whichever answers", async () => {
    const key = await makeKey(first, institution, { rateLimit: 10 });
    await roomInWindow(5_000);
    for (let i = 1; i <= 10; i += 1) {
      const app = i % 2 ? first : second;
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(10 - i));
    }
    for (const app of [first, second]) {
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('holds the default limit of 600 a minute across both appliances', { timeout: 40_000 }, async () => {
    const key = await makeKey(first, institution, { rateLimit: 600 });
    await roomInWindow(15_000);
    const statuses: number[] = [];
    for (let batch = 0; batch < 30; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => ((batch * 20 + i) % 2 ? first : second).http.get('/v1/me').set('Authorization', key.auth)),
      );
      statuses.push(...answers.map((res) => res.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(600);
    const over = await Promise.all([first, second].map((app) => app.http.get('/v1/me').set('Authorization', key.auth)));
    expect(over.map((res) => res.status)).toEqual([429, 429]);
  });

  it('fails closed at once while Redis is down, and recovers by itself when it is back', { timeout: 30_000 }, async () => {
    const key = await makeKey(first, institution, { rateLimit: 600 });
    expect((await first.http.get('/v1/me').set('Authorization', key.auth)).status).toBe(200);
    await redis.stop();
    try {
      // An answer at all is the point: a request that waited on the dead store would hang until
      // the test's timeout. How fast it comes is for npm run bench, not for a test.
      for (const app of [first, second]) {
        const res = await app.http.get('/v1/me').set('Authorization', key.auth);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ success: false, error: 'rate_limiter_unavailable' });
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
      }
      // The health check does not depend on the rate limiter.
      expect((await first.http.get('/healthz')).status).toBe(200);
    } finally {
      await redis.start();
    }
    for (const app of [first, second]) {
      await waitFor(async () => (await app.http.get('/v1/me').set('Authorization', key.auth)).status === 200, 'the appliance to use Redis again', {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
    }
    expect(first.logText()).toContain('rate limiter store (Redis) unreachable');
    expect(first.logText()).toContain('rate limiter store (Redis) reachable again');
  });

  it('starts while Redis is down, refusing rate-limited requests, and serves them once Redis comes up', { timeout: 30_000 }, async () => {
    await redis.stop();
    let third: TestAppliance | null = null;
    try {
      const startedAt = Date.now();
      third = await startTestAppliance({ config: { rateLimitStore: { kind: 'redis', url: redis.url } } });
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      const inst = await makeInstitution(third);
      const key = await makeKey(third, inst, { rateLimit: 600 });
      const refused = await third.http.get('/v1/me').set('Authorization', key.auth);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(third.logText()).toContain('starting without the rate limiter store (Redis)');
      await redis.start();
      const app = third;
      await waitFor(async () => (await app.http.get('/v1/me').set('Authorization', key.auth)).status === 200, 'the appliance to reach Redis', {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
    } finally {
      await redis.start();
      await third?.close();
    }
  });

  it('refuses within the command timeout when Redis hangs without answering, and goes on when it answers again', { timeout: 20_000 }, async () => {
    const key = await makeKey(first, institution, { rateLimit: 600 });
    // Reconnected after the restarts above.
    await waitFor(async () => (await first.http.get('/v1/me').set('Authorization', key.auth)).status === 200, 'Redis in use', {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    redis.freeze();
    try {
      const startedAt = Date.now();
      const res = await first.http.get('/v1/me').set('Authorization', key.auth);
      const took = Date.now() - startedAt;
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('rate_limiter_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      // Refused by the command timeout, not at once and not never (a hang fails the test's timeout).
      expect(took).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 50);
    } finally {
      redis.thaw();
    }
    await waitFor(async () => (await first.http.get('/v1/me').set('Authorization', key.auth)).status === 200, 'answers again', {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
  });
});
