// @tier integration
// @databases sqlite, postgres
/**
 * API key lifecycle: an optional expiry, rolling a key with an overlap, and the
 * last use's time and address, over HTTP against a real appliance (127.0.0.1, port 0) and through
 * the command line on the same database. An expired or overlapped-out key answers exactly like an
 * unknown one, even while the key cache holds its row (docs/decisions/api-key-lifecycle.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS, MAX_KEY_LIFETIME_DAYS } from '../../commands/institutions/api-keys.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { cliFails, cliOk, runCliCaptured } from '../../../tests/helpers/cli.js';
import { expectError, institutionApi, ok, portalRequests, setUpPortal, signedInMember, type FirstRun } from '../../../tests/helpers/portal.js';
import { waitFor } from '../../../tests/helpers/wait.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface ListedKey {
  key_id: string;
  name: string;
  scopes: string[];
  rate_limit_per_min: number;
  status: 'active' | 'revoked' | 'expired';
  last_used_at: string | null;
  last_used_ip: string | null;
  expires_at: string | null;
  replaced_by: string | null;
  replaces: string | null;
}

interface CreatedKey {
  key_id: string;
  key: string;
  name: string;
  scopes: string[];
  rate_limit_per_min: number;
  expires_at: string | null;
}

interface RolledKey extends CreatedKey {
  replaces: string;
  old_key: ListedKey;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Within `slackMs` of `expectedMs` (the server reads its clock a moment after the test). */
function expectAbout(actual: string | null, expectedMs: number, slackMs = 10_000): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(new Date(actual!).getTime() - expectedMs)).toBeLessThan(slackMs);
}

