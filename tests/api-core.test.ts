// @tier integration
// @databases sqlite, postgres
/**
 * The wire rules of docs/api.md (envelope, errors, order of checks, limits, ids), over HTTP against a real
 * appliance (127.0.0.1, port 0, real SQLite file). Where no route of this build can exercise a
 * rule (a 500, the clock edge of a rate window), the real middleware is mounted in a tiny
 * express app on 127.0.0.1 and driven the same way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express, { type Express } from 'express';
import { UniqueConstraintError } from 'sequelize';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { revokeApiKey } from '../server/commands/institutions/api-keys.js';
import { setInstitutionStatus } from '../server/commands/institutions/institutions.js';
import { AppError } from '../server/errors.js';
import { emit } from '../server/events/emit.js';
import { errorHandler, toAppError } from '../server/http/error-handler.js';
import { MemoryRateLimitStore, rateLimit } from '../server/http/rate-limit.js';
import { requestId } from '../server/http/request-id.js';
import { pageQuery } from '../server/validation/schemas.js';
import { createLogger } from '../server/logger.js';
import { ALL_SCOPES, SCOPES } from '../server/policies/scopes.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from './helpers/appliance.js';

// ---------------------------------------------------------------------------------------------
// Helpers local to this file
// ---------------------------------------------------------------------------------------------

type Res = supertest.Response;

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const KEY_ID = /^key_[A-Za-z0-9]+$/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** If fewer than `seconds` remain in the current clock-aligned minute, wait for the next one. */
async function ensureWindowRoom(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await sleep(left + 100);
}

const windowEndSeconds = (ms: number) => (Math.floor(ms / 60_000) + 1) * 60;

/** The error envelope, exactly: status, code, a message, and X-Request-Id. */
function expectError(res: Res, status: number, code: string): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: code });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.get('Content-Type')).toMatch(/^application\/json/);
  expect(res.get('X-Request-Id')).toMatch(REQUEST_ID);
}

/** A plain error: exactly `success`, `error`, `message`, nothing else. */
function expectPlainError(res: Res, status: number, code: string): void {
  expectError(res, status, code);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'success']);
}

function expectValidationError(res: Res): Array<{ path: string; message: string }> {
  expectError(res, 422, 'validation_error');
  expect(Object.keys(res.body).sort()).toEqual(['details', 'error', 'message', 'success']);
  const details = res.body.details as Array<{ path: string; message: string }>;
  expect(Array.isArray(details)).toBe(true);
  expect(details.length).toBeGreaterThan(0);
  for (const detail of details) {
    expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
    expect(typeof detail.path).toBe('string');
    expect(typeof detail.message).toBe('string');
    expect(detail.message.length).toBeGreaterThan(0);
  }
  return details;
}

const paths = (details: Array<{ path: string }>) => details.map((detail) => detail.path);

