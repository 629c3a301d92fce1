// @tier integration
// @databases sqlite, postgres
import { Op } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emit } from '../server/events/emit.js';
import type { ApiKeyRow } from '../server/models/api-key.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';

describe('structural tenancy of ScopedRepo', () => {
  let app: TestAppliance;
  let A: TestInstitution;
  let B: TestInstitution;
  let keyA: TestKey;
  let keyB: TestKey;

  beforeAll(async () => {
    app = await startTestAppliance();
    A = await makeInstitution(app, { name: 'Institution A' });
    B = await makeInstitution(app, { name: 'Institution B' });
    keyA = await makeKey(app, A, { name: 'A key' });
    keyB = await makeKey(app, B, { name: 'B key' });
  });
  afterAll(() => app.close());

  const rawKey = (id: string) => app.ctx.db.models.ApiKey.findByPk(id);

  it('findById of another institution’s row is null; its own row is found', async () => {
    expect(await A.tenant.apiKeys.findById(keyB.id)).toBeNull();
    expect(await B.tenant.apiKeys.findById(keyA.id)).toBeNull();
    expect((await A.tenant.apiKeys.findById(keyA.id))?.id).toBe(keyA.id);
    // Inside a transaction the scope holds as well.
    await A.tenant.inTransaction(async (tx) => {
      expect(await tx.apiKeys.findById(keyB.id)).toBeNull();
    });
  });

  it('findAll / findOne / count never return another institution’s rows, whatever the where clause says', async () => {
    const all = await A.tenant.apiKeys.findAll();
    expect(all.map((row) => row.institution_id)).toEqual(all.map(() => A.id));
    expect(all.map((row) => row.id)).toContain(keyA.id);
    expect(all.map((row) => row.id)).not.toContain(keyB.id);

    expect(await A.tenant.apiKeys.findAll({ where: { institution_id: B.id } })).toEqual([]);
    expect(await A.tenant.apiKeys.findOne({ where: { id: keyB.id } })).toBeNull();
    const either = await A.tenant.apiKeys.findAll({ where: { [Op.or]: [{ id: keyA.id }, { id: keyB.id }, { institution_id: B.id }] } });
    expect(either.map((row) => row.id)).toEqual([keyA.id]);
    expect(await A.tenant.apiKeys.count({ where: { id: keyB.id } })).toBe(0);
    expect(await A.tenant.apiKeys.count({ where: { [Op.or]: [{ id: keyB.id }, { institution_id: B.id }] } })).toBe(0);
    const page = await A.tenant.apiKeys.page({ where: { id: keyB.id } }, { page: 1, limit: 10 });
    expect(page).toMatchObject({ items: [], total: 0 });
  });

  it('update with another institution’s key id affects 0 rows and leaves it unchanged', async () => {
    const before = await rawKey(keyB.id);
    const affected = await A.tenant.apiKeys.update({ name: 'hijacked', status: 'revoked' }, { id: keyB.id });
    expect(affected).toBe(0);
    const after = await rawKey(keyB.id);
    expect(after?.name).toBe(before?.name);
    expect(after?.status).toBe('active');
    expect(await A.tenant.apiKeys.update({ name: 'hijacked' }, { institution_id: B.id })).toBe(0);
    expect((await rawKey(keyB.id))?.name).toBe('B key');
    // B's key still works.
    expect((await app.http.get('/v1/me').set('Authorization', keyB.auth)).status).toBe(200);
  });

  it('update cannot move an own row to another institution', async () => {
    const own = await makeKey(app, A, { name: 'A movable' });
    await A.tenant.apiKeys.update({ institution_id: B.id, name: 'renamed' } as unknown as Partial<ApiKeyRow>, { id: own.id });
    const row = await rawKey(own.id);
    expect(row?.institution_id).toBe(A.id);
    expect(await B.tenant.apiKeys.findById(own.id)).toBeNull();
    const me = await app.http.get('/v1/me').set('Authorization', own.auth);
    expect(me.body.data.institution.id).toBe(A.id);
  });

  it('destroy with another institution’s key id affects 0 rows', async () => {
    expect(await A.tenant.apiKeys.destroy({ id: keyB.id })).toBe(0);
    expect(await A.tenant.apiKeys.destroy({ institution_id: B.id })).toBe(0);
    expect(await rawKey(keyB.id)).not.toBeNull();
    expect((await app.http.get('/v1/me').set('Authorization', keyB.auth)).status).toBe(200);
  });

  it('create always writes the tenant’s institution, even when values name another one', async () => {
    const values = {
      id: 'key_tenancyProbeAAAAAAAAAAAAAAA',
      institution_id: B.id, // forbidden by the types; forced through here
      name: 'smuggled',
      key_hash: 'a'.repeat(64),
      prefix: 'cb_live_abcd',
      last4: 'wxyz',
      scopes: ['students:read'],
      rate_limit_per_min: 600,
      status: 'active' as const,
      created_by: null,
      last_used_at: null,
      revoked_at: null,
    };
    const row = await A.tenant.apiKeys.create(values as unknown as Parameters<typeof A.tenant.apiKeys.create>[0]);
    expect(row.institution_id).toBe(A.id);
    expect((await rawKey(values.id))?.institution_id).toBe(A.id);
    expect(await B.tenant.apiKeys.findById(values.id)).toBeNull();
    expect((await A.tenant.apiKeys.findById(values.id))?.name).toBe('smuggled');

    // The same inside a transaction.
    const inTx = await A.tenant.inTransaction((tx) =>
      tx.apiKeys.create({ ...values, id: 'key_tenancyProbeBBBBBBBBBBBBBBB', key_hash: 'b'.repeat(64) } as unknown as Parameters<
        typeof A.tenant.apiKeys.create
      >[0]),
    );
    expect(inTx.institution_id).toBe(A.id);
    expect((await rawKey(inTx.id))?.institution_id).toBe(A.id);
  });

  it('the event repository is scoped the same way', async () => {
    const eventA = await A.tenant.inTransaction((tx) => emit(tx, 'student.created', { who: 'A' }));
    const eventB = await B.tenant.inTransaction((tx) => emit(tx, 'student.created', { who: 'B' }));
    expect(await A.tenant.events.findById(eventB.id)).toBeNull();
    expect((await A.tenant.events.findAll()).map((event) => event.id)).not.toContain(eventB.id);
    expect(await A.tenant.events.destroy({ id: eventB.id })).toBe(0);
    expect(await app.ctx.db.models.Event.findByPk(eventB.id)).not.toBeNull();
    expect(eventA.institution_id).toBe(A.id);
    expect(eventB.institution_id).toBe(B.id);
  });
});

