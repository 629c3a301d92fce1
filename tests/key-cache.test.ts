// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateApiKey } from '../server/commands/institutions/api-keys.js';
import { connectDatabase, databaseLocation } from '../server/db/index.js';
import { cliOk, runCliCaptured } from './helpers/cli.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution } from './helpers/appliance.js';

/**
 * The key lookup is cached (server/http/key-cache.ts) yet exact: a change committed by any other
 * connection, the CLI's in particular, holds from the very next request
 * (docs/decisions/authenticated-hot-path.md). On PostgreSQL, where there is no cache, the
 * same changes hold all the same.
 */
describe('the cached key lookup stays exact', () => {
  let app: TestAppliance;
  let school: TestInstitution;

  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeInstitution(app, { name: 'Cache School' });
  });
  afterAll(() => app.close());

  /** Two requests first, so the key is served from the cache when the change lands. */
  async function warm(auth: string): Promise<void> {
    for (let i = 0; i < 2; i++) await app.http.get('/v1/me').set('Authorization', auth).expect(200);
  }

  it('a key revoked by the CLI answers 401 on the next request', async () => {
    const key = await makeKey(app, school, { name: 'revoked by the CLI' });
    await warm(key.auth);
    cliOk(await runCliCaptured(app.dataDir, 'key', 'revoke', key.id));
    const res = await app.http.get('/v1/me').set('Authorization', key.auth).expect(401);
    expect(res.body.error).toBe('invalid_api_key');
  });

  it('an institution suspended by the CLI fails on the next request, and works again once approved', async () => {
    const other = await makeInstitution(app, { name: 'Suspended School' });
    const key = await makeKey(app, other);
    await warm(key.auth);
    cliOk(await runCliCaptured(app.dataDir, 'institution', 'suspend', other.id));
    const res = await app.http.get('/v1/me').set('Authorization', key.auth).expect(401);
    expect(res.body.error).toBe('invalid_api_key');
    cliOk(await runCliCaptured(app.dataDir, 'institution', 'approve', other.id));
    await app.http.get('/v1/me').set('Authorization', key.auth).expect(200);
  });

  it('a rate limit changed by another connection applies on the next request', async () => {
    const key = await makeKey(app, school, { rateLimit: 600 });
    await warm(key.auth);
    // Another connection to the same database, as another process would write it.
    const other = await connectDatabase(databaseLocation(app.ctx.config));
    try {
      await other.sequelize.query('UPDATE api_keys SET rate_limit_per_min = 42 WHERE id = :id', { replacements: { id: key.id } });
    } finally {
      await other.close();
    }
    const res = await app.http.get('/v1/me').set('Authorization', key.auth).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('42');
    expect(res.body.data.rate_limit_per_min).toBe(42);
  });

  it('a rate limit changed through this process applies on the next request', async () => {
    const key = await makeKey(app, school, { rateLimit: 600 });
    await warm(key.auth);
    await updateApiKey(school.tenant, key.id, { rate_limit_per_min: 10 });
    const first = await app.http.get('/v1/me').set('Authorization', key.auth).expect(200);
    expect(first.headers['x-ratelimit-limit']).toBe('10');
  });

  it('an unknown key is never served from the cache', async () => {
    const key = await makeKey(app, school);
    await warm(key.auth);
    const forged = `Bearer cb_live_${'A'.repeat(32)}`;
    await app.http.get('/v1/me').set('Authorization', forged).expect(401);
    await app.http.get('/v1/me').set('Authorization', forged).expect(401);
    await app.http.get('/v1/me').set('Authorization', key.auth).expect(200);
  });
});
