// @tier integration
// @databases sqlite, postgres
/**
 * Portal institution settings: the profile and integration config on the same commands
 * as /v1/institution, and the institution's mail outbox with masked recipients, over HTTP against
 * a real appliance (127.0.0.1, port 0, real SQLite file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, outboxText, requestsAs, startTestAppliance, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { expectError, expectOk, institutionApi, setUpPortal, signedInMember, type Agent, type FirstRun } from './helpers/portal.js';

const ADMIN = { institution: 'Lakeside School', admin_email: 'admin@lakeside.test', admin_password: 'correct horse battery' };
const CONFIG = {
  default_ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 25 },
  default_proctoring: { camera: false, screen: true },
  allowed_toolchains: ['python-3.12', 'node-20'],
  toolchain_mirror: { url: 'https://mirror.lakeside.example/toolchains' },
  lms: { name: 'Moodle', base_url: 'https://lms.lakeside.example' },
};

describe('Portal: institution settings and the mail outbox', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let key: TestKey;
  const v1 = requestsAs(() => app);

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    key = await makeKey(app, admin.institution);
  });
  afterAll(() => app.close());

  const path = (suffix: string, id = admin.institutionId) => `${institutionApi(id)}${suffix}`;
  const put = (agent: Agent, csrf: string, url: string, body: unknown) =>
    agent
      .put(url)
      .set('X-CSRF-Token', csrf)
      .send(body as object);

  it('shows the profile and counts exactly as GET /v1/institution does', async () => {
    const student = await v1.post(key, '/students', { full_name: 'Ada Lovelace', personal_email: 'ada.home@family.example' });
    expectOk(student);

    const res = await admin.agent.get(path('/institution'));
    expectOk(res);
    expect(res.body.data).toMatchObject({ id: admin.institutionId, name: ADMIN.institution, status: 'approved', counts: { students: 1, faculty: 0 } });
    const viaApi = await v1.get(key, '/institution');
    expectOk(viaApi);
    expect(res.body.data).toEqual(viaApi.body.data);
  });

  it('reads and replaces the integration config; the API sees the same config, and the API change shows in the portal', async () => {
    const before = await admin.agent.get(path('/institution/config'));
    expectOk(before);
    expect(before.body.data).toEqual((await v1.get(key, '/institution/config')).body.data);
    expect(before.body.data).toMatchObject({ allowed_toolchains: [], toolchain_mirror: null });

    const saved = await put(admin.agent, admin.csrf, path('/institution/config'), CONFIG);
    expectOk(saved);
    expect(saved.body.data).toEqual(CONFIG);
    expect((await v1.get(key, '/institution/config')).body.data).toEqual(CONFIG);

    const viaApi = { ...CONFIG, toolchain_mirror: null, allowed_toolchains: ['rust-1.80'] };
    expectOk(await v1.put(key, '/institution/config', viaApi));
    expect((await admin.agent.get(path('/institution/config'))).body.data).toEqual(viaApi);
  });

  it('refuses a config the API would refuse with 422 validation_error, and changes nothing', async () => {
    const current = (await admin.agent.get(path('/institution/config'))).body.data;
    const { lms: _lms, ...missingField } = CONFIG;
    const bad = [
      missingField,
      { ...CONFIG, allowed_toolchains: ['node-20', 'node-20'] },
      { ...CONFIG, default_ai_policy: { allowed: 'yes' } },
      { ...CONFIG, extra: 1 },
    ];
    for (const body of bad) {
      const res = await put(admin.agent, admin.csrf, path('/institution/config'), body);
      expectError(res, 422, 'validation_error');
      expect(res.body.message).toEqual(expect.any(String));
    }
    // The same bodies through the API answer the same way.
    expectError(await v1.put(key, '/institution/config', missingField), 422, 'validation_error');
    expect((await admin.agent.get(path('/institution/config'))).body.data).toEqual(current);
    // A change needs the CSRF header like every other portal change.
    expectError(await admin.agent.put(path('/institution/config')).send(CONFIG), 403, 'forbidden');
  });

  it('lists the outbox newest first with masked recipients, never bodies, tokens or sealed addresses', async () => {
    const student = await v1.post(key, '/students', { full_name: 'Grace Hopper', personal_email: 'grace.home@family.example' });
    expectOk(student);
    const first = await v1.post(key, '/guardians', { student_id: student.body.data.id, guardian_email: 'Maria.Guardian@Example.org', guardian_type: 'mother' });
    expectOk(first);
    const second = await v1.post(key, '/guardians', { student_id: student.body.data.id, guardian_email: 'zed.father@example.net', guardian_type: 'father' });
    expectOk(second);

    const res = await admin.agent.get(path('/outbox'));
    expectOk(res);
    const { items, next_cursor, mail_server_configured } = res.body.data;
    expect(next_cursor).toBeNull();
    expect(mail_server_configured).toBe(false);
    expect(items).toHaveLength(2);
    expect(items.map((item: { to: string }) => item.to)).toEqual(['z•••@example.net', 'm•••@example.org']);
    expect(items[1]).toEqual({
      id: expect.stringMatching(/^mail_/),
      to: 'm•••@example.org',
      subject: expect.stringContaining('guardian'),
      kind: 'guardian_invite',
      status: 'queued',
      dropped_reason: null,
      attempts: 0,
      last_error: null,
      next_attempt_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      sent_at: null,
    });

    // Nothing a reader could use: not the addresses, not the body with its accept link, not the sealed value.
    const rows = await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: admin.institutionId } });
    expect(rows).toHaveLength(2);
    const text = JSON.stringify(res.body);
    for (const row of rows) {
      expect(text).not.toContain(row.to_sealed);
      expect(text).not.toContain(outboxText(app, row).slice(0, 40));
      const token = /token=([A-Za-z0-9]+)/.exec(outboxText(app, row))?.[1];
      expect(token).toBeDefined();
      expect(text).not.toContain(token!);
    }
    expect(text).not.toMatch(/maria\.guardian|zed\.father|grace\.home/i);
  });

  it('pages the outbox with a cursor and filters it by status', async () => {
    const firstPage = await admin.agent.get(path('/outbox')).query({ limit: 1 });
    expectOk(firstPage);
    expect(firstPage.body.data.items).toHaveLength(1);
    expect(firstPage.body.data.items[0].to).toBe('z•••@example.net');
    const cursor = firstPage.body.data.next_cursor;
    expect(cursor).toEqual(expect.any(String));

    const secondPage = await admin.agent.get(path('/outbox')).query({ limit: 1, cursor });
    expectOk(secondPage);
    expect(secondPage.body.data.items.map((item: { to: string }) => item.to)).toEqual(['m•••@example.org']);
    expect(secondPage.body.data.next_cursor).toBeNull();

    // A failed message is listed under `failed` only.
    const failedId = secondPage.body.data.items[0].id;
    await app.ctx.db.models.MailOutbox.update({ status: 'failed', attempts: 5, last_error: 'ECONNREFUSED connect failed' }, { where: { id: failedId } });
    const failed = await admin.agent.get(path('/outbox')).query({ status: 'failed' });
    expectOk(failed);
    expect(failed.body.data.items).toEqual([
      expect.objectContaining({ id: failedId, status: 'failed', attempts: 5, last_error: 'ECONNREFUSED connect failed' }),
    ]);
    const queued = await admin.agent.get(path('/outbox')).query({ status: 'queued' });
    expect(queued.body.data.items.map((item: { id: string }) => item.id)).not.toContain(failedId);

    expectError(await admin.agent.get(path('/outbox')).query({ cursor: 'not-a-cursor' }), 422, 'validation_error');
    expectError(await admin.agent.get(path('/outbox')).query({ limit: 0 }), 422, 'validation_error');
    expectError(await admin.agent.get(path('/outbox')).query({ status: 'lost' }), 422, 'validation_error');
    expectError(await admin.agent.get(path('/outbox')).query({ sort: 'to' }), 422, 'validation_error');
  });

  it('shows only its own institution’s mail', async () => {
    const other = await makeInstitution(app, { name: 'Hillside Academy' });
    const otherKey = await makeKey(app, other);
    const student = await v1.post(otherKey, '/students', { full_name: 'Alan Turing' });
    expectOk(student);
    expectOk(await v1.post(otherKey, '/guardians', { student_id: student.body.data.id, guardian_email: 'sara@hillside.example', guardian_type: 'mother' }));

    const mine = await admin.agent.get(path('/outbox')).query({ limit: 200 });
    expect(mine.body.data.items.map((item: { to: string }) => item.to)).not.toContain('s•••@hillside.example');

    const otherAdmin = await signedInMember(app, other.id, 'admin');
    const theirs = await otherAdmin.agent.get(path('/outbox', other.id));
    expectOk(theirs);
    expect(theirs.body.data.items.map((item: { to: string }) => item.to)).toEqual(['s•••@hillside.example']);
  });

  it('admins change it and read the outbox, developers read the institution only; another institution 404, no session 401', async () => {
    const developer = await signedInMember(app, admin.institutionId, 'developer');
    // Developers still reach their own pages…
    expectOk(await developer.agent.get(path('/keys')));
    // …and read the institution (institution:read is a developer's), but change none of it (institution:write is the admins').
    expectOk(await developer.agent.get(path('/institution')));
    expectOk(await developer.agent.get(path('/institution/config')));
    expectError(await put(developer.agent, developer.csrf, path('/institution/config'), CONFIG), 403, 'forbidden');
    expectError(await developer.agent.get(path('/outbox')), 403, 'forbidden');

    const other = await makeInstitution(app, { name: 'Elsewhere College' });
    for (const suffix of ['/institution', '/institution/config', '/outbox']) {
      expectError(await admin.agent.get(path(suffix, other.id)), 404, 'not_found');
      expectError(await admin.agent.get(path(suffix, 'inst_doesnotexist')), 404, 'not_found');
      expectError(await app.http.get(path(suffix)), 401, 'unauthorized');
    }
    expectError(await put(admin.agent, admin.csrf, path('/institution/config', other.id), CONFIG), 404, 'not_found');
    // The other institution's config is untouched.
    expect((await other.tenant.institution()).config.allowed_toolchains).toEqual([]);
  });
});