describe('API key lifecycle', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  const portal = portalRequests(
    () => admin,
    () => institutionApi(admin.institutionId),
  );

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, { institution: 'Lifecycle High', admin_email: 'admin@lifecycle.test', admin_password: 'lifecycle password 1' });
  });
  afterAll(() => app.close());

  const me = (key: string) => app.http.get('/v1/me').set('Authorization', `Bearer ${key}`);
  async function expectWorks(key: string) {
    const res = await me(key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  }
  async function expectRefused(key: string) {
    const res = await me(key);
    // Exactly as an unknown key answers.
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: 'invalid_api_key' });
  }
  const create = (body: Record<string, unknown>) => portal.post('/keys', { name: 'LMS', scopes: ['students:read'], ...body });
  const createOk = async (body: Record<string, unknown> = {}) => ok<CreatedKey>(await create(body));
  const roll = (keyId: string, body: Record<string, unknown> = {}) => portal.post(`/keys/${keyId}/roll`, body);
  const listed = async (keyId: string) => {
    const found = ok<ListedKey[]>(await portal.get('/keys')).find((key) => key.key_id === keyId);
    expect(found, `key ${keyId} in the list`).toBeDefined();
    return found!;
  };
  const keyCount = async () => ok<ListedKey[]>(await portal.get('/keys')).length;

  describe('expiry', () => {
    it('a key works until its expires_at and answers 401 invalid_api_key from the first request after, cached or not', async () => {
      const expiresAt = Date.now() + 2_500;
      const created = await createOk({ expires_at: new Date(expiresAt).toISOString() });
      expect(created.expires_at).toBe(new Date(expiresAt).toISOString());
      // Several requests, so the key's row is served from the key cache when the expiry passes.
      for (let i = 0; i < 3; i++) await expectWorks(created.key);
      expect(Date.now()).toBeLessThan(expiresAt);
      expect((await listed(created.key_id)).status).toBe('active');

      await sleep(expiresAt - Date.now() + 20);
      await expectRefused(created.key);
      const after = await listed(created.key_id);
      expect(after).toMatchObject({ status: 'expired', expires_at: new Date(expiresAt).toISOString() });
    });

    it('a key without expires_at (or with null) never expires', async () => {
      expect((await createOk()).expires_at).toBeNull();
      const created = await createOk({ expires_at: null });
      expect(created.expires_at).toBeNull();
      expect((await listed(created.key_id)).expires_at).toBeNull();
    });

    it('refuses a past, malformed or too distant expiry with 422 validation_error, making no key', async () => {
      const before = await keyCount();
      const bad = [
        new Date(Date.now() - 60_000).toISOString(),
        'tomorrow',
        '2027-13-01T00:00:00Z',
        '2027-06-30',
        new Date(Date.now() + (MAX_KEY_LIFETIME_DAYS + 1) * DAY_MS).toISOString(),
        1893456000000,
      ];
      for (const expires_at of bad) {
        const res = await create({ expires_at });
        expectError(res, 422, 'validation_error');
        expect(res.body.details, String(expires_at)).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'expires_at' })]));
      }
      expect(await keyCount()).toBe(before);
      // An offset other than Z is ISO 8601 too.
      const withOffset = await createOk({ expires_at: '2028-01-01T09:00:00+02:00' });
      expect(withOffset.expires_at).toBe('2028-01-01T07:00:00.000Z');
    });
  });

  describe('roll', () => {
    it('makes a new key with the same name, scopes and rate limit; both work during the overlap, and the list shows both', async () => {
      const old = await createOk({ name: 'Moodle production', scopes: ['students:read', 'groups:write'], rate_limit_per_min: 120 });
      await expectWorks(old.key);
      const rolledAt = Date.now();
      const rolled = ok<RolledKey>(await roll(old.key_id, { overlap_hours: 24 }));

      expect(rolled.key).toMatch(/^cb_live_[A-Za-z0-9]{32}$/);
      expect(rolled.key).not.toBe(old.key);
      expect(rolled).toMatchObject({
        name: 'Moodle production',
        scopes: ['students:read', 'groups:write'],
        rate_limit_per_min: 120,
        replaces: old.key_id,
        expires_at: null,
      });
      expect(rolled.old_key).toMatchObject({ key_id: old.key_id, status: 'active', replaced_by: rolled.key_id });
      expectAbout(rolled.old_key.expires_at, rolledAt + 24 * HOUR_MS);

      const oldRes = await expectWorks(old.key);
      const newRes = await expectWorks(rolled.key);
      expect(oldRes.body.data.key_id).toBe(old.key_id);
      expect(newRes.body.data).toMatchObject({ key_id: rolled.key_id, scopes: ['students:read', 'groups:write'], rate_limit_per_min: 120 });
      expect(newRes.get('X-RateLimit-Limit')).toBe('120');

      const [oldListed, newListed] = [await listed(old.key_id), await listed(rolled.key_id)];
      expect(oldListed).toMatchObject({ status: 'active', replaced_by: rolled.key_id, replaces: null, expires_at: rolled.old_key.expires_at });
      expect(newListed).toMatchObject({ status: 'active', replaced_by: null, replaces: old.key_id, expires_at: null, name: 'Moodle production' });
    });

    it('with overlap 0 the old key is refused at once, even from the key cache; the new one works', async () => {
      const old = await createOk({ name: 'cut over now' });
      for (let i = 0; i < 3; i++) await expectWorks(old.key);
      const rolled = ok<RolledKey>(await roll(old.key_id, { overlap_hours: 0 }));
      await expectRefused(old.key);
      await expectWorks(rolled.key);
      expect((await listed(old.key_id)).status).toBe('expired');
    });

    it('the overlap defaults to 24 hours and may be up to 168 (7 days)', async () => {
      const a = await createOk({ name: 'default overlap' });
      const t = Date.now();
      expectAbout(ok<RolledKey>(await roll(a.key_id)).old_key.expires_at, t + 24 * HOUR_MS);
      const b = await createOk({ name: 'a week' });
      const u = Date.now();
      expectAbout(ok<RolledKey>(await roll(b.key_id, { overlap_hours: 168 })).old_key.expires_at, u + 168 * HOUR_MS);
    });

    it('refuses an overlap outside 0..168 whole hours with 422, changing nothing', async () => {
      const key = await createOk({ name: 'bad overlaps' });
      const before = await keyCount();
      for (const overlap_hours of [-1, 169, 1.5, '24', null]) {
        const res = await roll(key.key_id, { overlap_hours });
        expectError(res, 422, 'validation_error');
        expect(res.body.details[0].path).toBe('overlap_hours');
      }
      expectError(await roll(key.key_id, { overlap_hours: 1, extra: true }), 422, 'validation_error');
      expect(await keyCount()).toBe(before);
      expect(await listed(key.key_id)).toMatchObject({ replaced_by: null, expires_at: null });
    });

    it('rolling a key twice, a revoked key or an expired key is 409 conflict; an unknown key 404', async () => {
      const key = await createOk({ name: 'rolled once' });
      const rolled = ok<RolledKey>(await roll(key.key_id, { overlap_hours: 2 }));
      const before = await keyCount();
      expectError(await roll(key.key_id, { overlap_hours: 2 }), 409, 'conflict');
      expect(await keyCount()).toBe(before);
      expect((await listed(key.key_id)).replaced_by).toBe(rolled.key_id);
      // Its replacement can be rolled in turn.
      expect(ok<RolledKey>(await roll(rolled.key_id, { overlap_hours: 1 })).replaces).toBe(rolled.key_id);

      const revoked = await createOk({ name: 'revoked' });
      ok(await portal.post(`/keys/${revoked.key_id}/revoke`));
      expectError(await roll(revoked.key_id), 409, 'conflict');

      const ending = await createOk({ name: 'expires soon', expires_at: new Date(Date.now() + 1_000).toISOString() });
      await sleep(1_100);
      expectError(await roll(ending.key_id), 409, 'conflict');

      expectError(await roll('key_doesnotexist'), 404, 'not_found');
    });

    it('an expiring key: the old one never outlives its own expiry, the new one gets the same lifetime from now', async () => {
      const lifetime = 30 * DAY_MS;
      const old = await createOk({ name: 'thirty days', expires_at: new Date(Date.now() + lifetime).toISOString() });
      const createdAt = new Date((await listed(old.key_id)).expires_at!).getTime() - lifetime;
      const rolledAt = Date.now();
      const rolled = ok<RolledKey>(await roll(old.key_id, { overlap_hours: 48 }));
      expectAbout(rolled.old_key.expires_at, rolledAt + 48 * HOUR_MS);
      expectAbout(rolled.expires_at, rolledAt + lifetime);
      expect(createdAt).toBeLessThanOrEqual(rolledAt);

      const shortLived = await createOk({ name: 'two hours left', expires_at: new Date(Date.now() + 2 * HOUR_MS).toISOString() });
      const shortRolled = ok<RolledKey>(await roll(shortLived.key_id, { overlap_hours: 72 }));
      expect(shortRolled.old_key.expires_at).toBe(shortLived.expires_at);
    });

    it('a developer cannot roll a key holding scopes only an admin may grant (403), and can roll their own', async () => {
      const dev = await signedInMember(app, admin.institutionId, 'developer', { email: 'dev@lifecycle.test' });
      const devPortal = portalRequests(
        () => dev,
        () => institutionApi(admin.institutionId),
      );
      const adminScoped = await createOk({ name: 'licenses', scopes: ['licenses:write'] });
      expectError(await devPortal.post(`/keys/${adminScoped.key_id}/roll`, {}), 403, 'forbidden');
      expect((await listed(adminScoped.key_id)).replaced_by).toBeNull();

      const own = ok<CreatedKey>(await devPortal.post('/keys', { name: 'dev key', scopes: ['students:read'] }));
      expect(ok<RolledKey>(await devPortal.post(`/keys/${own.key_id}/roll`, { overlap_hours: 1 })).replaces).toBe(own.key_id);
    });
  });

  it('records the last use time and the address it came from', async () => {
    const created = await createOk({ name: 'watched' });
    expect(await listed(created.key_id)).toMatchObject({ last_used_at: null, last_used_ip: null });
    const before = Date.now();
    await expectWorks(created.key);
    const used = await waitFor(async () => {
      const key = await listed(created.key_id);
      return key.last_used_at ? key : null;
    }, 'last_used_at to be recorded');
    expectAbout(used.last_used_at, before, 5_000);
    // The test connects over IPv4 loopback; Express may show it IPv4-mapped.
    expect(used.last_used_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('a roll is allowed at the 25-key limit, and an expired key no longer counts towards it', async () => {
    const full = await makeInstitution(app, { name: 'Full School' });
    const keys = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) keys.push(await makeKey(app, full, { name: `key ${i}` }));
    cliFails(await runCliCaptured(app, 'key', 'create', '--institution', full.id, '--name', 'one more', '--scopes', 'students:read'), 'key_limit');
    const rolled = cliOk<RolledKey>(await runCliCaptured(app, 'key', 'roll', keys[0]!.id, '--overlap', '0'));
    await expectWorks(rolled.key);
    // The old key ended at once (overlap 0): the institution is back at 25 usable keys, not 26.
    cliFails(await runCliCaptured(app, 'key', 'create', '--institution', full.id, '--name', 'one more', '--scopes', 'students:read'), 'key_limit');
    // A key that has expired frees its place.
    const expiring = await full.tenant.apiKeys.update({ expires_at: new Date(Date.now() - 1_000) }, { id: keys[1]!.id });
    expect(expiring).toBe(1);
    cliOk(await runCliCaptured(app, 'key', 'create', '--institution', full.id, '--name', 'one more', '--scopes', 'students:read'));
  });

  describe('command line', () => {
    it('key create --expires sets the expiry; a past or malformed one fails with validation_error', async () => {
      const expires = new Date(Date.now() + 10 * DAY_MS).toISOString();
      const created = cliOk<CreatedKey>(
        await runCliCaptured(
          app,
          'key',
          'create',
          '--institution',
          admin.institutionId,
          '--name',
          'cli expiring',
          '--scopes',
          'students:read',
          '--expires',
          expires,
        ),
      );
      expect(created.expires_at).toBe(expires);
      await expectWorks(created.key);
      expect((await listed(created.key_id)).expires_at).toBe(expires);

      for (const bad of ['2020-01-01T00:00:00Z', 'next week']) {
        cliFails(
          await runCliCaptured(app, 'key', 'create', '--institution', admin.institutionId, '--name', 'bad', '--scopes', 'students:read', '--expires', bad),
          'validation_error',
        );
      }
    });

    it('key roll --overlap makes the new key, ends the old one after the overlap; twice is conflict', async () => {
      const old = cliOk<CreatedKey>(
        await runCliCaptured(
          app,
          'key',
          'create',
          '--institution',
          admin.institutionId,
          '--name',
          'cli rolled',
          '--scopes',
          'groups:read',
          '--rate-limit',
          '90',
        ),
      );
      const rolledAt = Date.now();
      const rolled = cliOk<RolledKey>(await runCliCaptured(app, 'key', 'roll', old.key_id, '--overlap', '6'));
      expect(rolled).toMatchObject({ name: 'cli rolled', scopes: ['groups:read'], rate_limit_per_min: 90, replaces: old.key_id });
      expect(rolled.old_key.replaced_by).toBe(rolled.key_id);
      expectAbout(rolled.old_key.expires_at, rolledAt + 6 * HOUR_MS);
      await expectWorks(old.key);
      await expectWorks(rolled.key);

      cliFails(await runCliCaptured(app, 'key', 'roll', old.key_id), 'conflict');
      for (const bad of ['169', '-1', '', 'two']) {
        cliFails(await runCliCaptured(app, 'key', 'roll', rolled.key_id, '--overlap', bad), 'validation_error');
      }

      // Overlap 0 through the CLI: the running appliance refuses the old key on its next request.
      const now = cliOk<RolledKey>(await runCliCaptured(app, 'key', 'roll', rolled.key_id, '--overlap', '0'));
      await expectRefused(rolled.key);
      await expectWorks(now.key);
    });
  });
});
