// @tier integration
// @databases sqlite: the documents are built from the route declarations; no query in them differs between the databases
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { expressPath, mountRoutes } from '../server/http/mount.js';
import { buildOpenApiDocument } from '../server/http/openapi.js';
import { LoginThrottle } from '../server/portal/login-throttle.js';
import { apiRoutes, portalRoutes } from '../server/routes/index.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from './helpers/appliance.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PROBE_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The tags of docs/api.md#operations. */
const SPEC_TAGS = [
  'Meta',
  'Institution',
  'Students',
  'Faculty',
  'Groups',
  'Licenses',
  'SSO',
  'Exams',
  'Exams (coding)',
  'Submissions',
  'Coupons',
  'Merits',
  'Guardians',
  'Alpha Learning',
  'Webhooks',
  'Events',
];

/** The Meta, Institution and Events operations of docs/api.md#operations, with their scopes. */
const SPEC_OPERATIONS: Array<[method: string, path: string, scope: string]> = [
  ['get', '/me', 'any'],
  ['get', '/scopes', 'any'],
  ['get', '/institution', 'institution:read'],
  ['get', '/institution/config', 'institution:read'],
  ['put', '/institution/config', 'institution:write'],
  ['get', '/events', 'webhooks:read'],
  ['get', '/events/types', 'webhooks:read'],
];

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
  'x-required-scope'?: string;
  'x-auth'?: 'key' | 'session' | 'none';
};
type Doc = {
  openapi: string;
  info: { version: string; title: string };
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

function operationsOf(doc: Doc) {
  const ops: Array<{ method: string; path: string; op: Operation }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) ops.push({ method, path, op });
    }
  }
  return ops;
}

const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => `probe_${name}`);

