import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import supertest from 'supertest';
import { afterAll, expect } from 'vitest';
import { startAppliance, type Appliance } from '../../server/appliance.js';
import { createApiKey } from '../../server/commands/institutions/api-keys.js';
import { createInstitution } from '../../server/commands/institutions/institutions.js';
import { loadConfig, type Config } from '../../server/config.js';
import { databaseLocation, type DatabaseLocation } from '../../server/db/index.js';
import { Tenant } from '../../server/db/tenant.js';
import type { RateLimitStore } from '../../server/http/rate-limit.js';
import { createLogger } from '../../server/logger.js';
import type { InstitutionStatus } from '../../server/models/institution.js';
import type { MailOutboxRow } from '../../server/models/mail.js';
import { openBody } from '../../server/mail/outbox.js';
import { dataDirEnv, forgetTestDatabase } from './postgres.js';
import { copySqliteTemplate } from './templates.js';
import type { Scope } from '../../server/policies/scopes.js';

export interface TestAppliance extends Appliance {
  dataDir: string;
  /** Every log line the appliance wrote, parsed. */
  logLines: () => Array<Record<string, unknown>>;
  /** Raw log text, for searching for things that must never appear. */
  logText: () => string;
  http: ReturnType<typeof supertest>;
  /** Stops the server and removes its data folder (and, on PostgreSQL, the folder's database). */
  close: () => Promise<void>;
}

/** A fresh, empty temp folder; whoever makes it removes it with `removeDataDir` (as `startTestAppliance`'s `close` does). */
export function makeDataDir(prefix = 'campusbridge-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A data folder's database: its SQLite file, or in the postgres project the PostgreSQL database standing for the folder. */
export async function dataDirDatabase(dataDir: string): Promise<DatabaseLocation> {
  return databaseLocation(loadConfig(await dataDirEnv(dataDir)));
}

/** Removes a data folder and, in the postgres project, the database that stood for it. */
export async function removeDataDir(dir: string): Promise<void> {
  await forgetTestDatabase(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * `makeDataDir` for a suite that makes folders of its own (CLI runs, backups): every folder it
 * makes is removed after the suite's tests. Call it at the top of a file or a `describe`, where
 * its `afterAll` belongs.
 */
export function tempDataDirs(prefix = 'campusbridge-test-'): () => string {
  const made: string[] = [];
  afterAll(async () => {
    for (const dir of made) await removeDataDir(dir);
  });
  return () => {
    const dir = makeDataDir(prefix);
    made.push(dir);
    return dir;
  };
}

/** An hour: longer than any suite, so a database copied from the template never catches up missed jobs mid-test. */
const NO_CATCH_UP_MS = 3_600_000;

/**
 * A real appliance on 127.0.0.1, port 0, over a real SQLite file in a fresh temp folder, or in
 * `dataDir` (in the postgres project, over the PostgreSQL database of that folder, so a restart
 * on the same folder finds its data).
 *
 * A fresh folder starts from a copy of the migrated template (tests/helpers/templates.ts) unless
 * `migrate: true` asks for the migrations to run at this start. Its database was not created by
 * this start, so the scheduler would count every periodic job as missed: the catch-up is put an
 * hour off unless the test sets `jobsCatchUpDelayMs` itself.
 */
export async function startTestAppliance(
  options: { rateLimitStore?: RateLimitStore; config?: Partial<Config>; dataDir?: string; logLevel?: string; migrate?: boolean } = {},
): Promise<TestAppliance> {
  const fromTemplate = options.dataDir === undefined && !options.migrate;
  const dataDir = options.dataDir ?? makeDataDir();
  if (fromTemplate) copySqliteTemplate(dataDir);
  const env = { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...(await dataDirEnv(dataDir, { migrated: fromTemplate })) };
  const config = loadConfig(env, fromTemplate ? { jobsCatchUpDelayMs: NO_CATCH_UP_MS, ...options.config } : options.config);
  let logged = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logged += chunk.toString();
      callback();
    },
  });
  const appliance = await startAppliance({
    config,
    logger: createLogger(options.logLevel ?? 'info', sink),
    rateLimitStore: options.rateLimitStore,
    validateResponses: true,
  });
  return {
    ...appliance,
    dataDir,
    logText: () => logged,
    logLines: () =>
      logged
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    http: supertest(appliance.origin),
    close: async () => {
      await appliance.stop();
      await removeDataDir(dataDir);
    },
  };
}

export interface TestInstitution {
  id: string;
  name: string;
  tenant: Tenant;
}

/** An institution (approved unless told otherwise), made through the same command as the CLI. */
export async function makeInstitution(app: Appliance, options: { name?: string; status?: InstitutionStatus } = {}): Promise<TestInstitution> {
  const status = options.status ?? 'approved';
  const row = await createInstitution(app.ctx.db, { name: options.name ?? `School ${Math.random().toString(36).slice(2, 8)}`, approve: status !== 'pending' });
  if (status === 'suspended') await row.update({ status: 'suspended' });
  return { id: row.id, name: row.name, tenant: new Tenant(app.ctx.db, row.id) };
}

