// @tier integration
// @databases sqlite, postgres
/**
 * Portal API, server side: first-run setup, sign-in and sessions, CSRF, roles and API
 * keys, over HTTP against a real appliance (127.0.0.1, port 0, real SQLite file). A supertest
 * agent keeps the session cookie the way a browser would.
 */
import http from 'node:http';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, MAX_ACTIVE_KEYS } from '../server/commands/institutions/api-keys.js';
import { ADDRESS_FREE_FAILURES, FAILURE_MEMORY_MS, FIRST_WAIT_MS, LoginThrottle, MAX_WAIT_MS, PAIR_FREE_FAILURES } from '../server/portal/login-throttle.js';
import { requireMember } from '../server/portal/policies.js';
import { makeInstitution, startTestAppliance, type TestAppliance } from './helpers/appliance.js';
import { createAccount, expectError, expectOk, setUpPortal, signedInMember, signIn, type FirstRun, type Res } from './helpers/portal.js';
import { hashToken } from '../server/crypto/tokens.js';

const ADMIN = { institution: 'Riverside College', admin_email: 'Admin@Riverside.test', admin_password: 'correct horse battery' };
const ADMIN_EMAIL = 'admin@riverside.test';

/** The session row behind a CSRF token (the table holds its hash). */
async function sessionRowOf(app: TestAppliance, csrf: string) {
  const row = await app.ctx.db.models.PortalSession.findOne({ where: { csrf_token_hash: hashToken(csrf) } });
  expect(row).not.toBeNull();
  return row!;
}

