// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../policies/scopes.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const FIELDS = ['default_ai_policy', 'default_proctoring', 'allowed_toolchains', 'toolchain_mirror', 'lms'] as const;

/** What a new institution starts with (the appliance's documented defaults). */
const DEFAULT_CONFIG = {
  default_ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
  default_proctoring: { camera: false, screen: false },
  allowed_toolchains: [],
  toolchain_mirror: null,
  lms: {},
};

const fullConfig = () => ({
  default_ai_policy: { allowed: true, model_tier: 'advanced', max_interactions: 40 },
  default_proctoring: { camera: true, screen: true },
  allowed_toolchains: ['python-3.12', 'node-20'],
  toolchain_mirror: { url: 'https://mirror.riverside.example/toolchains' },
  lms: { name: 'Moodle', base_url: 'https://lms.riverside.example', client_id: 'abc' },
});

describe('Institution: profile and integration config', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  async function setup(scopes: Scope[] = ['institution:write']): Promise<{ inst: TestInstitution; key: TestKey }> {
    const inst = await makeInstitution(app, { name: `Inst ${Math.random().toString(36).slice(2, 8)}` });
    const key = await makeKey(app, inst, { scopes });
    return { inst, key };
  }

  const getConfig = (key: TestKey) => app.http.get('/v1/institution/config').set('Authorization', key.auth);
  const putConfig = (key: TestKey, body: unknown) =>
    app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(JSON.stringify(body));

  describe('GET /v1/institution', () => {
    it('returns {id, name, status, created_at, counts} with integer counts', async () => {
      const inst = await makeInstitution(app, { name: 'Riverside High' });
      const key = await makeKey(app, inst, { scopes: ['institution:read'] });
      const res = await app.http.get('/v1/institution').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['counts', 'created_at', 'id', 'name', 'status']);
      expect(data.id).toBe(inst.id);
      expect(data.name).toBe('Riverside High');
      expect(data.status).toBe('approved');
      expect(data.created_at).toMatch(ISO_MS);
      expect(Math.abs(Date.parse(data.created_at) - Date.now())).toBeLessThan(60_000);
      expect(Object.keys(data.counts).sort()).toEqual(['active_licenses', 'exams', 'faculty', 'groups', 'students']);
      for (const [name, value] of Object.entries(data.counts)) {
        expect(Number.isInteger(value), name).toBe(true);
        expect(value as number, name).toBeGreaterThanOrEqual(0);
      }
      // Nothing provisioned yet.
      expect(data.counts).toEqual({ students: 0, faculty: 0, groups: 0, exams: 0, active_licenses: 0 });
    });

    it('does not expose the integration config or anything else', async () => {
      const { key } = await setup(['institution:write']);
      const res = await app.http.get('/v1/institution').set('Authorization', key.auth);
      expect(res.status).toBe(200);
      expect(res.body.data).not.toHaveProperty('config');
    });

    it('each key sees its own institution', async () => {
      const a = await setup(['institution:read']);
      const b = await setup(['institution:read']);
      const ra = await app.http.get('/v1/institution').set('Authorization', a.key.auth);
      const rb = await app.http.get('/v1/institution').set('Authorization', b.key.auth);
      expect(ra.body.data.id).toBe(a.inst.id);
      expect(rb.body.data.id).toBe(b.inst.id);
      expect(rb.body.data.name).toBe(b.inst.name);
    });

    it('needs institution:read (institution:write implies it)', async () => {
      const wrong = await setup(['students:write']);
      const denied = await app.http.get('/v1/institution').set('Authorization', wrong.key.auth);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ success: false, error: 'insufficient_scope', required: ['institution:read'], missing: ['institution:read'] });

      const write = await setup(['institution:write']);
      expect((await app.http.get('/v1/institution').set('Authorization', write.key.auth)).status).toBe(200);

      expect((await app.http.get('/v1/institution')).status).toBe(401);
    });
  });

  describe('GET /v1/institution/config', () => {
    it('returns the five fields with their defaults for a new institution', async () => {
      const { key } = await setup(['institution:read']);
      const res = await getConfig(key);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(Object.keys(res.body.data).sort()).toEqual([...FIELDS].sort());
      expect(res.body.data).toEqual(DEFAULT_CONFIG);
    });

    it('needs institution:read', async () => {
      const { key } = await setup(['webhooks:write']);
      const res = await getConfig(key);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('insufficient_scope');
    });
  });

  describe('PUT /v1/institution/config', () => {
    it('stores and returns the config; GET returns the same', async () => {
      const { key } = await setup();
      const config = fullConfig();
      const put = await putConfig(key, config);
      expect(put.status).toBe(200);
      expect(put.body.success).toBe(true);
      expect(put.body.data).toEqual(config);
      const get = await getConfig(key);
      expect(get.status).toBe(200);
      expect(get.body.data).toEqual(config);
    });

    it('replaces the whole config: keys dropped from a later PUT are gone (no merge)', async () => {
      const { key } = await setup();
      expect((await putConfig(key, fullConfig())).status).toBe(200);

      const second = {
        default_ai_policy: { allowed: false },
        default_proctoring: { screen: true },
        allowed_toolchains: ['java-21'],
        toolchain_mirror: null,
        lms: { name: 'Canvas' },
      };
      const put = await putConfig(key, second);
      expect(put.status).toBe(200);
      expect(put.body.data).toEqual(second);

      const get = await getConfig(key);
      expect(get.body.data).toEqual(second);
      expect(get.body.data.lms).not.toHaveProperty('base_url');
      expect(get.body.data.lms).not.toHaveProperty('client_id');
      expect(get.body.data.default_ai_policy).not.toHaveProperty('model_tier');
      expect(get.body.data.default_ai_policy).not.toHaveProperty('max_interactions');
      expect(get.body.data.default_proctoring).not.toHaveProperty('camera');
      expect(get.body.data.allowed_toolchains).toEqual(['java-21']);
      expect(get.body.data.toolchain_mirror).toBeNull();
    });

    it('toolchain_mirror may be null, and an empty lms / empty toolchain list are fine', async () => {
      const { key } = await setup();
      const config = { ...fullConfig(), toolchain_mirror: null, lms: {}, allowed_toolchains: [] };
      const put = await putConfig(key, config);
      expect(put.status).toBe(200);
      expect(put.body.data.toolchain_mirror).toBeNull();
      expect((await getConfig(key)).body.data).toEqual(config);
    });

    it.each(FIELDS)('requires %s: missing → 422 validation_error naming it, nothing stored', async (field) => {
      const { key } = await setup();
      const body: Record<string, unknown> = fullConfig();
      delete body[field];
      const res = await putConfig(key, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: 'validation_error' });
      expect(typeof res.body.message).toBe('string');
      expect(Array.isArray(res.body.details)).toBe(true);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
      for (const detail of res.body.details) expect(typeof detail.message).toBe('string');
      expect((await getConfig(key)).body.data).toEqual(DEFAULT_CONFIG);
    });

    it('an empty body → 422 naming all five fields', async () => {
      const { key } = await setup();
      const res = await putConfig(key, {});
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      const paths = res.body.details.map((d: { path: string }) => d.path);
      for (const field of FIELDS) expect(paths).toContain(field);
    });

    it('unknown top-level fields → 422 naming the field, nothing stored', async () => {
      const { key } = await setup();
      const res = await putConfig(key, { ...fullConfig(), sso_domain: 'riverside.example' });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('sso_domain');
      expect((await getConfig(key)).body.data).toEqual(DEFAULT_CONFIG);
    });

    it('unknown fields inside the AI policy or proctoring objects → 422', async () => {
      const { key } = await setup();
      const ai = await putConfig(key, { ...fullConfig(), default_ai_policy: { allowed: true, budget: 5 } });
      expect(ai.status).toBe(422);
      expect(ai.body.error).toBe('validation_error');
      expect(ai.body.details.map((d: { path: string }) => d.path)).toContain('default_ai_policy.budget');

      const pr = await putConfig(key, { ...fullConfig(), default_proctoring: { camera: true, microphone: true } });
      expect(pr.status).toBe(422);
      expect(pr.body.details.map((d: { path: string }) => d.path)).toContain('default_proctoring.microphone');
    });

    it.each([
      ['default_ai_policy', 'on'],
      ['default_ai_policy', null],
      ['default_ai_policy', { allowed: 'yes' }],
      ['default_ai_policy', { max_interactions: 2.5 }],
      ['default_ai_policy', { max_interactions: -1 }],
      ['default_proctoring', []],
      ['default_proctoring', { camera: 1 }],
      ['allowed_toolchains', 'python-3.12'],
      ['allowed_toolchains', [42]],
      ['allowed_toolchains', ['']],
      ['allowed_toolchains', null],
      ['toolchain_mirror', 'https://mirror.example'],
      ['toolchain_mirror', 5],
      ['lms', null],
      ['lms', 'Moodle'],
      ['lms', ['Moodle']],
    ])('wrong type: %s = %j → 422 naming the field', async (field, value) => {
      const { key } = await setup();
      const res = await putConfig(key, { ...fullConfig(), [field]: value });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      const paths: string[] = res.body.details.map((d: { path: string }) => d.path);
      expect(paths.some((path) => path === field || path.startsWith(`${field}.`))).toBe(true);
      expect((await getConfig(key)).body.data).toEqual(DEFAULT_CONFIG);
    });

    it('duplicate toolchains → 422 validation_error', async () => {
      const { key } = await setup();
      const res = await putConfig(key, { ...fullConfig(), allowed_toolchains: ['python-3.12', 'node-20', 'python-3.12'] });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('allowed_toolchains');
      expect((await getConfig(key)).body.data).toEqual(DEFAULT_CONFIG);
    });

    it('a body that is not an object, or malformed JSON → 422 validation_error', async () => {
      const { key } = await setup();
      const array = await putConfig(key, [fullConfig()]);
      expect(array.status).toBe(422);
      expect(array.body.error).toBe('validation_error');

      const malformed = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send('{"lms": ');
      expect(malformed.status).toBe(422);
      expect(malformed.body.error).toBe('validation_error');
    });

    it('needs institution:write (institution:read is not enough)', async () => {
      const { key } = await setup(['institution:read']);
      const res = await putConfig(key, fullConfig());
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: 'insufficient_scope', required: ['institution:write'], missing: ['institution:write'] });
      expect((await getConfig(key)).body.data).toEqual(DEFAULT_CONFIG);
    });

    it('is per institution: a PUT by A does not change B', async () => {
      const a = await setup();
      const b = await setup();
      const configB = { ...fullConfig(), lms: { name: 'Canvas' }, allowed_toolchains: ['go-1.23'] };
      expect((await putConfig(b.key, configB)).status).toBe(200);

      expect((await putConfig(a.key, fullConfig())).status).toBe(200);
      expect((await getConfig(b.key)).body.data).toEqual(configB);

      const replaced = { ...fullConfig(), lms: {} };
      expect((await putConfig(a.key, replaced)).status).toBe(200);
      expect((await getConfig(a.key)).body.data).toEqual(replaced);
      expect((await getConfig(b.key)).body.data).toEqual(configB);

      // A third institution that nobody touched keeps the defaults.
      const c = await setup(['institution:read']);
      expect((await getConfig(c.key)).body.data).toEqual(DEFAULT_CONFIG);
    });
  });
});