function expectOk(res: Res): void {
  expect(res.status).toBe(200);
  expect(res.get('Content-Type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
  expect(res.body.success).toBe(true);
  expect(res.get('X-Request-Id')).toMatch(REQUEST_ID);
}

/** Rate-limit headers of a valid key's response; Reset is the end of the clock window the request fell in. */
function expectRateHeaders(res: Res, limit: number, sentAt: number, receivedAt: number): { remaining: number; reset: number } {
  expect(res.get('X-RateLimit-Limit')).toBe(String(limit));
  const remainingText = res.get('X-RateLimit-Remaining');
  const resetText = res.get('X-RateLimit-Reset');
  expect(remainingText).toMatch(/^\d+$/);
  expect(resetText).toMatch(/^\d+$/);
  const remaining = Number(remainingText);
  const reset = Number(resetText);
  expect(remaining).toBeLessThanOrEqual(limit);
  expect(reset % 60).toBe(0);
  expect([windowEndSeconds(sentAt), windowEndSeconds(receivedAt)]).toContain(reset);
  return { remaining, reset };
}

function expectNoRateHeaders(res: Res): void {
  expect(res.get('X-RateLimit-Limit')).toBeUndefined();
  expect(res.get('X-RateLimit-Remaining')).toBeUndefined();
  expect(res.get('X-RateLimit-Reset')).toBeUndefined();
  expect(res.get('Retry-After')).toBeUndefined();
}

/** A request with the send and receive instants, for checking the clock window. */
async function timed(request: () => PromiseLike<Res>): Promise<{ res: Res; sentAt: number; receivedAt: number }> {
  const sentAt = Date.now();
  const res = await request();
  return { res, sentAt, receivedAt: Date.now() };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function alnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += ALNUM[Math.floor(Math.random() * ALNUM.length)];
  return out;
}

const VALID_CONFIG = {
  default_ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 20 },
  default_proctoring: { camera: false, screen: true },
  allowed_toolchains: ['python-3.12', 'node-20'],
  toolchain_mirror: null,
  lms: { name: 'Moodle', base_url: 'https://lms.example.test' },
};

/** Serves an express app on 127.0.0.1 only, port 0. */
async function serveOnLoopback(app: Express): Promise<{ http: ReturnType<typeof supertest>; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    http: supertest(`http://127.0.0.1:${port}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// One appliance for everything that runs against the real server
// ---------------------------------------------------------------------------------------------

describe('API core wire rules', () => {
  let app: TestAppliance;

  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(async () => {
    await app?.close();
  });

  const newKey = async (options: Parameters<typeof makeKey>[2] = {}, status?: 'approved' | 'pending' | 'suspended') => {
    const inst = await makeInstitution(app, status ? { status } : {});
    const key = await makeKey(app, inst, options);
    return { inst, key };
  };

  // -------------------------------------------------------------------------------------------
  describe('envelope and success status', () => {
    it('GET /v1/me answers 200 {success:true, data} describing the key', async () => {
      const { inst, key } = await newKey({ scopes: ['students:read', 'exams:write'], name: 'Moodle sync', rateLimit: 600 });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expectOk(res);
      expect(res.body.data).toEqual({
        key_id: key.id,
        name: 'Moodle sync',
        environment: 'live',
        institution: { id: inst.id, name: inst.name },
        scopes: ['students:read', 'exams:write'],
        rate_limit_per_min: 600,
        request_id: res.get('X-Request-Id'),
      });
      expect(res.body.data.key_id).toMatch(KEY_ID);
      expect(res.body.data.institution.id).toMatch(/^inst_[A-Za-z0-9]+$/);
    });

    it('GET /v1/scopes answers 200 with the non-paged list {items} of {scope, description}', async () => {
      const { key } = await newKey({ scopes: ['sso:write'] });
      const res = await app.http.get('/v1/scopes').set('Authorization', key.auth);
      expectOk(res);
      expect(Object.keys(res.body.data)).toEqual(['items']);
      const items = res.body.data.items as Array<{ scope: string; description: string }>;
      expect(items).toHaveLength(25);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['admin_only', 'description', 'scope']);
        expect(item.description.length).toBeGreaterThan(0);
      }
      expect(items.map((item) => item.scope).sort()).toEqual([...ALL_SCOPES].sort());
      expect(items.find((item) => item.scope === 'students:write')?.description).toBe(SCOPES['students:write']);
    });

    it('GET /v1/institution answers 200 with the profile; created_at is ISO 8601 UTC with milliseconds', async () => {
      const { inst, key } = await newKey({ scopes: ['institution:read'] });
      const res = await app.http.get('/v1/institution').set('Authorization', key.auth);
      expectOk(res);
      expect(res.body.data).toMatchObject({ id: inst.id, name: inst.name, status: 'approved' });
      expect(res.body.data.created_at).toMatch(ISO_MS);
      expect(Math.abs(Date.parse(res.body.data.created_at) - Date.now())).toBeLessThan(60_000);
      expect(res.body.data.counts).toEqual({ students: 0, faculty: 0, groups: 0, exams: 0, active_licenses: 0 });
    });

    it('PUT /v1/institution/config answers 200 (a write is 200 too) and replaces the whole config', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const put = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send(VALID_CONFIG);
      expectOk(put);
      expect(put.body.data).toEqual(VALID_CONFIG);
      const get = await app.http.get('/v1/institution/config').set('Authorization', key.auth);
      expectOk(get);
      expect(get.body.data).toEqual(VALID_CONFIG);
    });

    it('GET /v1/events/types answers the non-paged list {items}', async () => {
      const { key } = await newKey({ scopes: ['webhooks:read'] });
      const res = await app.http.get('/v1/events/types').set('Authorization', key.auth);
      expectOk(res);
      expect(Object.keys(res.body.data)).toEqual(['items']);
      expect(res.body.data.items.length).toBeGreaterThan(0);
      expect(res.body.data.items).toContainEqual({ type: 'student.created', description: expect.any(String), area: 'student' });
    });

    it('GET /v1/events returns events with evt_ ids and ISO 8601 UTC millisecond timestamps', async () => {
      const { inst, key } = await newKey({ scopes: ['webhooks:read'] });
      await inst.tenant.inTransaction((tx) => emit(tx, 'student.created', { student_id: 'stu_test' }));
      const res = await app.http.get('/v1/events').set('Authorization', key.auth);
      expectOk(res);
      expect(res.body.data.has_more).toBe(false);
      expect(res.body.data.items).toHaveLength(1);
      const [event] = res.body.data.items;
      expect(event.id).toMatch(/^evt_[A-Za-z0-9]+$/);
      expect(event.type).toBe('student.created');
      expect(event.created_at).toMatch(ISO_MS);
      expect(event.data).toEqual({ student_id: 'stu_test' });
    });

    it('errors use {success:false, error, message} and nothing else (401, 403, 404)', async () => {
      expectPlainError(await app.http.get('/v1/me'), 401, 'unauthorized');
      expectPlainError(await app.http.get('/v1/me').set('Authorization', `Bearer cb_live_${alnum(32)}`), 401, 'invalid_api_key');
      const pending = await newKey({}, 'pending');
      expectPlainError(await app.http.get('/v1/me').set('Authorization', pending.key.auth), 403, 'institution_not_approved');
      expectPlainError(await app.http.get('/v1/nope'), 404, 'not_found');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('X-Request-Id', () => {
    it('is generated on a success when none is sent, differs per request, and /v1/me reports the same value', async () => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const a = await app.http.get('/v1/me').set('Authorization', key.auth);
      const b = await app.http.get('/v1/me').set('Authorization', key.auth);
      expectOk(a);
      expectOk(b);
      expect(a.get('X-Request-Id')).toMatch(REQUEST_ID);
      expect(a.get('X-Request-Id')).not.toBe(b.get('X-Request-Id'));
      expect(a.body.data.request_id).toBe(a.get('X-Request-Id'));
      expect(b.body.data.request_id).toBe(b.get('X-Request-Id'));
    });

    it.each([
      ['one character', 'a'],
      ['all allowed characters', 'Abc.DEF_ghi-123'],
      ['exactly 128 characters', `${'x'.repeat(120)}A.b_C-9Z`],
      ['a UUID', '3f2c8e1a-5b7d-4c9e-8a6f-1d2e3f4a5b6c'],
    ])('echoes a valid incoming id (%s) and /v1/me returns it', async (_label, id) => {
      expect(id.length).toBeLessThanOrEqual(128);
      const { key } = await newKey({ scopes: ['students:read'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth).set('X-Request-Id', id);
      expectOk(res);
      expect(res.get('X-Request-Id')).toBe(id);
      expect(res.body.data.request_id).toBe(id);
    });

    it.each([
      ['129 characters', 'y'.repeat(129)],
      ['a space', 'bad id'],
      ['a slash', 'bad/id'],
      ['a colon', 'bad:id'],
      ['a percent sign', 'bad%20id'],
      ['a plus sign', 'a+b'],
      ['an empty value', ''],
    ])('replaces an invalid incoming id (%s) by a generated one', async (_label, id) => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const res = await app.http.get('/v1/me').set('Authorization', key.auth).set('X-Request-Id', id);
      expectOk(res);
      const sent = res.get('X-Request-Id');
      expect(sent).toMatch(REQUEST_ID);
      expect(sent).not.toBe(id);
      expect(res.body.data.request_id).toBe(sent);
    });

    it('is on every error response and echoes a valid incoming id there too (401, 403, 404, 422)', async () => {
      const noScope = await newKey({ scopes: ['students:read'] });
      const writer = await newKey({ scopes: ['institution:write'] });
      const pending = await newKey({}, 'pending');
      const cases: Array<[string, () => supertest.Test, number, string]> = [
        ['401 unauthorized', () => app.http.get('/v1/me'), 401, 'unauthorized'],
        ['401 invalid_api_key', () => app.http.get('/v1/me').set('Authorization', `Bearer cb_live_${alnum(32)}`), 401, 'invalid_api_key'],
        ['403 institution_not_approved', () => app.http.get('/v1/me').set('Authorization', pending.key.auth), 403, 'institution_not_approved'],
        ['403 insufficient_scope', () => app.http.get('/v1/institution').set('Authorization', noScope.key.auth), 403, 'insufficient_scope'],
        ['404 without key', () => app.http.get('/v1/nope'), 404, 'not_found'],
        ['404 with key', () => app.http.get('/v1/nope').set('Authorization', noScope.key.auth), 404, 'not_found'],
        ['422', () => app.http.put('/v1/institution/config').set('Authorization', writer.key.auth).send({ nope: 1 }), 422, 'validation_error'],
      ];
      for (const [label, request, status, code] of cases) {
        const generated = await request();
        expect(generated.status, label).toBe(status);
        expect(generated.body.error, label).toBe(code);
        expect(generated.get('X-Request-Id'), label).toMatch(REQUEST_ID);

        const id = `err-${status}.${code}_${alnum(8)}`;
        const echoed = await request().set('X-Request-Id', id);
        expect(echoed.status, label).toBe(status);
        expect(echoed.get('X-Request-Id'), label).toBe(id);

        const replaced = await request().set('X-Request-Id', 'not valid!');
        expect(replaced.status, label).toBe(status);
        expect(replaced.get('X-Request-Id'), label).toMatch(REQUEST_ID);
        expect(replaced.get('X-Request-Id'), label).not.toBe('not valid!');
      }
    });

    it('is on responses outside the keyed operations (OpenAPI document, unknown non-API path)', async () => {
      const doc = await app.http.get('/v1/openapi.json').set('X-Request-Id', 'doc-req-1');
      expect(doc.status).toBe(200);
      expect(doc.get('X-Request-Id')).toBe('doc-req-1');
      const other = await app.http.get('/no-such-page-anywhere.txt');
      expect(other.get('X-Request-Id')).toMatch(REQUEST_ID);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('authentication (401) and approval (403)', () => {
    it.each([
      ['no Authorization header', null],
      ['Basic scheme', 'Basic dXNlcjpwYXNz'],
      ['Token scheme with a real-looking key', `Token cb_live_${alnum(32)}`],
      ['key without scheme', `cb_live_${alnum(32)}`],
      ['"Bearer" alone', 'Bearer'],
      ['"Bearer " with an empty token', 'Bearer '],
      ['"Bearer" with only spaces', 'Bearer     '],
      ['two tokens', `Bearer cb_live_${alnum(32)} extra`],
    ])('%s → 401 unauthorized', async (_label, header) => {
      const request = app.http.get('/v1/me');
      if (header !== null) request.set('Authorization', header);
      const res = await request;
      expectPlainError(res, 401, 'unauthorized');
      expectNoRateHeaders(res);
    });

    it('a valid key works with a case-insensitive Bearer scheme (RFC 7235)', async () => {
      const { key } = await newKey({ scopes: ['students:read'] });
      expectOk(await app.http.get('/v1/me').set('Authorization', `bearer ${key.key}`));
      expectOk(await app.http.get('/v1/me').set('Authorization', `BEARER ${key.key}`));
    });

    it.each([
      ['an unknown well-formed key', () => `cb_live_${alnum(32)}`],
      ['a too short key', () => `cb_live_${alnum(31)}`],
      ['a too long key', () => `cb_live_${alnum(33)}`],
      ['a key with a bad character', () => `cb_live_${alnum(31)}!`],
      ['a key with another prefix', () => `cb_test_${alnum(32)}`],
      ['a session-looking token', () => `cb_sess_${alnum(32)}`],
      ['an arbitrary string', () => 'hello'],
    ])('%s → 401 invalid_api_key', async (_label, make) => {
      const res = await app.http.get('/v1/me').set('Authorization', `Bearer ${make()}`);
      expectPlainError(res, 401, 'invalid_api_key');
      expectNoRateHeaders(res);
    });

    it('a real key with one character changed → 401 invalid_api_key', async () => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const last = key.key.slice(-1);
      const tampered = `${key.key.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`;
      expectPlainError(await app.http.get('/v1/me').set('Authorization', `Bearer ${tampered}`), 401, 'invalid_api_key');
      expectOk(await app.http.get('/v1/me').set('Authorization', key.auth));
    });

    it('a key revoked while the server runs fails on the very next request; other keys keep working', async () => {
      const inst = await makeInstitution(app);
      const doomed = await makeKey(app, inst, { scopes: ['institution:read'] });
      const other = await makeKey(app, inst, { scopes: ['institution:read'] });
      expectOk(await app.http.get('/v1/institution').set('Authorization', doomed.auth));

      await revokeApiKey(inst.tenant, doomed.id);

      const res = await app.http.get('/v1/institution').set('Authorization', doomed.auth);
      expectPlainError(res, 401, 'invalid_api_key');
      expectNoRateHeaders(res);
      expectPlainError(await app.http.get('/v1/me').set('Authorization', doomed.auth), 401, 'invalid_api_key');
      expectOk(await app.http.get('/v1/institution').set('Authorization', other.auth));
    });

    it('a key of an institution created suspended → 401 invalid_api_key', async () => {
      const { key } = await newKey({ scopes: ['institution:read'] }, 'suspended');
      const res = await app.http.get('/v1/me').set('Authorization', key.auth);
      expectPlainError(res, 401, 'invalid_api_key');
      expectNoRateHeaders(res);
      expectPlainError(await app.http.get('/v1/institution').set('Authorization', key.auth), 401, 'invalid_api_key');
    });

    it('suspension is seen on the very next request; re-approval restores the same key', async () => {
      const { inst, key } = await newKey({ scopes: ['institution:read'] });
      expectOk(await app.http.get('/v1/institution').set('Authorization', key.auth));

      await setInstitutionStatus(app.ctx.db, inst.id, 'suspended');
      expectPlainError(await app.http.get('/v1/institution').set('Authorization', key.auth), 401, 'invalid_api_key');
      expectPlainError(await app.http.get('/v1/me').set('Authorization', key.auth), 401, 'invalid_api_key');

      await setInstitutionStatus(app.ctx.db, inst.id, 'approved');
      const back = await app.http.get('/v1/institution').set('Authorization', key.auth);
      expectOk(back);
      expect(back.body.data.status).toBe('approved');
    });

    it('a pending institution → 403 institution_not_approved; approval lets the same key in', async () => {
      const { inst, key } = await newKey({ scopes: ['institution:read'] }, 'pending');
      for (const path of ['/v1/me', '/v1/scopes', '/v1/institution']) {
        const res = await app.http.get(path).set('Authorization', key.auth);
        expectPlainError(res, 403, 'institution_not_approved');
      }
      await setInstitutionStatus(app.ctx.db, inst.id, 'approved');
      expectOk(await app.http.get('/v1/institution').set('Authorization', key.auth));
    });

    it('never puts an API key into a response or a log line', async () => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const unknown = `cb_live_${alnum(32)}`;
      const responses = [
        await app.http.get('/v1/me').set('Authorization', key.auth),
        await app.http.get('/v1/institution').set('Authorization', key.auth),
        await app.http.get('/v1/me?x=1').set('Authorization', key.auth),
        await app.http.get('/v1/nope').set('Authorization', key.auth),
        await app.http.get('/v1/me').set('Authorization', `Bearer ${unknown}`),
      ];
      expect(responses.map((res) => res.status)).toEqual([200, 403, 422, 404, 401]);
      for (const res of responses) {
        expect(res.text).not.toContain(key.key);
        expect(res.text).not.toContain(unknown);
        expect(JSON.stringify(res.headers)).not.toContain(key.key);
      }
      await sleep(20); // request log lines are written on 'finish'
      const log = app.logText();
      // Refused requests are logged at the default level (successful reads only at debug).
      expect(log).toContain(responses[1]!.get('X-Request-Id'));
      expect(log).toContain(responses[4]!.get('X-Request-Id'));
      expect(log).not.toContain(key.key);
      expect(log).not.toContain(key.key.slice('cb_live_'.length));
      expect(log).not.toContain(unknown);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('scopes (403 insufficient_scope)', () => {
    it('lacking institution:read → 403 with required and missing arrays', async () => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const res = await app.http.get('/v1/institution').set('Authorization', key.auth);
      expectError(res, 403, 'insufficient_scope');
      expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'missing', 'required', 'success']);
      expect(res.body.required).toEqual(['institution:read']);
      expect(res.body.missing).toEqual(['institution:read']);
    });

    it('x:write implies x:read: institution:write alone reads the institution and its config', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      expectOk(await app.http.get('/v1/institution').set('Authorization', key.auth));
      expectOk(await app.http.get('/v1/institution/config').set('Authorization', key.auth));
      expectOk(await app.http.put('/v1/institution/config').set('Authorization', key.auth).send(VALID_CONFIG));
    });

    it('webhooks:write implies webhooks:read for GET /v1/events', async () => {
      const { key } = await newKey({ scopes: ['webhooks:write'] });
      expectOk(await app.http.get('/v1/events').set('Authorization', key.auth));
      expectOk(await app.http.get('/v1/events/types').set('Authorization', key.auth));
    });

    it('a read scope does not imply write: PUT /v1/institution/config with institution:read → 403', async () => {
      const { key } = await newKey({ scopes: ['institution:read'] });
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send(VALID_CONFIG);
      expectError(res, 403, 'insufficient_scope');
      expect(res.body.required).toEqual(['institution:write']);
      expect(res.body.missing).toEqual(['institution:write']);
    });

    it('write of one area does not grant another area: students:write on /v1/events → 403', async () => {
      const { key } = await newKey({ scopes: ['students:write', 'institution:write'] });
      const res = await app.http.get('/v1/events').set('Authorization', key.auth);
      expectError(res, 403, 'insufficient_scope');
      expect(res.body.required).toEqual(['webhooks:read']);
      expect(res.body.missing).toEqual(['webhooks:read']);
    });

    it('/v1/me and /v1/scopes need only a valid key, whatever its single scope', async () => {
      for (const scope of ['sso:write', 'students:read', 'coupons:read'] as const) {
        const { key } = await newKey({ scopes: [scope] });
        const me = await app.http.get('/v1/me').set('Authorization', key.auth);
        expectOk(me);
        expect(me.body.data.scopes).toEqual([scope]);
        expectOk(await app.http.get('/v1/scopes').set('Authorization', key.auth));
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('validation (422 validation_error)', () => {
    it('an unknown body field → 422 naming the field, and nothing is written (no mass assignment)', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const before = await app.http.get('/v1/institution/config').set('Authorization', key.auth);
      expectOk(before);
      const res = await app.http
        .put('/v1/institution/config')
        .set('Authorization', key.auth)
        .send({ ...VALID_CONFIG, status: 'approved', is_operator: true });
      const details = expectValidationError(res);
      expect(paths(details).sort()).toEqual(['is_operator', 'status']);
      const after = await app.http.get('/v1/institution/config').set('Authorization', key.auth);
      expect(after.body.data).toEqual(before.body.data);
    });

    it('an unknown nested field → 422 with the dotted path', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const res = await app.http
        .put('/v1/institution/config')
        .set('Authorization', key.auth)
        .send({ ...VALID_CONFIG, default_proctoring: { camera: true, microphone: true } });
      expect(paths(expectValidationError(res))).toEqual(['default_proctoring.microphone']);
    });

    it('wrong types and missing fields → 422 with one detail per path', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const { lms: _lms, ...withoutLms } = VALID_CONFIG;
      const res = await app.http
        .put('/v1/institution/config')
        .set('Authorization', key.auth)
        .send({ ...withoutLms, allowed_toolchains: 'python', default_ai_policy: { allowed: 'yes', max_interactions: 1.5 } });
      const details = expectValidationError(res);
      expect(paths(details).sort()).toEqual(['allowed_toolchains', 'default_ai_policy.allowed', 'default_ai_policy.max_interactions', 'lms']);
    });

    it('an unknown query parameter → 422 naming it', async () => {
      const { key } = await newKey({ scopes: ['institution:read', 'webhooks:read'] });
      expect(paths(expectValidationError(await app.http.get('/v1/me?foo=1').set('Authorization', key.auth)))).toEqual(['foo']);
      expect(paths(expectValidationError(await app.http.get('/v1/institution?expand=all').set('Authorization', key.auth)))).toEqual(['expand']);
      expect(paths(expectValidationError(await app.http.get('/v1/events?limit=5&cursor=x').set('Authorization', key.auth)))).toEqual(['cursor']);
    });

    it.each([
      ['truncated object', '{"lms": '],
      ['trailing comma', '{"lms": {},}'],
      ['single quotes', "{'lms': {}}"],
      ['bare word', 'hello'],
    ])('malformed JSON (%s) → 422 validation_error', async (_label, text) => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(text);
      expectValidationError(res);
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"config"'],
      ['a number', '42'],
    ])('a JSON body that is %s, not an object → 422 validation_error', async (_label, text) => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(text);
      expectValidationError(res);
    });

    it('a JSON body over 2 MB → 422 validation_error (not 413); one under 2 MB is accepted', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const big = JSON.stringify({ ...VALID_CONFIG, lms: { blob: 'a'.repeat(2 * 1024 * 1024) } });
      expect(Buffer.byteLength(big)).toBeGreaterThan(2 * 1024 * 1024);
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(big);
      expectValidationError(res);

      const fits = { ...VALID_CONFIG, lms: { blob: 'b'.repeat(1_500_000) } };
      const ok = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send(fits);
      expectOk(ok);
      expect(ok.body.data.lms.blob).toHaveLength(1_500_000);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('limit and page parameters', () => {
    it.each(['0', '201', 'abc', '-1', '1.5', ''])('GET /v1/events?limit=%s → 422 on path limit', async (limit) => {
      const { key } = await newKey({ scopes: ['webhooks:read'] });
      const res = await app.http.get(`/v1/events?limit=${limit}`).set('Authorization', key.auth);
      expect(paths(expectValidationError(res))).toEqual(['limit']);
    });

    it('GET /v1/events accepts limit 1 and 200 and honours it', async () => {
      const { inst, key } = await newKey({ scopes: ['webhooks:read'] });
      for (let i = 0; i < 3; i += 1) await inst.tenant.inTransaction((tx) => emit(tx, 'group.created', { group_id: `grp_${i}` }));
      const one = await app.http.get('/v1/events?limit=1').set('Authorization', key.auth);
      expectOk(one);
      expect(one.body.data.items).toHaveLength(1);
      expect(one.body.data.has_more).toBe(true);
      const all = await app.http.get('/v1/events?limit=200').set('Authorization', key.auth);
      expectOk(all);
      expect(all.body.data.items).toHaveLength(3);
      expect(all.body.data.has_more).toBe(false);
    });

    it('the shared pageQuery schema: page ≥ 1 default 1, limit 1..200 default 50', () => {
      const schema = z.strictObject(pageQuery);
      expect(schema.parse({})).toEqual({ page: 1, limit: 50 });
      expect(schema.parse({ page: '3', limit: '200' })).toEqual({ page: 3, limit: 200 });
      expect(schema.parse({ page: '1', limit: '1' })).toEqual({ page: 1, limit: 1 });
      for (const bad of [{ page: '0' }, { page: '-2' }, { page: '1.5' }, { page: 'abc' }]) {
        const result = schema.safeParse(bad);
        expect(result.success, JSON.stringify(bad)).toBe(false);
        expect(result.error?.issues[0]?.path).toEqual(['page']);
      }
      for (const bad of [{ limit: '0' }, { limit: '201' }, { limit: '2.5' }, { limit: 'all' }]) {
        const result = schema.safeParse(bad);
        expect(result.success, JSON.stringify(bad)).toBe(false);
        expect(result.error?.issues[0]?.path).toEqual(['limit']);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('paged lists, ids and privacy on a real resource (students)', () => {
    const createStudent = async (auth: string, body: Record<string, unknown>) => {
      const res = await app.http.post('/v1/students').set('Authorization', auth).send(body);
      expectOk(res);
      return res.body.data as { id: string; login_email: string; created_at: string; updated_at: string };
    };

    it('creation answers 200 with a stu_ id and ISO millisecond timestamps', async () => {
      const { key } = await newKey({ scopes: ['students:write'] });
      const student = await createStudent(key.auth, { full_name: 'Ada Lovelace' });
      expect(student.id).toMatch(/^stu_[A-Za-z0-9]+$/);
      expect(student.created_at).toMatch(ISO_MS);
      expect(student.updated_at).toMatch(ISO_MS);
    });

    it('a list is {items, page, limit, total, totalPages} with defaults page 1, limit 50', async () => {
      const { key } = await newKey({ scopes: ['students:write'] });
      for (const name of ['A One', 'B Two', 'C Three']) await createStudent(key.auth, { full_name: name });

      const all = await app.http.get('/v1/students').set('Authorization', key.auth);
      expectOk(all);
      expect(Object.keys(all.body.data).sort()).toEqual(['items', 'limit', 'page', 'total', 'totalPages']);
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect(all.body.data.items).toHaveLength(3);

      const first = await app.http.get('/v1/students?page=1&limit=2').set('Authorization', key.auth);
      expect(first.body.data).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
      expect(first.body.data.items).toHaveLength(2);
      const second = await app.http.get('/v1/students?page=2&limit=2').set('Authorization', key.auth);
      expect(second.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(second.body.data.items).toHaveLength(1);
      const ids = [...first.body.data.items, ...second.body.data.items].map((item: { id: string }) => item.id);
      expect(new Set(ids).size).toBe(3);

      const max = await app.http.get('/v1/students?limit=200').set('Authorization', key.auth);
      expectOk(max);
      expect(max.body.data.limit).toBe(200);
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
    ])('GET /v1/students?%s → 422 on path %s', async (query, path) => {
      const { key } = await newKey({ scopes: ['students:read'] });
      const res = await app.http.get(`/v1/students?${query}`).set('Authorization', key.auth);
      expect(paths(expectValidationError(res))).toEqual([path]);
    });

    it("another institution's id (or login email) is 404 not_found, exactly like an id that does not exist", async () => {
      const mine = await newKey({ scopes: ['students:write'] });
      const theirs = await newKey({ scopes: ['students:write'] });
      const own = await createStudent(mine.key.auth, { full_name: 'Grace Hopper' });
      const foreign = await createStudent(theirs.key.auth, { full_name: 'Alan Turing' });

      expectOk(await app.http.get(`/v1/students/${own.id}`).set('Authorization', mine.key.auth));
      const byEmail = await app.http.get(`/v1/students/${encodeURIComponent(own.login_email)}`).set('Authorization', mine.key.auth);
      expectOk(byEmail);
      expect(byEmail.body.data.id).toBe(own.id);

      const missing = await app.http.get(`/v1/students/stu_${alnum(24)}`).set('Authorization', mine.key.auth);
      expectPlainError(missing, 404, 'not_found');
      for (const ref of [foreign.id, foreign.login_email]) {
        const res = await app.http.get(`/v1/students/${encodeURIComponent(ref)}`).set('Authorization', mine.key.auth);
        expectPlainError(res, 404, 'not_found');
        expect(res.body).toEqual(missing.body);
      }
      const patch = await app.http.patch(`/v1/students/${foreign.id}`).set('Authorization', mine.key.auth).send({ full_name: 'Mallory' });
      expectPlainError(patch, 404, 'not_found');
      const still = await app.http.get(`/v1/students/${foreign.id}`).set('Authorization', theirs.key.auth);
      expect(still.body.data.full_name).toBe('Alan Turing');
    });

    it('a 404 for an unknown id of a known route carries the rate-limit headers', async () => {
      const { key } = await newKey({ scopes: ['students:read'], rateLimit: 500 });
      const { res, sentAt, receivedAt } = await timed(() => app.http.get(`/v1/students/stu_${alnum(24)}`).set('Authorization', key.auth));
      expectPlainError(res, 404, 'not_found');
      expectRateHeaders(res, 500, sentAt, receivedAt);
    });

    it('an unknown body field on creation (e.g. id, status) → 422 naming it; nothing is created', async () => {
      const { key } = await newKey({ scopes: ['students:write'] });
      const res = await app.http.post('/v1/students').set('Authorization', key.auth).send({ full_name: 'Eve', id: 'stu_mine', institution_id: 'inst_other' });
      expect(paths(expectValidationError(res)).sort()).toEqual(['id', 'institution_id']);
      const list = await app.http.get('/v1/students').set('Authorization', key.auth);
      expect(list.body.data.total).toBe(0);
    });

    it('a personal email is accepted but never appears in a response or a log line', async () => {
      const { key } = await newKey({ scopes: ['students:write'] });
      const personal = `family.${alnum(10).toLowerCase()}@example.org`;
      const created = await app.http.post('/v1/students').set('Authorization', key.auth).send({ full_name: 'Kid Example', personal_email: personal });
      expectOk(created);
      const filtered = await app.http.get(`/v1/students?email=${encodeURIComponent(personal)}`).set('Authorization', key.auth);
      expectOk(filtered);
      const one = await app.http.get(`/v1/students/${created.body.data.id}`).set('Authorization', key.auth);
      expectOk(one);
      for (const res of [created, filtered, one]) expect(res.text.toLowerCase()).not.toContain(personal);
      await sleep(20);
      expect(app.logText().toLowerCase()).not.toContain(personal);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('unknown routes (404 not_found)', () => {
    const unknown: Array<[string, string]> = [
      ['get', '/v1/nope'],
      ['get', '/v1'],
      ['get', '/v1/'],
      ['get', '/v1/me/extra'],
      ['get', '/v1/studentz'],
      ['delete', '/v1/me'],
      ['post', '/v1/scopes'],
      ['patch', '/v1/institution'],
      ['post', '/v1/institution/config'],
      ['options', '/v1/me'],
    ];

    it.each(unknown)('%s %s without a key → 404 not_found envelope', async (method, path) => {
      const res = await app.http[method as 'get'](path);
      expectPlainError(res, 404, 'not_found');
      expectNoRateHeaders(res);
    });

    it.each(unknown)('%s %s with a valid key → 404 not_found envelope, with the rate-limit headers, counted', async (method, path) => {
      const { key } = await newKey({ scopes: ['all'] });
      const first = await app.http[method as 'get'](path).set('Authorization', key.auth);
      expectPlainError(first, 404, 'not_found');
      expect(first.get('X-RateLimit-Limit')).toMatch(/^\d+$/);
      expect(first.get('X-RateLimit-Reset')).toMatch(/^\d+$/);
      const second = await app.http[method as 'get'](path).set('Authorization', key.auth);
      expectPlainError(second, 404, 'not_found');
      // The same window (or a fresh one at a boundary): the hit was counted.
      const [a, b] = [Number(first.get('X-RateLimit-Remaining')), Number(second.get('X-RateLimit-Remaining'))];
      expect(first.get('X-RateLimit-Reset') === second.get('X-RateLimit-Reset') ? b : a - 1).toBe(a - 1);
    });

    it.each(unknown)('%s %s with an unknown or malformed key → 404 not_found, no rate-limit headers', async (method, path) => {
      for (const auth of [`Bearer cb_live_${alnum(32)}`, 'Bearer nonsense', `Bearer cb_sess_${alnum(32)}`]) {
        const res = await app.http[method as 'get'](path).set('Authorization', auth);
        expectPlainError(res, 404, 'not_found');
        expectNoRateHeaders(res);
      }
    });

    it('an unknown route with a malformed or oversized JSON body is still 404, not 422', async () => {
      const { key } = await newKey({ scopes: ['all'] });
      const broken = await app.http.post('/v1/nope').set('Authorization', key.auth).set('Content-Type', 'application/json').send('{"a": ');
      expectPlainError(broken, 404, 'not_found');
      const big = JSON.stringify({ blob: 'a'.repeat(2 * 1024 * 1024 + 10) });
      const tooBig = await app.http.post('/v1/nope').set('Content-Type', 'application/json').send(big);
      expectPlainError(tooBig, 404, 'not_found');
    });

    it('an unknown route answers 404 even with an invalid key or a pending institution', async () => {
      expectPlainError(await app.http.get('/v1/nope').set('Authorization', 'Bearer junk'), 404, 'not_found');
      const pending = await newKey({}, 'pending');
      expectPlainError(await app.http.get('/v1/nope').set('Authorization', pending.key.auth), 404, 'not_found');
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('order of checks: 401 → 403 approval → 429 → 403 scope → 422', () => {
    const malformed = '{"lms": ';

    it('malformed JSON without a key → 401 unauthorized; with an unknown key → 401 invalid_api_key', async () => {
      const anon = await app.http.put('/v1/institution/config').set('Content-Type', 'application/json').send(malformed);
      expectPlainError(anon, 401, 'unauthorized');
      const unknown = await app.http
        .put('/v1/institution/config')
        .set('Authorization', `Bearer cb_live_${alnum(32)}`)
        .set('Content-Type', 'application/json')
        .send(malformed);
      expectPlainError(unknown, 401, 'invalid_api_key');
    });

    it('an unknown query parameter without a key → 401, not 422', async () => {
      expectPlainError(await app.http.get('/v1/me?foo=1'), 401, 'unauthorized');
    });

    it('a body over 2 MB without a key → 401, not 422', async () => {
      const big = JSON.stringify({ lms: { blob: 'a'.repeat(2 * 1024 * 1024 + 10) } });
      const res = await app.http.put('/v1/institution/config').set('Content-Type', 'application/json').send(big);
      expectPlainError(res, 401, 'unauthorized');
    });

    it('a suspended institution with a bad body → 401 invalid_api_key', async () => {
      const { key } = await newKey({ scopes: ['students:read'] }, 'suspended');
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send({ bogus: true });
      expectPlainError(res, 401, 'invalid_api_key');
    });

    it('a pending institution without scope and with a bad body → 403 institution_not_approved', async () => {
      const { key } = await newKey({ scopes: ['students:read'] }, 'pending');
      const invalid = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send({ bogus: true });
      expectPlainError(invalid, 403, 'institution_not_approved');
      const broken = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(malformed);
      expectPlainError(broken, 403, 'institution_not_approved');
    });

    it('a pending institution is never rate limited: approval (403) comes before the rate limit (429)', async () => {
      await ensureWindowRoom(5);
      const { key } = await newKey({ scopes: ['all'], rateLimit: 10 }, 'pending');
      for (let i = 0; i < 13; i += 1) {
        const res = await app.http.get('/v1/me').set('Authorization', key.auth);
        expectPlainError(res, 403, 'institution_not_approved');
      }
    });

    it('a key without the scope sending an invalid or malformed body → 403 insufficient_scope, not 422', async () => {
      const { key } = await newKey({ scopes: ['institution:read'] });
      const invalid = await app.http.put('/v1/institution/config').set('Authorization', key.auth).send({ bogus: true });
      expectError(invalid, 403, 'insufficient_scope');
      const broken = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(malformed);
      expectError(broken, 403, 'insufficient_scope');
      const query = await app.http.get('/v1/events?limit=0&bogus=1').set('Authorization', key.auth);
      expectError(query, 403, 'insufficient_scope');
      const big = JSON.stringify({ lms: { blob: 'a'.repeat(2 * 1024 * 1024 + 10) } });
      const tooBig = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(big);
      expectError(tooBig, 403, 'insufficient_scope');
    });

    it('a rate-limited key without the scope → 429, also with a malformed body', async () => {
      await ensureWindowRoom(5);
      const { key } = await newKey({ scopes: ['students:read'], rateLimit: 10 });
      for (let i = 0; i < 10; i += 1) expectOk(await app.http.get('/v1/me').set('Authorization', key.auth));
      expectPlainError(await app.http.get('/v1/institution').set('Authorization', key.auth), 429, 'rate_limited');
      const broken = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(malformed);
      expectPlainError(broken, 429, 'rate_limited');
      expectPlainError(await app.http.get('/v1/me?bogus=1').set('Authorization', key.auth), 429, 'rate_limited');
    });

    it('a rate-limited key whose institution is then suspended → 401, and 429 again after re-approval', async () => {
      await ensureWindowRoom(8);
      const { inst, key } = await newKey({ scopes: ['all'], rateLimit: 10 });
      for (let i = 0; i < 10; i += 1) expectOk(await app.http.get('/v1/me').set('Authorization', key.auth));
      expectPlainError(await app.http.get('/v1/me').set('Authorization', key.auth), 429, 'rate_limited');
      await setInstitutionStatus(app.ctx.db, inst.id, 'suspended');
      const suspended = await app.http.get('/v1/me').set('Authorization', key.auth);
      expectPlainError(suspended, 401, 'invalid_api_key');
      expectNoRateHeaders(suspended);
      await setInstitutionStatus(app.ctx.db, inst.id, 'approved');
      expectPlainError(await app.http.get('/v1/me').set('Authorization', key.auth), 429, 'rate_limited');
    });

    it('with the scope granted, the same malformed body reaches validation → 422', async () => {
      const { key } = await newKey({ scopes: ['institution:write'] });
      const res = await app.http.put('/v1/institution/config').set('Authorization', key.auth).set('Content-Type', 'application/json').send(malformed);
      expectValidationError(res);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('rate limiting', () => {
    it('headers on a success: Limit is the key rate, Reset is the end of the clock window, Remaining decrements', async () => {
      await ensureWindowRoom(5);
      const { key } = await newKey({ scopes: ['students:read'], rateLimit: 250 });
      const seen: number[] = [];
      let firstReset = 0;
      for (let i = 0; i < 4; i += 1) {
        const { res, sentAt, receivedAt } = await timed(() => app.http.get('/v1/me').set('Authorization', key.auth));
        expectOk(res);
        const { remaining, reset } = expectRateHeaders(res, 250, sentAt, receivedAt);
        expect(reset).toBeGreaterThan(receivedAt / 1000 - 1);
        expect(reset).toBeLessThanOrEqual(Math.floor(sentAt / 1000) + 60);
        if (i === 0) firstReset = reset;
        expect(reset).toBe(firstReset);
        seen.push(remaining);
        expect(res.get('Retry-After')).toBeUndefined();
      }
      expect(seen).toEqual([249, 248, 247, 246]);
    });

    it('headers on 403 insufficient_scope and 422 validation_error too, and those requests count', async () => {
      await ensureWindowRoom(5);
      const { key } = await newKey({ scopes: ['students:read'], rateLimit: 100 });
      const forbidden = await timed(() => app.http.get('/v1/institution').set('Authorization', key.auth));
      expectError(forbidden.res, 403, 'insufficient_scope');
      expect(expectRateHeaders(forbidden.res, 100, forbidden.sentAt, forbidden.receivedAt).remaining).toBe(99);

      const invalid = await timed(() => app.http.get('/v1/me?bogus=1').set('Authorization', key.auth));
      expectValidationError(invalid.res);
      expect(expectRateHeaders(invalid.res, 100, invalid.sentAt, invalid.receivedAt).remaining).toBe(98);

      const ok = await timed(() => app.http.get('/v1/me').set('Authorization', key.auth));
      expectOk(ok.res);
      expect(expectRateHeaders(ok.res, 100, ok.sentAt, ok.receivedAt).remaining).toBe(97);
    });

    it('no rate-limit headers on 401 or 403 institution_not_approved (not a usable key)', async () => {
      expectNoRateHeaders(await app.http.get('/v1/me'));
      expectNoRateHeaders(await app.http.get('/v1/me').set('Authorization', `Bearer cb_live_${alnum(32)}`));
      const pending = await newKey({}, 'pending');
      expectNoRateHeaders(await app.http.get('/v1/me').set('Authorization', pending.key.auth));
    });

    it('the 11th request of a 10/min key in one window → 429 rate_limited with Retry-After and the headers', async () => {
      await ensureWindowRoom(5);
      const inst = await makeInstitution(app);
      const key = await makeKey(app, inst, { scopes: ['institution:read'], rateLimit: 10 });
      const sibling = await makeKey(app, inst, { scopes: ['institution:read'], rateLimit: 10 });

      const remaining: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        const { res, sentAt, receivedAt } = await timed(() => app.http.get('/v1/institution').set('Authorization', key.auth));
        expectOk(res);
        remaining.push(expectRateHeaders(res, 10, sentAt, receivedAt).remaining);
      }
      expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

      const { res, sentAt, receivedAt } = await timed(() => app.http.get('/v1/institution').set('Authorization', key.auth));
      expectPlainError(res, 429, 'rate_limited');
      const { remaining: left, reset } = expectRateHeaders(res, 10, sentAt, receivedAt);
      expect(left).toBe(0);
      const retryAfter = res.get('Retry-After');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      // Retry-After points at the end of the window, give or take the request's own duration.
      expect(Number(retryAfter)).toBeLessThanOrEqual(reset - Math.floor(sentAt / 1000) + 1);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(reset - Math.ceil(receivedAt / 1000) - 1);

      // Still limited, on every route of the key.
      expectPlainError(await app.http.get('/v1/me').set('Authorization', key.auth), 429, 'rate_limited');
      expectPlainError(await app.http.get('/v1/scopes').set('Authorization', key.auth), 429, 'rate_limited');

      // Per key: another key of the same institution has its own bucket.
      const other = await timed(() => app.http.get('/v1/institution').set('Authorization', sibling.auth));
      expectOk(other.res);
      expect(expectRateHeaders(other.res, 10, other.sentAt, other.receivedAt).remaining).toBe(9);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Rate-limiter store unreachable: fails closed
// ---------------------------------------------------------------------------------------------

describe('rate limiter store unavailable (503 rate_limiter_unavailable)', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance({
      rateLimitStore: {
        hit: async () => {
          throw new Error('down');
        },
      },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a valid key → 503 with Retry-After: 5, the rate-limit headers and X-Request-Id', async () => {
    const inst = await makeInstitution(app);
    const key = await makeKey(app, inst, { scopes: ['all'], rateLimit: 77 });
    for (const path of ['/v1/me', '/v1/institution', '/v1/scopes']) {
      const { res, sentAt, receivedAt } = await timed(() => app.http.get(path).set('Authorization', key.auth).set('X-Request-Id', 'store-down-1'));
      expectPlainError(res, 503, 'rate_limiter_unavailable');
      expect(res.get('Retry-After')).toBe('5');
      expect(res.get('X-Request-Id')).toBe('store-down-1');
      expectRateHeaders(res, 77, sentAt, receivedAt);
    }
  });

  it('a key without the scope → 503 too (the limiter comes before the scope check)', async () => {
    const inst = await makeInstitution(app);
    const key = await makeKey(app, inst, { scopes: ['students:read'] });
    expectPlainError(await app.http.get('/v1/institution').set('Authorization', key.auth), 503, 'rate_limiter_unavailable');
  });

  it('authentication, approval and unknown routes still answer before the limiter', async () => {
    expectPlainError(await app.http.get('/v1/me'), 401, 'unauthorized');
    expectPlainError(await app.http.get('/v1/me').set('Authorization', `Bearer cb_live_${alnum(32)}`), 401, 'invalid_api_key');
    const pending = await makeInstitution(app, { status: 'pending' });
    const pendingKey = await makeKey(app, pending);
    expectPlainError(await app.http.get('/v1/me').set('Authorization', pendingKey.auth), 403, 'institution_not_approved');
    expectPlainError(await app.http.get('/v1/nope'), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------------
// The real middleware on a controlled clock: clock-aligned 60-second buckets
// ---------------------------------------------------------------------------------------------

describe('rate limiter windows on a controlled clock', () => {
  let clock = 0;
  let server: Awaited<ReturnType<typeof serveOnLoopback>>;

  beforeAll(async () => {
    const app = express();
    app.use(requestId);
    app.use((req, _res, next) => {
      const id = req.get('x-key') ?? 'key_a';
      req.rateLimitSubject = { id, limit: 10 };
      next();
    });
    app.use(rateLimit(new MemoryRateLimitStore(), () => clock));
    app.get('/ping', (_req, res) => {
      res.json({ success: true, data: {} });
    });
    app.use(errorHandler(createLogger('silent')));
    server = await serveOnLoopback(app);
  });
  afterAll(async () => {
    await server?.close();
  });

  const MINUTE = 60_000;
  const base = 29_000_000 * MINUTE; // a clock-aligned instant

  it('counts per key within a window; Reset is the window end in Unix seconds', async () => {
    clock = base + 1_000;
    for (let i = 1; i <= 10; i += 1) {
      const res = await server.http.get('/ping');
      expect(res.status).toBe(200);
      expect(res.get('X-RateLimit-Remaining')).toBe(String(10 - i));
      expect(res.get('X-RateLimit-Reset')).toBe(String(base / 1000 + 60));
    }
    clock = base + 30_001;
    const limited = await server.http.get('/ping');
    expectPlainError(limited, 429, 'rate_limited');
    expect(limited.get('Retry-After')).toBe('30');
    expect(limited.get('X-RateLimit-Remaining')).toBe('0');
    expect(limited.get('X-RateLimit-Limit')).toBe('10');

    clock = base + MINUTE - 1;
    const lastMs = await server.http.get('/ping');
    expect(lastMs.status).toBe(429);
    expect(lastMs.get('Retry-After')).toBe('1');
    expect(lastMs.get('X-RateLimit-Reset')).toBe(String(base / 1000 + 60));

    const otherKey = await server.http.get('/ping').set('x-key', 'key_b');
    expect(otherKey.status).toBe(200);
    expect(otherKey.get('X-RateLimit-Remaining')).toBe('9');
  });

  it('a new clock window starts a fresh bucket at its first millisecond', async () => {
    clock = base + MINUTE;
    const res = await server.http.get('/ping');
    expect(res.status).toBe(200);
    expect(res.get('X-RateLimit-Remaining')).toBe('9');
    expect(res.get('X-RateLimit-Reset')).toBe(String(base / 1000 + 120));
  });

  it('the bucket is the clock window, not a sliding 60 s from the first request', async () => {
    clock = base + 2 * MINUTE + 59_000; // first request late in a window
    for (let i = 0; i < 10; i += 1) expect((await server.http.get('/ping').set('x-key', 'key_c')).status).toBe(200);
    expect((await server.http.get('/ping').set('x-key', 'key_c')).status).toBe(429);
    clock = base + 3 * MINUTE; // two seconds later, a new window
    const res = await server.http.get('/ping').set('x-key', 'key_c');
    expect(res.status).toBe(200);
    expect(res.get('X-RateLimit-Remaining')).toBe('9');
  });
});

// ---------------------------------------------------------------------------------------------
// 500 internal_error and error mapping, with the real error handler
// ---------------------------------------------------------------------------------------------

describe('errorHandler and toAppError', () => {
  let server: Awaited<ReturnType<typeof serveOnLoopback>>;
  let logged = '';

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        logged += chunk.toString();
        callback();
      },
    });
    const app = express();
    app.use(requestId);
    app.get('/boom', () => {
      throw new Error('boom secret stack');
    });
    app.get('/boom-async', async () => {
      await sleep(1);
      throw new Error('boom secret async stack');
    });
    app.get('/not-an-error', () => {
      throw 'boom plain string';
    });
    app.get('/unique', () => {
      throw new UniqueConstraintError({ message: 'Validation error', fields: { email: 'boom@example.test' } });
    });
    app.get('/app-error', () => {
      throw new AppError('insufficient_scope', 'Needs more.', { required: ['a:read'], missing: ['a:read'] });
    });
    app.use(errorHandler(createLogger('error', sink)));
    server = await serveOnLoopback(app);
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(['/boom', '/boom-async', '/not-an-error'])('%s → 500 internal_error quoting the request id, no stack or detail', async (path) => {
    const res = await server.http.get(path);
    expectPlainError(res, 500, 'internal_error');
    const id = res.get('X-Request-Id');
    expect(id).toMatch(REQUEST_ID);
    expect(res.body.message).toContain(id);
    expect(res.text).not.toMatch(/boom/i);
    expect(res.text).not.toMatch(/\bat /);
    expect(res.text).not.toContain('.ts:');
    expect(res.text).not.toContain('Error');
  });

  it('echoes a valid incoming request id on a 500 and logs the failure with it', async () => {
    logged = '';
    const res = await server.http.get('/boom').set('X-Request-Id', 'trace-500-abc');
    expectPlainError(res, 500, 'internal_error');
    expect(res.get('X-Request-Id')).toBe('trace-500-abc');
    expect(res.body.message).toContain('trace-500-abc');
    const lines = logged
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const line = lines.find((entry) => entry.request_id === 'trace-500-abc');
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).toContain('boom secret stack');
  });

  it('a Sequelize UniqueConstraintError answers 409 conflict without leaking the values', async () => {
    const res = await server.http.get('/unique');
    expectPlainError(res, 409, 'conflict');
    expect(res.text).not.toContain('boom@example.test');
  });

  it('an AppError answers its status, code and extra fields', async () => {
    const res = await server.http.get('/app-error');
    expectError(res, 403, 'insufficient_scope');
    expect(res.body).toEqual({ success: false, error: 'insufficient_scope', message: 'Needs more.', required: ['a:read'], missing: ['a:read'] });
  });

  it('toAppError maps a unique violation raised by the real database to conflict', async () => {
    const appliance = await startTestAppliance();
    try {
      const inst = await makeInstitution(appliance);
      const row = await appliance.ctx.db.models.Institution.findByPk(inst.id);
      let caught: unknown;
      try {
        await appliance.ctx.db.models.Institution.create({ id: inst.id, name: 'dup', status: 'approved', config: row!.config });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UniqueConstraintError);
      const mapped = toAppError(caught);
      expect(mapped).toBeInstanceOf(AppError);
      expect(mapped?.code).toBe('conflict');
      expect(mapped?.status).toBe(409);
    } finally {
      await appliance.close();
    }
  });

  it('toAppError maps body-parser failures to 422 and leaves unknown errors to the 500 path', () => {
    expect(toAppError(Object.assign(new Error('x'), { type: 'entity.parse.failed' }))?.status).toBe(422);
    expect(toAppError(Object.assign(new Error('x'), { type: 'entity.too.large', status: 413 }))?.code).toBe('validation_error');
    expect(toAppError(new Error('plain'))).toBeNull();
    expect(toAppError('string')).toBeNull();
  });
});

describe('NUL characters in input', () => {
  let app: TestAppliance;
  let auth: string;
  beforeAll(async () => {
    app = await startTestAppliance();
    auth = (await makeKey(app, await makeInstitution(app))).auth;
  });
  afterAll(() => app.close());

  it('are a 422 naming the field in paths, queries and bodies, never a 500', async () => {
    const inPath = await app.http.get('/v1/students/a%00b').set('Authorization', auth);
    expect(inPath.status).toBe(422);
    expect(inPath.body.details).toEqual([{ path: 'id', message: 'Must not contain NUL characters.' }]);
    const inQuery = await app.http.get('/v1/students?email=a%00b@example.org').set('Authorization', auth);
    expect(inQuery.status).toBe(422);
    expect(inQuery.body.details[0].path).toBe('email');
    const inBody = await app.http.post('/v1/students').set('Authorization', auth).send({ full_name: 'Nul\u0000Name' });
    expect(inBody.status).toBe(422);
    expect(inBody.body.details[0].path).toBe('full_name');
  });
});