describe('Portal: setup, sign-in and sessions', () => {
  let app: TestAppliance;
  const bodies: string[] = [];
  const keep = (res: Res) => {
    bodies.push(JSON.stringify(res.body));
    return res;
  };

  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  it('offers setup on an empty data folder; setup signs the admin in; the session describes them', async () => {
    const anonymous = await app.http.get('/portal/api/setup');
    expectOk(anonymous);
    expect(anonymous.body.data).toEqual({ needed: true });
    expectError(await app.http.get('/portal/api/session'), 401, 'unauthorized');

    const agent = supertest.agent(app.origin);
    const setup = keep(await agent.post('/portal/api/setup').send(ADMIN));
    expectOk(setup);
    const cookie = (setup.get('Set-Cookie') ?? []).find((line) => line.startsWith('cb_portal='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/i); // plain http
    expect(setup.get('Cache-Control')).toBe('no-store');

    expect((await app.http.get('/portal/api/setup')).body.data).toEqual({ needed: false });

    const session = keep(await agent.get('/portal/api/session'));
    expectOk(session);
    const institution = await app.ctx.db.models.Institution.findOne({ where: { name: ADMIN.institution } });
    expect(session.body.data).toEqual({
      account: { id: expect.stringMatching(/^acc_/), email: ADMIN_EMAIL, is_operator: true },
      memberships: [{ institution: { id: institution!.id, name: ADMIN.institution, status: 'approved' }, role: 'admin', sandbox_id: null }],
      csrf_token: setup.body.data.csrf_token,
    });
    expect(session.body.data.csrf_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // The database holds only hashes of the cookie and CSRF tokens.
    const token = cookie!.split(';')[0]!.slice('cb_portal='.length);
    const rows = await app.ctx.db.models.PortalSession.findAll({ raw: true });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(session.body.data.csrf_token);
  });

  it('refuses a second setup with 409 conflict and changes nothing', async () => {
    const before = await app.ctx.db.models.PortalAccount.count();
    const res = keep(await app.http.post('/portal/api/setup').send({ ...ADMIN, admin_email: 'other@riverside.test' }));
    expectError(res, 409, 'conflict');
    expect(res.get('Set-Cookie')).toBeUndefined();
    expect(await app.ctx.db.models.PortalAccount.count()).toBe(before);
  });

  it('signs in with the right password; a wrong password and an unknown email get the same 401', async () => {
    const ok = await supertest.agent(app.origin).post('/portal/api/login').send({ email: 'ADMIN@riverside.test', password: ADMIN.admin_password });
    keep(ok);
    expectOk(ok);
    expect(ok.body.data.account.email).toBe(ADMIN_EMAIL);

    const wrong = keep(await app.http.post('/portal/api/login').send({ email: ADMIN_EMAIL, password: 'not the password' }));
    const unknown = keep(await app.http.post('/portal/api/login').send({ email: 'nobody@riverside.test', password: 'not the password' }));
    expectError(wrong, 401, 'unauthorized');
    expectError(unknown, 401, 'unauthorized');
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.get('Set-Cookie')).toBeUndefined();
  });

  it('refuses a suspended account even with its password', async () => {
    const { account, email, password } = await createAccount(app, null, 'developer');
    await account.update({ status: 'suspended' });
    expectError(keep(await app.http.post('/portal/api/login').send({ email, password })), 401, 'unauthorized');
  });

  it('ends a session when its account is suspended', async () => {
    const { account, agent } = await signedInMember(app, null, 'developer');
    expectOk(await agent.get('/portal/api/session'));
    await account.update({ status: 'suspended' });
    expectError(await agent.get('/portal/api/session'), 401, 'unauthorized');
  });

  it('logout needs the CSRF token, then ends the session for good', async () => {
    const { agent, csrf } = await signIn(app, ADMIN_EMAIL, ADMIN.admin_password);
    expectError(await agent.post('/portal/api/logout'), 403, 'forbidden');
    expectOk(await agent.get('/portal/api/session'));

    const sessionsBefore = await app.ctx.db.models.PortalSession.count();
    const out = await agent.post('/portal/api/logout').set('X-CSRF-Token', csrf);
    expectOk(out);
    expect(out.get('Set-Cookie')?.join(';')).toMatch(/cb_portal=;/);
    expect(await app.ctx.db.models.PortalSession.count()).toBe(sessionsBefore - 1);
    expectError(await agent.get('/portal/api/session'), 401, 'unauthorized');
  });

  it('a replayed cookie of an ended session is refused', async () => {
    const agent = supertest.agent(app.origin);
    const login = await agent.post('/portal/api/login').send({ email: ADMIN_EMAIL, password: ADMIN.admin_password });
    const cookie = login
      .get('Set-Cookie')!
      .find((line) => line.startsWith('cb_portal='))!
      .split(';')[0]!;
    expectOk(await app.http.get('/portal/api/session').set('Cookie', cookie));
    await agent.post('/portal/api/logout').set('X-CSRF-Token', login.body.data.csrf_token);
    expectError(await app.http.get('/portal/api/session').set('Cookie', cookie), 401, 'unauthorized');
  });

  it('a session past its absolute end, or idle for over 2 hours, is refused', async () => {
    const { PortalSession } = app.ctx.db.models;
    const first = await signIn(app, ADMIN_EMAIL, ADMIN.admin_password);
    const firstRow = await sessionRowOf(app, first.csrf);
    await PortalSession.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: firstRow.id } });
    expectError(await first.agent.get('/portal/api/session'), 401, 'unauthorized');

    const second = await signIn(app, ADMIN_EMAIL, ADMIN.admin_password);
    const secondRow = await sessionRowOf(app, second.csrf);
    expect(secondRow.expires_at.getTime() - secondRow.created_at.getTime()).toBe(12 * 60 * 60 * 1000);
    await PortalSession.update({ last_seen_at: new Date(Date.now() - 2 * 60 * 60 * 1000 - 1000) }, { where: { id: secondRow.id } });
    expectError(await second.agent.get('/portal/api/session'), 401, 'unauthorized');
  });

  it('answers unknown portal API paths with the 404 envelope', async () => {
    const res = await app.http.get('/portal/api/nothing-here');
    expectError(res, 404, 'not_found');
    expectError(await app.http.delete('/portal/api/session'), 404, 'not_found');
  });

  it('never shows a password hash in a response or the log', async () => {
    const accounts = await app.ctx.db.models.PortalAccount.findAll();
    const hashes = accounts.map((account) => account.password_hash).filter((hash): hash is string => Boolean(hash));
    expect(hashes.length).toBeGreaterThan(1);
    expect(bodies.length).toBeGreaterThan(5);
    const everything = bodies.join('\n') + app.logText();
    for (const hash of hashes) {
      expect(everything).not.toContain(hash);
      expect(everything).not.toContain(hash.split('$').at(-1));
    }
    expect(everything).not.toContain('password_hash');
    expect(everything).not.toContain(ADMIN.admin_password);
  });
});

