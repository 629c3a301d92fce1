// @tier integration
// @databases sqlite, postgres
/**
 * Portal developers and operator: invitations by mail, acceptance and sign-in,
 * suspension with key revocation, removal, and the operator's institution management, over HTTP
 * against a real appliance (127.0.0.1, port 0, real SQLite file).
 */
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../commands/institutions/api-keys.js';
import { DEVELOPER_INVITE_TTL_MS } from '../../commands/accounts/developers.js';
import { makeInstitution, outboxText, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { createAccount, expectError, expectOk, setUpPortal, type Agent, type FirstRun } from '../../../tests/helpers/portal.js';
import { hashToken } from '../../crypto/tokens.js';

const ADMIN = { institution: 'Harbour Academy', admin_email: 'admin@harbour.test', admin_password: 'correct horse battery' };
const DEV_PASSWORD = 'developer password 1';
const TOKEN_IN_LINK = /\/#\/accept-invite\?token=([A-Za-z0-9]{40})\b/;

describe('Portal: developers and the operator', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let institutionId: string;
  const seenMails = new Set<string>();

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    institutionId = admin.institutionId;
  });
  afterAll(() => app.close());

  const devPath = (suffix = '') => `/portal/api/institutions/${institutionId}/developers${suffix}`;
  const keysPath = () => `/portal/api/institutions/${institutionId}/keys`;
  const invite = (email: string) => admin.agent.post(devPath('/invitations')).set('X-CSRF-Token', admin.csrf).send({ email });

  /** The developer_invite mails queued since the last call. */
  async function newInviteMails() {
    const rows = await app.ctx.db.models.MailOutbox.findAll({ where: { kind: 'developer_invite' } });
    const fresh = rows.filter((row) => !seenMails.has(row.id));
    for (const row of fresh) seenMails.add(row.id);
    return fresh;
  }

  async function tokenOfNewMail(): Promise<string> {
    const mails = await newInviteMails();
    expect(mails).toHaveLength(1);
    const token = TOKEN_IN_LINK.exec(outboxText(app, mails[0]!))?.[1];
    expect(token).toBeDefined();
    return token!;
  }

  const accept = (agent: Agent | ReturnType<typeof supertest>, token: string, password = DEV_PASSWORD) =>
    agent.post('/portal/api/invitations/accept').send({ token, password });

  /** Invites `email`, accepts the mailed link with a fresh agent (signed in), returns it. */
  async function inviteAndAccept(email: string) {
    expectOk(await invite(email));
    const token = await tokenOfNewMail();
    const agent = supertest.agent(app.origin);
    const res = await accept(agent, token);
    expectOk(res);
    return { agent, csrf: res.body.data.csrf_token as string, accountId: res.body.data.account.id as string, token };
  }

  async function createKey(agent: Agent, csrf: string, name: string): Promise<{ id: string; key: string }> {
    const res = await agent
      .post(keysPath())
      .set('X-CSRF-Token', csrf)
      .send({ name, scopes: ['students:read'] });
    expectOk(res);
    return { id: res.body.data.key_id, key: res.body.data.key };
  }

  const me = (key: string) => app.http.get('/v1/me').set('Authorization', `Bearer ${key}`);

  it('invites by mail; the link signs the new developer in, who can make keys but not manage developers or institutions', async () => {
    const invited = await invite('Dev.One@Example.test');
    expectOk(invited);
    expect(invited.body.data).toMatchObject({
      invitation_id: expect.stringMatching(/^inv_/),
      email: 'dev.one@example.test',
      role: 'developer',
      status: 'pending',
    });
    const expiresIn = Date.parse(invited.body.data.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(DEVELOPER_INVITE_TTL_MS - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(DEVELOPER_INVITE_TTL_MS);

    const mails = await newInviteMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!).toMatchObject({ kind: 'developer_invite', institution_id: institutionId, to_masked: 'd•••@example.test' });
    expect(outboxText(app, mails[0]!)).toContain(`${await app.ctx.publicUrl()}/#/accept-invite?token=`);
    const token = TOKEN_IN_LINK.exec(outboxText(app, mails[0]!))![1]!;
    // Only the hash is stored.
    const row = await app.ctx.db.models.Invitation.findByPk(invited.body.data.invitation_id);
    expect(row!.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(await app.ctx.db.models.Invitation.findAll({ raw: true }))).not.toContain(token);
    expect(JSON.stringify(invited.body)).not.toContain(row!.token_hash!);

    // No mail server here: the answer (and only the answer) carries the link, for the admin to hand over.
    const { mail, mail_server, invite_url, ...invitation } = invited.body.data;
    expect({ mail, mail_server, invite_url }).toEqual({
      mail: { mail_id: mails[0]!.id, status: 'queued' },
      mail_server: false,
      invite_url: `${await app.ctx.publicUrl()}/#/accept-invite?token=${token}`,
    });
    const listed = await admin.agent.get(devPath());
    expectOk(listed);
    expect(listed.body.data.invitations).toEqual([invitation]);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body.data.members).toEqual([
      expect.objectContaining({ account_id: admin.accountId, role: 'admin', status: 'active', invited_at: null, accepted_at: null }),
    ]);

    // Too short a password changes nothing; the right answer signs in with a cookie.
    const dev = supertest.agent(app.origin);
    expectError(await accept(dev, token, 'short'), 422, 'validation_error');
    const accepted = await accept(dev, token);
    expectOk(accepted);
    expect(accepted.body.data).toMatchObject({
      institution_id: institutionId,
      role: 'developer',
      created_account: true,
      account: { email: 'dev.one@example.test', is_operator: false },
    });
    expect((accepted.get('Set-Cookie') ?? []).some((line) => line.startsWith('cb_portal='))).toBe(true);
    const csrf = accepted.body.data.csrf_token as string;

    const session = await dev.get('/portal/api/session');
    expectOk(session);
    expect(session.body.data.memberships).toEqual([
      { institution: { id: institutionId, name: ADMIN.institution, status: 'approved' }, role: 'developer', sandbox_id: null },
    ]);
    // The password chosen at acceptance is the account's password from now on.
    expectOk(await supertest.agent(app.origin).post('/portal/api/login').send({ email: 'dev.one@example.test', password: DEV_PASSWORD }));

    const key = await createKey(dev, csrf, 'Dev one key');
    expectOk(await me(key.key));

    // Only admins manage developers; only the operator manages institutions.
    expectError(await dev.get(devPath()), 403, 'forbidden');
    expectError(await dev.post(devPath('/invitations')).set('X-CSRF-Token', csrf).send({ email: 'x@example.test' }), 403, 'forbidden');
    expectError(
      await dev
        .post(devPath(`/${admin.accountId}/suspend`))
        .set('X-CSRF-Token', csrf)
        .send({}),
      403,
      'forbidden',
    );
    expectError(await dev.delete(devPath(`/${admin.accountId}`)).set('X-CSRF-Token', csrf), 403, 'forbidden');
    expectError(await dev.get('/portal/api/operator/institutions'), 403, 'forbidden');
    expectError(await dev.post('/portal/api/operator/institutions').set('X-CSRF-Token', csrf).send({ name: 'Nope' }), 403, 'forbidden');
    expectError(await dev.post(`/portal/api/operator/institutions/${institutionId}/suspend`).set('X-CSRF-Token', csrf), 403, 'forbidden');

    // The link is single-use.
    expectError(await accept(app.http, token), 401, 'unauthorized');

    const after = await admin.agent.get(devPath());
    expect(after.body.data.invitations).toEqual([]);
    expect(after.body.data.members).toContainEqual({
      account_id: accepted.body.data.account.id,
      email: 'dev.one@example.test',
      role: 'developer',
      status: 'active',
      invited_at: invited.body.data.invited_at,
      accepted_at: expect.any(String),
      joined_at: expect.any(String),
    });
  });

  it('resending voids the previous link and restarts the 7 days', async () => {
    const invited = await invite('resend@example.test');
    expectOk(invited);
    const first = await tokenOfNewMail();
    const id = invited.body.data.invitation_id as string;
    await app.ctx.db.models.Invitation.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id } });

    const resent = await admin.agent.post(devPath(`/invitations/${id}/resend`)).set('X-CSRF-Token', admin.csrf);
    expectOk(resent);
    expect(resent.body.data).toMatchObject({ invitation_id: id, status: 'pending' });
    expect(Date.parse(resent.body.data.expires_at) - Date.now()).toBeGreaterThan(DEVELOPER_INVITE_TTL_MS - 60_000);
    const second = await tokenOfNewMail();
    expect(second).not.toBe(first);

    expectError(await accept(app.http, first), 401, 'unauthorized');
    expectOk(await accept(supertest.agent(app.origin), second));
    // An accepted invitation cannot be resent; an unknown one is not found.
    expectError(await admin.agent.post(devPath(`/invitations/${id}/resend`)).set('X-CSRF-Token', admin.csrf), 409, 'conflict');
    expectError(await admin.agent.post(devPath('/invitations/inv_nope/resend')).set('X-CSRF-Token', admin.csrf), 404, 'not_found');
  });

  it('refuses an expired link, an unknown one and a malformed one with the same 401', async () => {
    const invited = await invite('late@example.test');
    expectOk(invited);
    const token = await tokenOfNewMail();
    await app.ctx.db.models.Invitation.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: invited.body.data.invitation_id } });
    const expired = await accept(app.http, token);
    expectError(expired, 401, 'unauthorized');
    expect(expired.get('Set-Cookie')).toBeUndefined();
    const unknown = await accept(app.http, 'A'.repeat(40));
    expectError(unknown, 401, 'unauthorized');
    expect(unknown.body).toEqual(expired.body);
    expectError(await accept(app.http, 'not a token'), 401, 'unauthorized');
    expect(await app.ctx.db.models.PortalAccount.count({ where: { email: 'late@example.test' } })).toBe(0);

    const listed = await admin.agent.get(devPath());
    expect(listed.body.data.invitations).toContainEqual(expect.objectContaining({ email: 'late@example.test', status: 'expired' }));
  });

  it('answers 409 already_added for a member; a second invitation to the same email renews the open one', async () => {
    expectError(await invite('dev.one@example.test'), 409, 'already_added');
    expectError(await invite(ADMIN.admin_email), 409, 'already_added');
    expect(await newInviteMails()).toHaveLength(0);

    const first = await invite('twice@example.test');
    const again = await invite('twice@example.test');
    expectOk(again);
    expect(again.body.data.invitation_id).toBe(first.body.data.invitation_id);
    const mails = await newInviteMails();
    expect(mails).toHaveLength(2);
    expectError(await accept(app.http, TOKEN_IN_LINK.exec(outboxText(app, mails[0]!))![1]!), 401, 'unauthorized');
    expectError(await invite('not an email'), 422, 'validation_error');
  });

  it('an existing account joins with its own password, which it keeps', async () => {
    const other = await makeInstitution(app, { name: 'Other School' });
    const { account } = await createAccount(app, other.id, 'admin', { email: 'shared@example.test', password: 'their own password' });
    const hash = account.password_hash;

    expectOk(await invite('shared@example.test'));
    const token = await tokenOfNewMail();
    const wrong = await accept(app.http, token, 'a guessed password');
    expectError(wrong, 401, 'unauthorized');
    expect(wrong.get('Set-Cookie')).toBeUndefined();
    const agent = supertest.agent(app.origin);
    const ok = await accept(agent, token, 'their own password');
    expectOk(ok);
    expect(ok.body.data).toMatchObject({ account: { id: account.id }, created_account: false, role: 'developer' });
    expect((await account.reload()).password_hash).toBe(hash);
    const session = await agent.get('/portal/api/session');
    expect(session.body.data.memberships.map((m: { institution: { id: string }; role: string }) => [m.institution.id, m.role])).toEqual([
      [other.id, 'admin'],
      [institutionId, 'developer'],
    ]);
  });

  it("suspending a developer revokes their keys (not others'), refuses their next request; reactivating restores access only", async () => {
    const dev = await inviteAndAccept('suspend-me@example.test');
    const devKeys = [await createKey(dev.agent, dev.csrf, 'dev a'), await createKey(dev.agent, dev.csrf, 'dev b')];
    const adminKey = await createKey(admin.agent, admin.csrf, 'admin key');
    expectOk(await dev.agent.get(keysPath()));

    const suspended = await admin.agent
      .post(devPath(`/${dev.accountId}/suspend`))
      .set('X-CSRF-Token', admin.csrf)
      .send({});
    expectOk(suspended);
    expect(suspended.body.data.member).toMatchObject({ account_id: dev.accountId, status: 'suspended', role: 'developer' });
    expect([...suspended.body.data.revoked_key_ids].sort()).toEqual(devKeys.map((key) => key.id).sort());
    for (const key of devKeys) expectError(await me(key.key), 401, 'invalid_api_key');
    expectOk(await me(adminKey.key));

    // The suspended developer's session no longer reaches the institution.
    expectError(await dev.agent.get(keysPath()), 404, 'not_found');
    expectError(
      await dev.agent
        .post(keysPath())
        .set('X-CSRF-Token', dev.csrf)
        .send({ name: 'x', scopes: ['students:read'] }),
      404,
      'not_found',
    );
    expect((await dev.agent.get('/portal/api/session')).body.data.memberships).toEqual([]);
    // Nor can they be invited again while suspended.
    expectError(await invite('suspend-me@example.test'), 409, 'conflict');

    const reactivated = await admin.agent.post(devPath(`/${dev.accountId}/reactivate`)).set('X-CSRF-Token', admin.csrf);
    expectOk(reactivated);
    expect(reactivated.body.data).toMatchObject({ account_id: dev.accountId, status: 'active' });
    expectOk(await dev.agent.get(keysPath()));
    for (const key of devKeys) expectError(await me(key.key), 401, 'invalid_api_key');
  });

  it('revoke_keys false suspends but keeps the keys working', async () => {
    const dev = await inviteAndAccept('keep-keys@example.test');
    const key = await createKey(dev.agent, dev.csrf, 'kept');
    const res = await admin.agent
      .post(devPath(`/${dev.accountId}/suspend`))
      .set('X-CSRF-Token', admin.csrf)
      .send({ revoke_keys: false });
    expectOk(res);
    expect(res.body.data).toMatchObject({ member: { status: 'suspended' }, revoked_key_ids: [] });
    expectOk(await me(key.key));
    expectError(await dev.agent.get(keysPath()), 404, 'not_found');
    expectError(
      await admin.agent
        .post(devPath(`/${dev.accountId}/suspend`))
        .set('X-CSRF-Token', admin.csrf)
        .send({ revoke_keys: 'no' }),
      422,
      'validation_error',
    );
  });

  it('a key a developer rolled is theirs: removing them revokes it, though an admin created the key it replaced', async () => {
    const dev = await inviteAndAccept('roller@example.test');
    const adminKey = await createKey(admin.agent, admin.csrf, 'shared key');
    const rolled = await dev.agent.post(`${keysPath()}/${adminKey.id}/roll`).set('X-CSRF-Token', dev.csrf).send({ overlap_hours: 1 });
    expectOk(rolled);
    const rolledKey = { id: rolled.body.data.key_id as string, key: rolled.body.data.key as string };
    expectOk(await me(rolledKey.key));

    const removed = await admin.agent.delete(devPath(`/${dev.accountId}`)).set('X-CSRF-Token', admin.csrf);
    expectOk(removed);
    expect(removed.body.data.revoked_key_ids).toEqual([rolledKey.id]);
    // The developer was shown the new key, so it stops; the admin's own key is not theirs and keeps its overlap.
    expectError(await me(rolledKey.key), 401, 'invalid_api_key');
    expectOk(await me(adminKey.key));
  });

  it('removing a developer ends the membership and revokes their keys', async () => {
    const dev = await inviteAndAccept('remove-me@example.test');
    const key = await createKey(dev.agent, dev.csrf, 'to go');
    const removed = await admin.agent.delete(devPath(`/${dev.accountId}`)).set('X-CSRF-Token', admin.csrf);
    expectOk(removed);
    expect(removed.body.data.revoked_key_ids).toEqual([key.id]);
    expectError(await me(key.key), 401, 'invalid_api_key');
    expect(await app.ctx.db.models.Membership.count({ where: { account_id: dev.accountId, institution_id: institutionId } })).toBe(0);
    expectError(await dev.agent.get(keysPath()), 404, 'not_found');
    expect((await admin.agent.get(devPath())).body.data.members.map((m: { account_id: string }) => m.account_id)).not.toContain(dev.accountId);
    expectError(await admin.agent.delete(devPath(`/${dev.accountId}`)).set('X-CSRF-Token', admin.csrf), 404, 'not_found');
    // Removed, the developer can be invited (and join) again.
    expectOk(await invite('remove-me@example.test'));
    const token = await tokenOfNewMail();
    expectOk(await accept(supertest.agent(app.origin), token));
  });

  it('an admin cannot suspend themself, nor remove themself while the last active admin; another admin can be suspended', async () => {
    expectError(
      await admin.agent
        .post(devPath(`/${admin.accountId}/suspend`))
        .set('X-CSRF-Token', admin.csrf)
        .send({}),
      409,
      'conflict',
    );
    expectError(await admin.agent.delete(devPath(`/${admin.accountId}`)).set('X-CSRF-Token', admin.csrf), 409, 'conflict');
    const { account: other } = await createAccount(app, institutionId, 'admin', { email: 'admin2@harbour.test', password: null });
    // Admins are members like developers (docs/decisions/accounts-and-passwords.md): one of two active admins can be suspended, and reactivated.
    expectOk(
      await admin.agent
        .post(devPath(`/${other.id}/suspend`))
        .set('X-CSRF-Token', admin.csrf)
        .send({}),
    );
    expectOk(await admin.agent.post(devPath(`/${other.id}/reactivate`)).set('X-CSRF-Token', admin.csrf));
    expectError(await admin.agent.post(devPath('/acc_nobody/suspend')).set('X-CSRF-Token', admin.csrf).send({}), 404, 'not_found');
    const active = await app.ctx.db.models.Membership.count({ where: { institution_id: institutionId, role: 'admin', status: 'active' } });
    expect(active).toBe(2);
  });

  it('refuses every write without the CSRF token and changes nothing', async () => {
    const invitations = await app.ctx.db.models.Invitation.count();
    const institutions = await app.ctx.db.models.Institution.count();
    expectError(await admin.agent.post(devPath('/invitations')).send({ email: 'csrf@example.test' }), 403, 'forbidden');
    expectError(await admin.agent.post(devPath('/acc_x/suspend')).send({}), 403, 'forbidden');
    expectError(await admin.agent.delete(devPath('/acc_x')), 403, 'forbidden');
    expectError(await admin.agent.post('/portal/api/operator/institutions').send({ name: 'No CSRF' }), 403, 'forbidden');
    expectError(await admin.agent.post(`/portal/api/operator/institutions/${institutionId}/suspend`), 403, 'forbidden');
    expect(await app.ctx.db.models.Invitation.count()).toBe(invitations);
    expect(await app.ctx.db.models.Institution.count()).toBe(institutions);
    expect((await app.ctx.db.models.Institution.findByPk(institutionId))!.status).toBe('approved');
    expectError(await app.http.get(devPath()), 401, 'unauthorized');
  });

  it("the operator lists, creates, approves and suspends institutions; a suspended institution's key is refused", async () => {
    const op = (path: string) => admin.agent.post(`/portal/api/operator/institutions${path}`).set('X-CSRF-Token', admin.csrf);
    const created = await op('').send({ name: 'Northside College' });
    expectOk(created);
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(/^inst_/), name: 'Northside College', status: 'pending' });
    const id = created.body.data.id as string;
    expectError(await op(`/${id}/suspend`), 409, 'conflict');
    expect((await op(`/${id}/approve`)).body.data.status).toBe('approved');
    const approvedAtOnce = await op('').send({ name: 'Eastside School', approve: true });
    expect(approvedAtOnce.body.data.status).toBe('approved');
    expectError(await op('').send({ name: '' }), 422, 'validation_error');
    expectError(await op('/inst_nope/approve'), 404, 'not_found');

    const list = await admin.agent.get('/portal/api/operator/institutions');
    expectOk(list);
    expect(list.body.data.map((row: { name: string }) => row.name)).toEqual(
      expect.arrayContaining([ADMIN.institution, 'Other School', 'Northside College', 'Eastside School']),
    );

    const keyholder = await makeInstitution(app, { name: 'Keyholder School' });
    const { key } = await createApiKey(keyholder.tenant, { name: 'k', scopes: ['students:read'] });
    expectOk(await me(key));
    const suspended = await op(`/${keyholder.id}/suspend`);
    expectOk(suspended);
    expect(suspended.body.data.status).toBe('suspended');
    expectError(await me(key), 401, 'invalid_api_key');
    expectOk(await op(`/${keyholder.id}/approve`));
    expectOk(await me(key));
  });
});