export interface TestKey {
  id: string;
  key: string;
  /** `Authorization` header value. */
  auth: string;
}

export async function makeKey(
  app: Appliance,
  institution: TestInstitution,
  options: { scopes?: Array<Scope | 'all'>; rateLimit?: number; name?: string; environment?: 'live' | 'sandbox' } = {},
): Promise<TestKey> {
  const { row, key } = await createApiKey(institution.tenant, {
    name: options.name ?? 'test key',
    scopes: options.scopes ?? ['all'],
    rate_limit_per_min: options.rateLimit ?? 6000,
    ...(options.environment ? { environment: options.environment } : {}),
  });
  return { id: row.id, key, auth: `Bearer ${key}` };
}

/** An institution and a key on it; `eventsKey` adds a separate `webhooks:read` key for reading the event stream. */
export interface TestSchool {
  inst: TestInstitution;
  key: TestKey;
}

export async function makeSchool(
  app: Appliance,
  options: { scopes?: Array<Scope | 'all'>; name?: string; eventsKey: true },
): Promise<TestSchool & { eventsKey: TestKey }>;
export async function makeSchool(app: Appliance, options?: { scopes?: Array<Scope | 'all'>; name?: string; eventsKey?: false }): Promise<TestSchool>;
export async function makeSchool(
  app: Appliance,
  options: { scopes?: Array<Scope | 'all'>; name?: string; eventsKey?: boolean } = {},
): Promise<TestSchool & { eventsKey?: TestKey }> {
  const inst = await makeInstitution(app, { name: options.name });
  const key = await makeKey(app, inst, { scopes: options.scopes ?? ['all'] });
  if (!options.eventsKey) return { inst, key };
  return { inst, key, eventsKey: await makeKey(app, inst, { scopes: ['webhooks:read'] }) };
}

/** An event as GET /v1/events returns it. */
export interface WireEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** The key's institution's events of `type` (a pattern such as `exam.*`), oldest first, up to 200. */
export async function readEvents(app: TestAppliance, key: TestKey, type = '*'): Promise<WireEvent[]> {
  const res = await app.http.get('/v1/events').query({ type, limit: 200 }).set('Authorization', key.auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.items as WireEvent[];
}

/** A student or faculty member as the API returns them. */
export interface TestPerson {
  id: string;
  login_email: string;
  full_name: string;
}

/** A person made over HTTP, as an institution would (their license is granted on the way). */
export async function makePerson(
  app: TestAppliance,
  key: TestKey,
  role: 'students' | 'faculty',
  fullName: string,
  extra: Record<string, unknown> = {},
): Promise<TestPerson> {
  const res = await app.http
    .post(`/v1/${role}`)
    .set('Authorization', key.auth)
    .send({ full_name: fullName, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as TestPerson;
}

/**
 * A learner session token, got the way the portal's /launch page gets it: mint a launch token,
 * then exchange it. `mint` adds to the token request, `exchange` to the exchange request.
 */
export async function learnerSession(
  app: TestAppliance,
  key: TestKey,
  who: { login_email: string },
  options: { mint?: Record<string, unknown>; exchange?: Record<string, unknown> } = {},
): Promise<string> {
  const minted = await app.http
    .post('/v1/sso/tokens')
    .set('Authorization', key.auth)
    .send({ email: who.login_email, app: 'learning', ...options.mint });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const token = new URL(minted.body.data.launch_url as string).searchParams.get('token');
  const exchanged = await app.http.post('/v1/sso/exchange').send({ token, ...options.exchange });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return exchanged.body.data.session_token as string;
}

/**
 * Requests to /v1 as a given key. `app` is read at call time, so the helpers can be made before
 * the appliance starts in `beforeAll`.
 */
export function requestsAs(app: () => TestAppliance) {
  const send = (request: supertest.Test, key: TestKey, body?: unknown) => {
    const authorized = request.set('Authorization', key.auth);
    return body === undefined ? authorized : authorized.send(body as object);
  };
  return {
    get: (key: TestKey, path: string, query: Record<string, string | number> = {}) => send(app().http.get(`/v1${path}`).query(query), key),
    post: (key: TestKey, path: string, body: unknown = {}) => send(app().http.post(`/v1${path}`), key, body),
    patch: (key: TestKey, path: string, body: unknown) => send(app().http.patch(`/v1${path}`), key, body),
    put: (key: TestKey, path: string, body: unknown) => send(app().http.put(`/v1${path}`), key, body),
    del: (key: TestKey, path: string) => send(app().http.delete(`/v1${path}`), key),
  };
}

/** A mail's text as it waits in the outbox, where it is sealed; '' when there is none (or it was sent). */
export function outboxText(app: Appliance, row: MailOutboxRow | undefined): string {
  return row ? (openBody(app.ctx.db, row) ?? '') : '';
}