describe('Portal: failed sign-ins are rate limited', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
    await setUpPortal(app, ADMIN);
  });
  afterAll(() => app.close());

  /** A sign-in sent to 127.0.0.1 from another loopback source address: another machine, as the server sees it. */
  function loginFrom(sourceAddress: string, body: { email: string; password: string }) {
    return new Promise<{ status: number; body: { error?: string }; retryAfter: string | undefined }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const request = http.request(
        `${app.origin}/portal/api/login`,
        { method: 'POST', localAddress: sourceAddress, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(text) as { error?: string },
              retryAfter: res.headers['retry-after'] as string | undefined,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  it('someone else failing five times with the admin’s email does not lock the admin out', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await loginFrom('127.0.0.2', { email: ADMIN_EMAIL, password: `guess ${i}` })).status).toBe(401);
    }
    const guesser = await loginFrom('127.0.0.2', { email: ADMIN_EMAIL, password: ADMIN.admin_password });
    expect(guesser.status).toBe(429);
    expect(guesser.body.error).toBe('rate_limited');
    expect(Number(guesser.retryAfter)).toBeGreaterThan(50);
    expect(Number(guesser.retryAfter)).toBeLessThanOrEqual(60);
    // The owner, from their own machine, signs in as usual.
    const owner = await loginFrom('127.0.0.1', { email: ADMIN_EMAIL, password: ADMIN.admin_password });
    expect(owner.status).toBe(200);
  });

  it('refuses the 6th attempt of one email from one address with 429 and Retry-After, even with the right password', async () => {
    const email = 'second@riverside.test';
    for (let i = 0; i < 5; i += 1) {
      expectError(await app.http.post('/portal/api/login').send({ email, password: `wrong ${i}` }), 401, 'unauthorized');
    }
    const sixth = await app.http.post('/portal/api/login').send({ email, password: 'still wrong' });
    expectError(sixth, 429, 'rate_limited');
    expect(sixth.get('Set-Cookie')).toBeUndefined();
    expect(Number(sixth.get('Retry-After'))).toBeGreaterThan(50);
    // The message says the same wait as the header, in words: not "later".
    expect(sixth.body.message).toBe(`Too many failed sign-ins; try again in ${sixth.get('Retry-After')} seconds.`);
  });

  it('backs off exponentially per email and address, and per address over many emails', () => {
    let now = 1_000_000;
    const throttle = new LoginThrottle(() => now);
    for (let i = 0; i < PAIR_FREE_FAILURES - 1; i += 1) throttle.recordFailure('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe(0);
    throttle.recordFailure('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe(FIRST_WAIT_MS / 1000);
    // The same email from elsewhere, and another email from here, are not held.
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.2')).toBe(0);
    expect(throttle.retryAfterSeconds('b@x.test', '10.0.0.1')).toBe(0);
    // Each further failure doubles the wait, up to the cap.
    now += FIRST_WAIT_MS;
    throttle.recordFailure('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe((2 * FIRST_WAIT_MS) / 1000);
    now += 2 * FIRST_WAIT_MS;
    throttle.recordFailure('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe((4 * FIRST_WAIT_MS) / 1000);
    for (let i = 0; i < 10; i += 1) throttle.recordFailure('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe(MAX_WAIT_MS / 1000);
    // A success clears the pair.
    throttle.recordSuccess('a@x.test', '10.0.0.1');
    expect(throttle.retryAfterSeconds('a@x.test', '10.0.0.1')).toBe(0);
    // One address trying many accounts is held once it has failed often enough, whatever the email.
    for (let i = 0; i < ADDRESS_FREE_FAILURES; i += 1) throttle.recordFailure(`user${i}@x.test`, '10.0.0.9');
    expect(throttle.retryAfterSeconds('fresh@x.test', '10.0.0.9')).toBeGreaterThan(0);
    // Failures are forgotten after a day.
    now += FAILURE_MEMORY_MS + 1;
    expect(throttle.retryAfterSeconds('fresh@x.test', '10.0.0.9')).toBe(0);
  });
});

describe('Portal: API keys', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let institutionId: string;
  let accountId: string;

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    ({ institutionId, accountId } = admin);
  });
  afterAll(() => app.close());

  const keysPath = () => `/portal/api/institutions/${institutionId}/keys`;

  it('refuses writes without the CSRF token, or with a wrong one, and changes nothing', async () => {
    const before = await app.ctx.db.models.ApiKey.count();
    const body = { name: 'No CSRF', scopes: ['students:read'] };
    expectError(await admin.agent.post(keysPath()).send(body), 403, 'forbidden');
    expectError(await admin.agent.post(keysPath()).set('X-CSRF-Token', 'x'.repeat(43)).send(body), 403, 'forbidden');
    expectError(await admin.agent.post(keysPath()).set('X-CSRF-Token', '').send(body), 403, 'forbidden');
    // A CSRF token of another session is no good either.
    const other = await signIn(app, ADMIN_EMAIL, ADMIN.admin_password);
    expectError(await admin.agent.post(keysPath()).set('X-CSRF-Token', other.csrf).send(body), 403, 'forbidden');
    expect(await app.ctx.db.models.ApiKey.count()).toBe(before);
  });

  it('creates a key shown once, usable at once; lists, edits and revokes it', async () => {
    const created = await admin.agent
      .post(keysPath())
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'LMS sync', scopes: ['students:read', 'groups:write'], rate_limit_per_min: 120 });
    expectOk(created);
    const { key, key_id } = created.body.data;
    expect(key).toMatch(/^cb_live_[A-Za-z0-9]{32}$/);
    expect(created.body.data).toMatchObject({ name: 'LMS sync', scopes: ['students:read', 'groups:write'], rate_limit_per_min: 120, last4: key.slice(-4) });
    expect((await app.ctx.db.models.ApiKey.findByPk(key_id))!.created_by).toBe(accountId);

    const me = await app.http.get('/v1/me').set('Authorization', `Bearer ${key}`);
    expectOk(me);
    expect(me.body.data).toMatchObject({ key_id, institution: { id: institutionId }, rate_limit_per_min: 120 });

    const list = await admin.agent.get(keysPath());
    expectOk(list);
    const listed = (list.body.data as Array<Record<string, unknown>>).find((item) => item.key_id === key_id);
    expect(listed).toMatchObject({ name: 'LMS sync', prefix: key.slice(0, 12), last4: key.slice(-4), status: 'active' });
    expect(listed).not.toHaveProperty('key');
    expect(listed).not.toHaveProperty('key_hash');
    const stored = await app.ctx.db.models.ApiKey.findByPk(key_id);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(JSON.stringify(list.body)).not.toContain(stored!.key_hash);

    const patched = await admin.agent
      .patch(`${keysPath()}/${key_id}`)
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'LMS sync (nightly)', rate_limit_per_min: 300 });
    expectOk(patched);
    expect(patched.body.data).toMatchObject({ key_id, name: 'LMS sync (nightly)', rate_limit_per_min: 300, scopes: ['students:read', 'groups:write'] });
    expect(patched.body.data).not.toHaveProperty('key');
    expect((await app.http.get('/v1/me').set('Authorization', `Bearer ${key}`)).body.data.rate_limit_per_min).toBe(300);

    for (const bad of [{ rate_limit_per_min: 5 }, { rate_limit_per_min: 6001 }, { name: '' }, { scopes: ['all'] }]) {
      expectError(await admin.agent.patch(`${keysPath()}/${key_id}`).set('X-CSRF-Token', admin.csrf).send(bad), 422, 'validation_error');
    }

    const revoked = await admin.agent.post(`${keysPath()}/${key_id}/revoke`).set('X-CSRF-Token', admin.csrf);
    expectOk(revoked);
    expect(revoked.body.data).toMatchObject({ key_id, status: 'revoked', revoked_at: expect.any(String) });
    expectError(await app.http.get('/v1/me').set('Authorization', `Bearer ${key}`), 401, 'invalid_api_key');
    expectError(await admin.agent.patch(`${keysPath()}/${key_id}`).set('X-CSRF-Token', admin.csrf).send({ name: 'again' }), 409, 'conflict');
    expectError(await admin.agent.post(`${keysPath()}/key_missing/revoke`).set('X-CSRF-Token', admin.csrf), 404, 'not_found');
  });

  it('rejects unknown scopes and out-of-range rate limits at creation', async () => {
    const unknown = await admin.agent
      .post(keysPath())
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'Bad', scopes: ['students:read', 'rockets:launch'] });
    expectError(unknown, 422, 'invalid_scopes');
    for (const rate of [9, 6001]) {
      const res = await admin.agent
        .post(keysPath())
        .set('X-CSRF-Token', admin.csrf)
        .send({ name: 'Bad', scopes: ['students:read'], rate_limit_per_min: rate });
      expectError(res, 422, 'validation_error');
    }
    const withCreator = await admin.agent
      .post(keysPath())
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'Bad', scopes: ['students:read'], created_by: 'acc_x' });
    expectError(withCreator, 422, 'validation_error');
  });

  it('explains the 25-key limit when the 26th active key is asked for', async () => {
    const scoped = admin.institution.tenant;
    const active = await app.ctx.db.models.ApiKey.count({ where: { institution_id: institutionId, status: 'active' } });
    for (let i = active; i < MAX_ACTIVE_KEYS; i += 1) await createApiKey(scoped, { name: `filler ${i}`, scopes: ['students:read'] });
    const res = await admin.agent
      .post(keysPath())
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'One too many', scopes: ['students:read'] });
    expectError(res, 422, 'key_limit');
    expect(res.body.message).toMatch(/25/);
    expect(await app.ctx.db.models.ApiKey.count({ where: { institution_id: institutionId, status: 'active' } })).toBe(MAX_ACTIVE_KEYS);
  });

  it('lets an invited developer manage keys; a non-member gets 404 for the institution', async () => {
    const school = await makeInstitution(app, { name: 'Developer School' });
    const dev = await signedInMember(app, school.id, 'developer');
    const session = await dev.agent.get('/portal/api/session');
    expect(session.body.data.account).toEqual({ id: dev.account.id, email: dev.email, is_operator: false });
    expect(session.body.data.memberships).toEqual([
      { institution: { id: school.id, name: 'Developer School', status: 'approved' }, role: 'developer', sandbox_id: null },
    ]);

    const path = `/portal/api/institutions/${school.id}/keys`;
    const created = await dev.agent
      .post(path)
      .set('X-CSRF-Token', dev.csrf)
      .send({ name: 'Dev key', scopes: ['exams:read'] });
    expectOk(created);
    expect((await app.ctx.db.models.ApiKey.findByPk(created.body.data.key_id))!.created_by).toBe(dev.account.id);
    expectOk(await dev.agent.patch(`${path}/${created.body.data.key_id}`).set('X-CSRF-Token', dev.csrf).send({ name: 'Dev key 2' }));
    const list = await dev.agent.get(path);
    expectOk(list);
    expect(list.body.data.map((item: { name: string }) => item.name)).toEqual(['Dev key 2']);
    expectOk(await dev.agent.post(`${path}/${created.body.data.key_id}/revoke`).set('X-CSRF-Token', dev.csrf));

    // The developer is no member of the first institution: 404, whatever the method, and nothing changes.
    const before = await app.ctx.db.models.ApiKey.count({ where: { institution_id: institutionId } });
    expectError(await dev.agent.get(keysPath()), 404, 'not_found');
    expectError(
      await dev.agent
        .post(keysPath())
        .set('X-CSRF-Token', dev.csrf)
        .send({ name: 'x', scopes: ['students:read'] }),
      404,
      'not_found',
    );
    const someKey = await app.ctx.db.models.ApiKey.findOne({ where: { institution_id: institutionId, status: 'active' } });
    expectError(await dev.agent.post(`${keysPath()}/${someKey!.id}/revoke`).set('X-CSRF-Token', dev.csrf), 404, 'not_found');
    expect((await someKey!.reload()).status).toBe('active');
    expect(await app.ctx.db.models.ApiKey.count({ where: { institution_id: institutionId } })).toBe(before);
    // A key id of another institution through one's own institution path is not found either.
    expectError(await dev.agent.post(`${path}/${someKey!.id}/revoke`).set('X-CSRF-Token', dev.csrf), 404, 'not_found');

    // The operator-admin is no member of the developer's school.
    expectError(await admin.agent.get(path), 404, 'not_found');
    expectError(await dev.agent.get('/portal/api/institutions/inst_nope/keys'), 404, 'not_found');
    // Signed out: 401 before anything else.
    expectError(await app.http.get(path), 401, 'unauthorized');
  });

  it('requireMember: a member whose role is not allowed gets 403, a suspended membership counts as none', async () => {
    const school = await makeInstitution(app);
    const developer = await createAccount(app, school.id, 'developer');
    const auth = { account: developer.account } as Parameters<typeof requireMember>[1];
    await expect(requireMember(app.ctx.db, auth, school.id, ['admin'])).rejects.toMatchObject({ code: 'forbidden' });
    await expect(requireMember(app.ctx.db, auth, school.id, ['admin', 'developer'])).resolves.toMatchObject({ role: 'developer' });
    await app.ctx.db.models.Membership.update({ status: 'suspended' }, { where: { account_id: developer.account.id } });
    await expect(requireMember(app.ctx.db, auth, school.id, ['admin', 'developer'])).rejects.toMatchObject({ code: 'not_found' });
  });

  it('never logs a full key or a password hash', async () => {
    const hash = (await app.ctx.db.models.PortalAccount.findByPk(accountId))!.password_hash!;
    expect(app.logText()).not.toContain(hash.split('$').at(-1));
    expect(app.logText()).not.toMatch(/cb_live_[A-Za-z0-9]{32}/);
  });
});