describe('OpenAPI document and explorer', () => {
  let app: TestAppliance;
  let doc: Doc;
  beforeAll(async () => {
    app = await startTestAppliance();
    const res = await app.http.get('/v1/openapi.json');
    doc = res.body as Doc;
  });
  afterAll(() => app.close());

  describe('GET /v1/openapi.json', () => {
    it('is served without a key: 200 JSON, OpenAPI 3.1, version label 2026-09-14', async () => {
      const res = await app.http.get('/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.body.openapi).toMatch(/^3\.1(\.\d+)?$/);
      expect(res.body.info.version).toBe('2026-09-14');
      expect(typeof res.body.info.title).toBe('string');
    });

    it('is served with any Authorization header too (no key needed, none checked)', async () => {
      const garbage = await app.http.get('/v1/openapi.json').set('Authorization', 'Bearer nonsense');
      expect(garbage.status).toBe(200);
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['students:read'] });
      const withKey = await app.http.get('/v1/openapi.json').set('Authorization', key.auth);
      expect(withKey.status).toBe(200);
      expect(withKey.body).toEqual(doc);
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toMatch(/^3\.1/);
    });

    it('documents every route of apiRoutes with its method and operationId', () => {
      expect(apiRoutes.length).toBeGreaterThan(0);
      for (const route of apiRoutes) {
        const op = doc.paths[route.path]?.[route.method];
        expect(op, `${route.method.toUpperCase()} ${route.path}`).toBeDefined();
        expect(op!.operationId).toBe(route.operationId);
        expect(op!['x-auth']).toBe({ key: 'key', learner: 'session', anyone: 'none' }[route.caller]);
        expect(op!['x-required-scope']).toBe(route.caller === 'key' ? route.scope : undefined);
        expect(op!.tags).toEqual([route.tag]);
      }
    });

    it('documents nothing else: every documented operation is a route of apiRoutes', () => {
      const documented = operationsOf(doc)
        .map(({ method, path, op }) => `${method} ${path} ${op.operationId}`)
        .sort();
      const routes = apiRoutes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort();
      expect(documented).toEqual(routes);
    });

    it('every documented operation is mounted: without credentials it answers 401 unauthorized, not 404', async () => {
      for (const { method, path, op } of operationsOf(doc)) {
        if (op['x-auth'] === 'none') continue;
        const res = await app.http[method as (typeof PROBE_METHODS)[number]](`/v1${concrete(path)}`);
        expect(res.status, `${method.toUpperCase()} ${path}`).toBe(401);
        expect(res.body.error, `${method.toUpperCase()} ${path}`).toBe('unauthorized');
      }
    });

    it('methods that are not documented on a documented path are not mounted (404 not_found)', async () => {
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of PROBE_METHODS) {
          if (item[method]) continue;
          // Another documented template may match the same concrete URL (e.g. /x/{id} vs /x/types).
          const url = concrete(path);
          const shadowed = Object.entries(doc.paths).some(
            ([other, otherItem]) => other !== path && otherItem[method] && new RegExp(`^${expressPath(other).replace(/:\w+/g, '[^/]+')}$`).test(url),
          );
          if (shadowed) continue;
          const res = await app.http[method](`/v1${url}`);
          expect(res.status, `${method.toUpperCase()} ${path}`).toBe(404);
          expect(res.body.error, `${method.toUpperCase()} ${path}`).toBe('not_found');
        }
      }
    });

    it('every operation shows an example of its answer (files excepted: their answer is the bytes)', () => {
      const schemas = (doc.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {};
      const hasExample = (node: unknown, seen = new Set<unknown>()): boolean => {
        if (!node || typeof node !== 'object' || seen.has(node)) return false;
        seen.add(node);
        if ('example' in node || 'examples' in node) return true;
        const ref = (node as { $ref?: string }).$ref;
        if (ref) return hasExample(schemas[ref.split('/').pop()!], seen);
        return Object.values(node).some((child) => hasExample(child, seen));
      };
      const missing = operationsOf(doc)
        .filter(({ op }) => !op.responses['200']?.content?.['application/octet-stream'])
        .filter(({ op }) => !hasExample(op.responses['200']))
        .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
      expect(missing).toEqual([]);
    });

    it('operationIds are unique', () => {
      const ids = operationsOf(doc).map(({ op }) => op.operationId);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('each key operation documents 200 and the 401, 403, 422 and 429 answers', () => {
      for (const { method, path, op } of operationsOf(doc)) {
        if (op['x-auth'] !== 'key') continue;
        const where = `${method.toUpperCase()} ${path}`;
        for (const status of ['200', '401', '403', '422', '429']) {
          expect(op.responses[status], `${where} ${status}`).toBeDefined();
          // Errors are always the JSON envelope; a success may be another media type (CSV export).
          if (status !== '200') expect(op.responses[status]!.content?.['application/json'], `${where} ${status}`).toBeDefined();
          else expect(Object.keys(op.responses[status]!.content ?? {}), `${where} ${status}`).toHaveLength(1);
        }
        expect(op.responses['401']!.description).toMatch(/unauthorized/);
        expect(op.responses['401']!.description).toMatch(/invalid_api_key/);
        expect(op.responses['403']!.description).toMatch(/insufficient_scope/);
        expect(op.responses['403']!.description).toMatch(/institution_not_approved/);
        expect(op.responses['422']!.description).toMatch(/validation_error/);
        expect(op.responses['429']!.description).toMatch(/rate_limited/);
      }
    });

    it('each operation names its credentials: API key, learner session, or none', () => {
      const schemes = doc.components?.securitySchemes ?? {};
      expect(schemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(schemes.learnerSession).toMatchObject({ type: 'http', scheme: 'bearer' });
      const expected = { key: [{ apiKey: [] }], session: [{ learnerSession: [] }], none: [] };
      for (const { method, path, op } of operationsOf(doc)) {
        expect(op['x-auth'], `${method} ${path}`).toMatch(/^(key|session|none)$/);
        expect(op.security, `${method} ${path}`).toEqual(expected[op['x-auth']!]);
        if (op['x-auth'] !== 'key') expect(path.startsWith('/app/') || op['x-auth'] === 'none', path).toBe(true);
      }
    });

    it('each path parameter is declared, required and in the path', () => {
      for (const { method, path, op } of operationsOf(doc)) {
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(declared.map((p) => p.name).sort(), `${method} ${path}`).toEqual([...names].sort());
        for (const p of declared) expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
      }
    });

    it('uses only the tags of the specification', () => {
      for (const { method, path, op } of operationsOf(doc)) {
        expect(op.tags?.length, `${method} ${path}`).toBe(1);
        expect(SPEC_TAGS, `${method} ${path}`).toContain(op.tags![0]);
      }
    });

    it('has the Meta, Institution and Events operations of the specification with their scopes', () => {
      for (const [method, path, scope] of SPEC_OPERATIONS) {
        const op = doc.paths[path]?.[method as 'get'];
        expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
        expect(op!['x-required-scope'], `${method.toUpperCase()} ${path}`).toBe(scope);
      }
      // A `since` older than the retention answers 410 event_pruned.
      expect(doc.paths['/events']!.get!.responses['410']?.description).toMatch(/event_pruned/);
      // The polling query is documented.
      const query = (doc.paths['/events']!.get!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect(query.sort()).toEqual(['limit', 'since', 'type']);
      // PUT /institution/config requires a JSON body.
      const put = doc.paths['/institution/config']!.put! as Operation & { requestBody?: { required?: boolean; content?: Record<string, unknown> } };
      expect(put.requestBody?.required).toBe(true);
      expect(put.requestBody?.content?.['application/json']).toBeDefined();
    });
  });

  describe('GET /v1/docs (explorer)', () => {
    it('/v1/docs leads to the explorer page', async () => {
      const res = await app.http.get('/v1/docs').redirects(2);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('swagger-ui');
    });

    it('/v1/docs/ is an HTML page whose scripts and styles are all served locally', async () => {
      const res = await app.http.get('/v1/docs/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const html = res.text;

      const scripts = [...html.matchAll(/<script\b([^>]*)>/gi)].map((m) => m[1]!);
      // CSP allows scripts from 'self' only: no inline script may be needed.
      for (const attrs of scripts) expect(attrs, 'inline <script>').toMatch(/\bsrc\s*=/i);
      const scriptSrcs = scripts.map((attrs) => /\bsrc\s*=\s*["']([^"']+)["']/i.exec(attrs)![1]!);
      const links = [...html.matchAll(/<link\b([^>]*)>/gi)].map((m) => m[1]!);
      const linkHrefs = links.map((attrs) => /\bhref\s*=\s*["']([^"']+)["']/i.exec(attrs)?.[1]).filter((href): href is string => !!href);
      const assets = [...scriptSrcs, ...linkHrefs];

      for (const asset of assets) {
        // Offline: nothing from another host (absolute http(s) or protocol-relative URLs).
        expect(asset, asset).not.toMatch(/^(https?:)?\/\//i);
      }
      expect(html).not.toMatch(/@import\s+url\(\s*["']?(https?:)?\/\//i);

      const required = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-init.js'];
      for (const name of required)
        expect(
          assets.some((asset) => asset.endsWith(name)),
          name,
        ).toBe(true);

      for (const asset of assets) {
        const url = new URL(asset, `${app.origin}/v1/docs/`);
        expect(url.origin).toBe(app.origin);
        expect(url.pathname.startsWith('/v1/docs/'), asset).toBe(true);
        const served = await app.http.get(url.pathname);
        expect(served.status, url.pathname).toBe(200);
        expect(Number(served.headers['content-length'] ?? (served.text ?? served.body)?.length ?? 0), url.pathname).toBeGreaterThan(0);
      }
    });

    it.each([
      ['swagger-ui.css', /text\/css/],
      ['swagger-ui-bundle.js', /javascript/],
      ['swagger-ui-init.js', /javascript/],
    ])('/v1/docs/%s is served with 200', async (name, type) => {
      const res = await app.http.get(`/v1/docs/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.text.length).toBeGreaterThan(100);
    });

    it('the explorer embeds this document instead of fetching one from elsewhere', async () => {
      const init = await app.http.get('/v1/docs/swagger-ui-init.js');
      expect(init.status).toBe(200);
      expect(init.text).toContain('2026-09-14');
      expect(init.text).toContain(doc.info.title);
      expect(init.text).not.toMatch(/petstore/i);
    });

    it('the stylesheet imports nothing from another host', async () => {
      const css = await app.http.get('/v1/docs/swagger-ui.css');
      expect(css.text).not.toMatch(/@import\s+(url\()?\s*["']?(https?:)?\/\//i);
      expect(css.text).not.toMatch(/url\(\s*["']?https?:\/\//i);
    });

    it('the page is served with a Content-Security-Policy that allows scripts and styles from itself only', async () => {
      const res = await app.http.get('/v1/docs/');
      const csp = String(res.headers['content-security-policy'] ?? '');
      const directive = (name: string) =>
        csp
          .split(';')
          .map((part) => part.trim())
          .find((part) => part.startsWith(`${name} `)) ?? '';
      expect(directive('script-src')).toBe("script-src 'self'");
      expect(directive('style-src')).not.toMatch(/https?:/);
    });
  });
});

describe('the portal API document (GET /portal/api/openapi.json)', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  it('is a valid OpenAPI 3.1 document, without a session, listing every portal operation and every institution operation it serves', async () => {
    const res = await app.http.get('/portal/api/openapi.json');
    expect(res.status).toBe(200);
    const portalDoc = res.body as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown[]; 'x-auth'?: string; responses: Record<string, unknown> }>>;
      info: { description: string };
    };
    const validator = new Validator();
    const result = await validator.validate(structuredClone(portalDoc) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    const routes = portalRoutes(new LoginThrottle());
    expect(routes.length).toBeGreaterThan(30);
    for (const route of routes) expect(portalDoc.paths[route.path]?.[route.method], `${route.method} ${route.path}`).toBeDefined();
    // Every /v1 key operation but `/me` is served to members under /institutions/{institution}, and documented there.
    const served = apiRoutes.filter((route) => route.caller === 'key' && !route.keyOnly);
    expect(served.length).toBeGreaterThan(60);
    for (const route of served) {
      const operation = portalDoc.paths[`/institutions/{institution}${route.path}`]?.[route.method];
      expect(operation, `${route.method} /institutions/{institution}${route.path}`).toBeDefined();
      expect(operation?.security).toEqual([{ portalSession: [] }]);
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
    }
    expect(portalDoc.paths['/institutions/{institution}/me']).toBeUndefined();
    // Nothing else: every documented path is a portal route or a served institution operation.
    const documented = new Set([...routes.map((route) => route.path), ...served.map((route) => `/institutions/{institution}${route.path}`)]);
    expect(Object.keys(portalDoc.paths).filter((path) => !documented.has(path))).toEqual([]);
    expect(portalDoc.info.description).toContain('/v1/openapi.json');
  });

  it('comes from the same generator as /v1: unique operation ids, the cookie scheme, the error codes each access rule can answer', async () => {
    const portalDoc = (await app.http.get('/portal/api/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { operationId: string; security: Array<Record<string, unknown>>; 'x-auth': string; responses: Record<string, unknown> }>
      >;
      components: { securitySchemes: Record<string, { in?: string; name?: string }> };
    };
    const operations = Object.values(portalDoc.paths).flatMap((item) => Object.values(item));
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.every((operation) => operation['x-auth'] === 'portal')).toBe(true);
    expect(portalDoc.components.securitySchemes.portalSession).toMatchObject({ in: 'cookie', name: 'cb_portal' });
    const login = portalDoc.paths['/login']?.post;
    expect(login?.security).toEqual([]);
    const keys = portalDoc.paths['/institutions/{id}/keys']?.get;
    expect(keys?.security).toEqual([{ portalSession: [] }]);
    // A member operation can answer 404 for an institution the caller is not in; a sign-in cannot answer 401.
    expect(Object.keys(keys?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '403', '404', '422']));
    expect(Object.keys(login?.responses ?? {})).not.toContain('401');
  });

  it('keeps each kind of operation under its own mount', () => {
    const router = express.Router();
    const portalOnly = portalRoutes(new LoginThrottle()).find((route) => route.caller !== 'anyone');
    const keyOperation = apiRoutes.find((route) => route.caller === 'key');
    expect(() => mountRoutes(router, app.ctx, [portalOnly!], '/v1')).toThrow(/cannot be mounted under \/v1/);
    expect(() => mountRoutes(router, app.ctx, [keyOperation!], '/portal/api')).toThrow(/cannot be mounted under \/portal\/api/);
    expect(() => buildOpenApiDocument([portalOnly!], 'api')).toThrow(/does not belong/);
  });
});