describe('log privacy', () => {
  let app: TestAppliance;

  beforeAll(async () => {
    // Debug: successful reads are logged at that level (server/http/request-log.ts).
    app = await startTestAppliance({ logLevel: 'debug' });
  });
  afterAll(() => app.close());

  it('request logs carry request_id, route, status and ms, and never the key, "Bearer" or the query string', async () => {
    const inst = await makeInstitution(app);
    const key = await makeKey(app, inst, { scopes: ['institution:read', 'webhooks:read'] });
    const unknownKey = `cb_live_${'Zq9'.repeat(10)}Zq`;
    const malformed = 'cb_live_short-and-wrong';

    const requests: Array<{ id: string; route: string; path: string; status: number; run: () => Promise<{ status: number }> }> = [
      {
        id: 'log-me',
        route: '/v1/me',
        path: '/v1/me',
        status: 200,
        run: () => app.http.get('/v1/me').set('Authorization', key.auth).set('X-Request-Id', 'log-me'),
      },
      {
        id: 'log-events',
        route: '/v1/events',
        path: '/v1/events',
        status: 200,
        run: () =>
          app.http
            .get('/v1/events')
            .query({ type: 'exam.*', since: new Date(Date.now() - 1000).toISOString() })
            .set('Authorization', key.auth)
            .set('X-Request-Id', 'log-events'),
      },
      {
        id: 'log-put',
        route: '/v1/institution/config',
        path: '/v1/institution/config',
        status: 403,
        run: () => app.http.put('/v1/institution/config').send({ lms: {} }).set('Authorization', key.auth).set('X-Request-Id', 'log-put'),
      },
      {
        id: 'log-invalid',
        route: '/v1/events',
        path: '/v1/events',
        status: 422,
        run: () => app.http.get('/v1/events?since=guest%40example.org').set('Authorization', key.auth).set('X-Request-Id', 'log-invalid'),
      },
      {
        id: 'log-unknown',
        route: '/v1/me',
        path: '/v1/me',
        status: 401,
        run: () => app.http.get('/v1/me').set('Authorization', `Bearer ${unknownKey}`).set('X-Request-Id', 'log-unknown'),
      },
      {
        id: 'log-malformed',
        route: '/v1/scopes',
        path: '/v1/scopes',
        status: 401,
        run: () => app.http.get('/v1/scopes').set('Authorization', `Bearer ${malformed}`).set('X-Request-Id', 'log-malformed'),
      },
      {
        id: 'log-nokey',
        route: '/v1/institution',
        path: '/v1/institution',
        status: 401,
        run: () => app.http.get('/v1/institution').set('X-Request-Id', 'log-nokey'),
      },
    ];
    for (const request of requests) {
      const res = await request.run();
      expect(res.status, request.id).toBe(request.status);
    }
    // The log line is written when the response finishes; give the stream a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const text = app.logText();
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(key.key.slice('cb_live_'.length));
    expect(text).not.toContain(unknownKey);
    expect(text).not.toContain(malformed);
    expect(text).not.toMatch(/bearer/i);
    expect(text).not.toContain('guest@example.org');
    expect(text).not.toContain('guest%40example.org');

    const lines = app.logLines();
    for (const request of requests) {
      const matching = lines.filter((line) => line.request_id === request.id);
      expect(matching, request.id).toHaveLength(1);
      const line = matching[0]!;
      expect(line.route, request.id).toBe(request.route);
      expect(line.path, request.id).toBe(request.path);
      expect(line.status, request.id).toBe(request.status);
      expect(typeof line.ms, request.id).toBe('number');
      expect(line.ms as number, request.id).toBeGreaterThanOrEqual(0);
      expect(String(line.path)).not.toContain('?');
    }
    // Successful reads at debug; refusals (and writes) at info, so the default log keeps them.
    const levelOf = (id: string) => lines.find((line) => line.request_id === id)?.level;
    expect(levelOf('log-me')).toBe(20);
    expect(levelOf('log-events')).toBe(20);
    for (const id of ['log-put', 'log-invalid', 'log-unknown', 'log-malformed', 'log-nokey']) expect(levelOf(id), id).toBe(30);
    // Authenticated requests name the key by id, never by value.
    expect(lines.find((line) => line.request_id === 'log-me')?.key_id).toBe(key.id);
    expect(lines.find((line) => line.request_id === 'log-unknown')?.key_id).toBeUndefined();

    // Every request line, whatever the route, has the id, status and time.
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(requests.length);
    for (const line of requestLines) {
      expect(typeof line.request_id).toBe('string');
      expect(typeof line.status).toBe('number');
      expect(typeof line.ms).toBe('number');
    }
  });

  it('a key created for an institution never appears in the log, even after many uses', async () => {
    const inst = await makeInstitution(app);
    const key = await makeKey(app, inst, { scopes: ['all'] });
    for (const path of ['/v1/me', '/v1/scopes', '/v1/institution', '/v1/institution/config', '/v1/events', '/v1/events/types', '/v1/no-such-route']) {
      await app.http.get(path).set('Authorization', key.auth);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(app.logText()).not.toContain(key.key);
    expect(app.logText()).not.toContain(key.key.slice(-12));
    expect(app.logText()).not.toMatch(/bearer/i);
  });
});
