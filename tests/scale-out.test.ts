// @tier system
// @databases sqlite: starts its own PostgreSQL cluster and Redis for its processes, whichever project runs it
/**
 * Several processes (docs/scale-out.md): two API processes and two workers (the real bundle, `--role api|worker`)
 * on one PostgreSQL database and one Redis, all on 127.0.0.1. Events made through either API
 * process reach a local receiver exactly once each; with a worker killed (-9) midway none is lost;
 * one key's rate limit holds across both API processes; Redis stopped answers 503 and recovers.
 * The suite starts its own cluster and Redis, so it runs in the sqlite project only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../server/commands/institutions/api-keys.js';
import { createInstitution } from '../server/commands/institutions/institutions.js';
import { connectDatabase } from '../server/db/index.js';
import { Tenant } from '../server/db/tenant.js';
import { makeDataDir } from './helpers/appliance.js';
import { killBundles, startBundle, type BundleServer } from './helpers/bundle.js';
import { createTestDatabase, postgresBinDir, startTestCluster, type TestCluster, type TestDatabase } from './helpers/postgres.js';
import { redisAvailable, startTestRedis, type TestRedis } from './helpers/redis.js';
import { waitFor } from './helpers/wait.js';

const binDir = postgresBinDir();
if (!binDir && process.env.CI === 'true') throw new Error('PostgreSQL is not installed; .ci/run installs it with apt');
const available = binDir !== null && redisAvailable();

/** Counts what arrives, by event id. */
class Receiver {
  readonly seen = new Map<string, number>();
  private server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: string }).id;
      this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe.skipIf(!available)('several processes on PostgreSQL and Redis', () => {
  let cluster: TestCluster;
  let database: TestDatabase;
  let redis: TestRedis;
  let receiver: Receiver;
  const dataDir = makeDataDir();
  const apis: BundleServer[] = [];
  const workers: BundleServer[] = [];
  let loadKey: string;
  let limitedKey: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    [cluster, redis] = await Promise.all([startTestCluster(binDir!), startTestRedis()]);
    database = await createTestDatabase(cluster.adminUrl);
    receiver = new Receiver();
    const hookUrl = await receiver.listen();
    env = {
      DATABASE_URL: database.url,
      RATE_LIMIT_STORE: redis.url,
      OUTBOUND_PRIVATE_HOSTS: '1',
      WEBHOOK_SWEEP_SECONDS: '1',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '10000',
    };
    // The first process migrates the empty database; the others start on the migrated one.
    apis.push(await startBundle(dataDir, env, ['--role', 'api']));
    const [api2, worker1, worker2] = await Promise.all([
      startBundle(dataDir, env, ['--role', 'api']),
      startBundle(dataDir, env, ['--role', 'worker']),
      startBundle(dataDir, env, ['--role', 'worker']),
    ]);
    apis.push(api2!);
    workers.push(worker1!, worker2!);

    // The school and its keys, written as the CLI would, on the same database and master key.
    const db = await connectDatabase({ postgresUrl: database.url, keyDir: dataDir });
    try {
      const institution = await createInstitution(db, { name: 'District One', approve: true });
      const tenant = new Tenant(db, institution.id);
      loadKey = (await createApiKey(tenant, { name: 'load', scopes: ['all'], rate_limit_per_min: 6000 })).key;
      limitedKey = (await createApiKey(tenant, { name: 'limited', scopes: ['all'], rate_limit_per_min: 600 })).key;
    } finally {
      await db.close();
    }
    const endpoint = await fetch(`${apis[0]!.origin}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${loadKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: hookUrl, events: ['student.created'] }),
    });
    expect(endpoint.status, await endpoint.clone().text()).toBe(200);
  }, 120_000);

  afterAll(async () => {
    killBundles();
    await receiver?.close();
    await redis?.close();
    await database?.drop().catch(() => undefined);
    cluster?.stop();
  });

  /** Where the last poll of the events feed stopped (the newest `created_at` read). */
  let since: string | null = null;

  /** `count` students in calls of 200, four calls at a time, alternating between the two API processes. */
  async function makeStudents(prefix: string, count: number): Promise<void> {
    const calls = Array.from({ length: Math.ceil(count / 200) }, (_, call) =>
      Array.from({ length: Math.min(200, count - call * 200) }, (_, i) => ({ full_name: `${prefix} ${call * 200 + i}` })),
    );
    for (let start = 0; start < calls.length; start += 4) {
      await Promise.all(
        calls.slice(start, start + 4).map(async (students, offset) => {
          const api = apis[(start + offset) % apis.length]!;
          const res = await fetch(`${api.origin}/v1/students/bulk`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${loadKey}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ students }),
          });
          expect(res.status, await res.clone().text()).toBe(200);
        }),
      );
    }
  }

  /**
   * The polling recipe (docs/api.md): `since` the newest `created_at` read, alternating between the
   * API processes. Returns the new events' ids; the recipe must neither skip nor repeat one.
   */
  async function pollNewEvents(): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 0; page < 1000; page += 1) {
      const query = new URLSearchParams({ type: 'student.created', limit: '200', ...(since ? { since } : {}) });
      const res = await fetch(`${apis[page % 2]!.origin}/v1/events?${query}`, { headers: { Authorization: `Bearer ${loadKey}` } });
      const body = (await res.json()) as { data: { items: Array<{ id: string; created_at: string }>; has_more: boolean } };
      ids.push(...body.data.items.map((item) => item.id));
      since = body.data.items.at(-1)?.created_at ?? since;
      if (!body.data.has_more) break;
    }
    expect(new Set(ids).size).toBe(ids.length);
    return ids;
  }

  it('delivers 10,000 events made through two API processes exactly once each, by two workers', { timeout: 300_000 }, async () => {
    await makeStudents('Load', 10_000);
    const ids = await pollNewEvents();
    expect(ids).toHaveLength(10_000);
    await waitFor(() => ids.every((id) => receiver.seen.has(id)) || undefined, 'every event at the receiver', {
      timeoutMs: 240_000,
      intervalMs: 500,
      context: () => `${ids.filter((id) => receiver.seen.has(id)).length} of ${ids.length} received`,
    });
    const twice = ids.filter((id) => receiver.seen.get(id)! > 1);
    expect(twice).toEqual([]);
    for (const worker of workers) expect(worker.alive()).toBe(true);
  });

  it('loses none when a worker is killed with -9 midway', { timeout: 300_000 }, async () => {
    const before = receiver.seen.size;
    const making = makeStudents('Crash', 2_000);
    await waitFor(() => receiver.seen.size >= before + 300 || undefined, 'deliveries under way', { timeoutMs: 120_000, intervalMs: 50 });
    await workers[0]!.kill();
    await making;
    const crashIds = await pollNewEvents();
    expect(crashIds).toHaveLength(2_000);
    await waitFor(() => crashIds.every((id) => receiver.seen.has(id)) || undefined, 'every event of the crash run at the receiver', {
      timeoutMs: 240_000,
      intervalMs: 500,
      context: () => `${crashIds.filter((id) => receiver.seen.has(id)).length} of ${crashIds.length} received`,
    });
  });

  it('holds one key’s rate limit across both API processes: the 601st request of a minute is 429', { timeout: 120_000 }, async () => {
    // All 601 inside one clock-aligned minute: start at the top of a window when less than 40 s are left.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 20_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 50));
    const statuses: number[] = [];
    for (let batch = 0; batch < 600; batch += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${apis[(batch + i) % 2]!.origin}/v1/me`, { headers: { Authorization: `Bearer ${limitedKey}` } }).then((res) => res.status),
        ),
      );
      statuses.push(...answers);
    }
    expect(
      statuses.filter((status) => status !== 200),
      'the answers that were not 200',
    ).toEqual([]);
    for (const api of apis) {
      const over = await fetch(`${api.origin}/v1/me`, { headers: { Authorization: `Bearer ${limitedKey}` } });
      expect(over.status).toBe(429);
      expect(((await over.json()) as { error: string }).error).toBe('rate_limited');
    }
  });

  it('answers 503 rate_limiter_unavailable while Redis is down, and recovers by itself', { timeout: 60_000 }, async () => {
    await redis.stop();
    const down = await fetch(`${apis[1]!.origin}/v1/me`, { headers: { Authorization: `Bearer ${loadKey}` } });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(((await down.json()) as { error: string }).error).toBe('rate_limiter_unavailable');
    await redis.start();
    for (const api of apis) {
      await waitFor(
        async () => ((await fetch(`${api.origin}/v1/me`, { headers: { Authorization: `Bearer ${loadKey}` } })).status === 200 ? true : undefined),
        'the API process to recover',
        { timeoutMs: 20_000, intervalMs: 250 },
      );
    }
  });
});
