// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';

/** The 25 scopes, copied from docs/api.md#scopes (not from the code). */
const SPEC_SCOPES = [
  'students:read',
  'students:write',
  'faculty:read',
  'faculty:write',
  'groups:read',
  'groups:write',
  'licenses:read',
  'licenses:write',
  'exams:read',
  'exams:write',
  'submissions:read',
  'submissions:write',
  'coupons:read',
  'coupons:write',
  'merits:read',
  'merits:write',
  'guardians:read',
  'guardians:write',
  'alpha:read',
  'alpha:write',
  'institution:read',
  'institution:write',
  'webhooks:read',
  'webhooks:write',
  'sso:write',
];

describe('Meta: GET /v1/me and GET /v1/scopes', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  describe('GET /v1/me', () => {
    it('describes the calling key with exactly the documented fields', async () => {
      const inst = await makeInstitution(app, { name: 'Riverside High' });
      const key = await makeKey(app, inst, { scopes: ['students:read', 'exams:write'], rateLimit: 120, name: 'Moodle sync' });

      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['environment', 'institution', 'key_id', 'name', 'rate_limit_per_min', 'request_id', 'scopes'].sort());
      expect(data.key_id).toBe(key.id);
      expect(data.key_id).toMatch(/^key_/);
      expect(data.name).toBe('Moodle sync');
      expect(data.environment).toBe('live');
      expect(data.institution).toEqual({ id: inst.id, name: 'Riverside High' });
      expect([...data.scopes].sort()).toEqual(['exams:write', 'students:read']);
      expect(data.rate_limit_per_min).toBe(120);
      expect(typeof data.request_id).toBe('string');
      expect(data.request_id.length).toBeGreaterThan(0);
      expect(data.request_id).toBe(res.headers['x-request-id']);
    });

    it('never reveals the key, its hash or its prefix/last4', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['sso:write'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(key.key);
      expect(res.text).not.toContain(key.key.slice(8)); // the 32 random characters
      expect(res.body.data).not.toHaveProperty('key');
      expect(res.body.data).not.toHaveProperty('key_hash');
    });

    it('echoes a well-formed X-Request-Id in request_id and the header', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['groups:read'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth).set('X-Request-Id', 'lms-sync.42_a-b');
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe('lms-sync.42_a-b');
      expect(res.body.data.request_id).toBe('lms-sync.42_a-b');
    });

    it('generates a request id when the one sent is not acceptable, and returns the same in /me', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['groups:read'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth).set('X-Request-Id', 'has spaces and ünïcode');
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).not.toBe('has spaces and ünïcode');
      expect(res.body.data.request_id).toBe(res.headers['x-request-id']);
    });

    it('a key holding all scopes lists the 25 of the specification', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['all'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect([...res.body.data.scopes].sort()).toEqual([...SPEC_SCOPES].sort());
    });

    it('needs a key: none → 401 unauthorized, unknown → 401 invalid_api_key', async () => {
      const none = await app.http.get('/v1/me');
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ success: false, error: 'unauthorized' });
      expect(typeof none.body.message).toBe('string');

      const unknown = await app.http.get('/v1/me').set('Authorization', `Bearer cb_live_${'A'.repeat(32)}`);
      expect(unknown.status).toBe(401);
      expect(unknown.body).toMatchObject({ success: false, error: 'invalid_api_key' });
    });

    it('needs no particular scope', async () => {
      const inst = await makeInstitution(app);
      for (const scope of ['sso:write', 'webhooks:read', 'institution:read'] as const) {
        const key = await makeKey(app, inst, { scopes: [scope] });
        const res = await app.http.get('/v1/me').set('Authorization', key.auth);
        expect(res.status, scope).toBe(200);
        expect(res.body.data.scopes).toEqual([scope]);
      }
    });
  });

  describe('GET /v1/scopes', () => {
    it('lists exactly the 25 scopes of the specification, each with a non-empty description', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['sso:write'] }); // any valid key will do
      const res = await app.http.get('/v1/scopes').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const items = res.body.data.items as Array<Record<string, unknown>>;
      expect(Array.isArray(items)).toBe(true);
      expect(items).toHaveLength(25);
      expect(items.map((item) => item.scope).sort()).toEqual([...SPEC_SCOPES].sort());
      for (const item of items) {
        expect(Object.keys(item).sort(), String(item.scope)).toEqual(['admin_only', 'description', 'scope']);
        expect(typeof item.description, String(item.scope)).toBe('string');
        expect((item.description as string).trim().length, String(item.scope)).toBeGreaterThan(0);
        expect(item.admin_only, String(item.scope)).toBe(
          ['licenses:read', 'licenses:write', 'institution:write', 'merits:write', 'coupons:write'].includes(String(item.scope)),
        );
      }
    });

    it('is not paged: data is {items} only', async () => {
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['groups:read'] });
      const res = await app.http.get('/v1/scopes').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(['items']);
    });

    it('needs a key', async () => {
      const res = await app.http.get('/v1/scopes');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: 'unauthorized' });
    });
  });
});
