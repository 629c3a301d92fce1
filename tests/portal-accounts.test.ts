// @tier integration
// @databases sqlite, postgres
/**
 * Accounts a school can live with (docs/decisions/accounts-and-passwords.md): changing your own password, admins inviting admins
 * with the copy-link fallback, the last admin kept, and "forgot password" by mail, over HTTP
 * against a real appliance (127.0.0.1, port 0, real SQLite file, a real SMTP server on 127.0.0.1).
 */
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_RESET_TTL_MS } from '../server/commands/accounts/password-resets.js';
import { hashToken } from '../server/crypto/tokens.js';
import { settledWrites } from '../server/db/sequelize.js';
import { clearSmtpSettings, setSmtpSettings } from '../server/mail/smtp-settings.js';
import { makeInstitution, startTestAppliance, type TestAppliance } from './helpers/appliance.js';
import { expectError, ok, setUpPortal, signIn, signedInMember, type Agent, type FirstRun } from './helpers/portal.js';
import { startSmtpServer } from './helpers/smtp.js';
import { waitFor } from './helpers/wait.js';

const OPERATOR = { institution: 'Lakeside School', admin_email: 'op@lakeside.test', admin_password: 'operator password 1' };
const INVITE_LINK = /\/#\/accept-invite\?token=([A-Za-z0-9]{40})$/;
const decodeQp = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

describe('Portal: accounts and invitations', () => {
  let app: TestAppliance;
  let operator: FirstRun;
  const servers: Array<{ close: () => Promise<void> }> = [];

  beforeAll(async () => {
    app = await startTestAppliance();
    operator = await setUpPortal(app, OPERATOR);
  });
  afterAll(async () => {
    await app.close();
    for (const server of servers) await server.close();
  });

  const team = (institutionId: string, suffix = '') => `/portal/api/institutions/${institutionId}/developers${suffix}`;
  const post = (who: { agent: Agent; csrf: string }, path: string, body: object = {}) => who.agent.post(path).set('X-CSRF-Token', who.csrf).send(body);
  const accept = (token: string, password: string) => {
    const agent = supertest.agent(app.origin);
    return agent
      .post('/portal/api/invitations/accept')
      .send({ token, password })
      .then((res) => ({ res, agent }));
  };

  it('changes your own password: the current one is asked, other sessions end, this one stays', async () => {
    const member = await signedInMember(app, operator.institutionId, 'developer', { password: 'first password 1' });
    const elsewhere = await signIn(app, member.email, 'first password 1');
    const change = (body: object) => post(member, '/portal/api/account/password', body);

    expectError(await change({ current_password: 'not it at all', new_password: 'second password 2' }), 422, 'validation_error');
    expectError(await change({ current_password: 'first password 1', new_password: 'short' }), 422, 'validation_error');
    expectError(await change({ current_password: 'first password 1', new_password: 'first password 1' }), 422, 'validation_error');
    expectError(
      await member.agent.post('/portal/api/account/password').send({ current_password: 'first password 1', new_password: 'x'.repeat(12) }),
      403,
      'forbidden',
    );
    expectError(await app.http.post('/portal/api/account/password').send({ current_password: 'a', new_password: 'b'.repeat(12) }), 401, 'unauthorized');
    // Nothing changed so far: the other browser is still signed in.
    ok(await elsewhere.agent.get('/portal/api/session'));

    expect(ok(await change({ current_password: 'first password 1', new_password: 'second password 2' }))).toEqual({ ended_sessions: 1 });
    ok(await member.agent.get('/portal/api/session'));
    expectError(await elsewhere.agent.get('/portal/api/session'), 401, 'unauthorized');
    expectError(await supertest(app.origin).post('/portal/api/login').send({ email: member.email, password: 'first password 1' }), 401, 'unauthorized');
    await signIn(app, member.email, 'second password 2');
  });

  it('wrong current passwords count like failed sign-ins: after 5, the change waits (429)', async () => {
    const member = await signedInMember(app, operator.institutionId, 'developer', { password: 'guarded password 1' });
    const change = (current: string) => post(member, '/portal/api/account/password', { current_password: current, new_password: 'guessed new password' });
    for (let attempt = 0; attempt < 5; attempt += 1) expectError(await change(`wrong guess ${attempt}`), 422, 'validation_error');
    const limited = await change('guarded password 1');
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.get('Retry-After'))).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/^Too many wrong passwords; try again in \d+ (seconds?|minutes)\.$/);
    // Refused before checking: the right password did not change anything.
    const account = await app.ctx.db.models.PortalAccount.findByPk(member.accountId);
    expect(account!.updated_at.getTime()).toBe(account!.created_at.getTime());
  });

  it('an admin invites an admin; without a mail server the answer carries the link (and lists never do)', async () => {
    const sent = ok(await post(operator, team(operator.institutionId, '/invitations'), { email: 'Second.Admin@Lakeside.test', role: 'admin' }));
    expect(sent).toMatchObject({ email: 'second.admin@lakeside.test', role: 'admin', status: 'pending', mail: { status: 'queued' }, mail_server: false });
    const token = INVITE_LINK.exec(sent.invite_url as string)![1]!;
    expect(sent.invite_url).toBe(`${await app.ctx.publicUrl()}/#/accept-invite?token=${token}`);
    const mail = await app.ctx.db.models.MailOutbox.findByPk(sent.mail.mail_id as string);
    expect(mail).toMatchObject({ kind: 'admin_invite', status: 'queued', institution_id: operator.institutionId });
    expect((await app.ctx.db.models.Invitation.findByPk(sent.invitation_id as string))!.token_hash).toBe(hashToken(token));

    const listed = ok(await operator.agent.get(team(operator.institutionId)));
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(listed.invitations).toContainEqual(expect.objectContaining({ invitation_id: sent.invitation_id, role: 'admin' }));

    // A resend answers a new link; the first one stops working.
    const resent = ok(await post(operator, team(operator.institutionId, `/invitations/${sent.invitation_id}/resend`)));
    const newToken = INVITE_LINK.exec(resent.invite_url as string)![1]!;
    expect(newToken).not.toBe(token);
    expectError((await accept(token, 'second admin pass')).res, 401, 'unauthorized');

    const { res, agent } = await accept(newToken, 'second admin pass');
    expect(ok(res)).toMatchObject({ institution_id: operator.institutionId, role: 'admin', created_account: true });
    // The new admin manages the team.
    ok(await agent.get(team(operator.institutionId)));
    expectError(await post(operator, team(operator.institutionId, '/invitations'), { email: 'x@lakeside.test', role: 'owner' }), 422, 'validation_error');
  });

  it('with a mail server the link stays in the mail: the answer says queued, without the link', async () => {
    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: 'noreply@lakeside.test' });
    try {
      const sent = ok(await post(operator, team(operator.institutionId, '/invitations'), { email: 'mailed.dev@lakeside.test' }));
      expect(sent).toMatchObject({ role: 'developer', mail_server: true, invite_url: null, mail: { status: 'queued' } });
      const message = await waitFor(async () => smtp.received.find((m) => m.to.includes('mailed.dev@lakeside.test')), 'the invitation mail');
      expect(decodeQp(message.raw)).toMatch(/#\/accept-invite\?token=[A-Za-z0-9]{40}/);
    } finally {
      await clearSmtpSettings(app.ctx.db);
    }
  });

  it('the last active admin can be neither removed nor suspended; with another admin, leaving works', async () => {
    const institution = await makeInstitution(app, { name: 'Hilltop' });
    const first = await signedInMember(app, institution.id, 'admin');
    const refused = await first.agent.delete(team(institution.id, `/${first.accountId}`)).set('X-CSRF-Token', first.csrf);
    expectError(refused, 409, 'conflict');
    expect(refused.body.message).toContain('last active admin of Hilltop');

    const second = await signedInMember(app, institution.id, 'admin');
    // The first suspends the second; now the first is the last active admin again.
    ok(await post(first, team(institution.id, `/${second.accountId}/suspend`)));
    expectError(await first.agent.delete(team(institution.id, `/${first.accountId}`)).set('X-CSRF-Token', first.csrf), 409, 'conflict');
    ok(await post(first, team(institution.id, `/${second.accountId}/reactivate`)));
    // Two active admins: the first may leave.
    ok(await first.agent.delete(team(institution.id, `/${first.accountId}`)).set('X-CSRF-Token', first.csrf));
    expectError(await first.agent.get(team(institution.id)), 404, 'not_found');
    // The second, now alone, cannot be suspended by anyone left (nobody else is an admin) nor leave.
    expectError(await second.agent.delete(team(institution.id, `/${second.accountId}`)).set('X-CSRF-Token', second.csrf), 409, 'conflict');
    expect(await app.ctx.db.models.Membership.count({ where: { institution_id: institution.id, role: 'admin', status: 'active' } })).toBe(1);
  });

  describe('forgot password', () => {
    it('without a mail server it is not offered: the request is a 409 and nothing is stored', async () => {
      expect(ok(await app.http.get('/portal/api/password-reset'))).toEqual({ available: false });
      expectError(await app.http.post('/portal/api/password-reset').send({ email: OPERATOR.admin_email }), 409, 'conflict');
      expect(await app.ctx.db.models.PasswordReset.count()).toBe(0);
    });

    it('mails a single-use link valid one hour; the same answer for unknown emails; sessions end', async () => {
      const smtp = await startSmtpServer();
      servers.push(smtp);
      await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: 'noreply@lakeside.test' });
      try {
        expect(ok(await app.http.get('/portal/api/password-reset'))).toEqual({ available: true });
        const member = await signedInMember(app, operator.institutionId, 'developer', { email: 'forgetful@lakeside.test' });

        const known = await app.http.post('/portal/api/password-reset').send({ email: 'Forgetful@Lakeside.test' });
        const unknown = await app.http.post('/portal/api/password-reset').send({ email: 'nobody@lakeside.test' });
        expect(ok(known)).toEqual({ requested: true });
        expect(ok(unknown)).toEqual(ok(known));
        // The answer does not wait for the link to be made, so its timing says nothing either.
        const rows = await waitFor(async () => {
          const made = await app.ctx.db.models.PasswordReset.findAll({ where: { account_id: member.accountId } });
          return made.length > 0 ? made : null;
        }, 'the reset link');
        expect(rows).toHaveLength(1);
        expect(rows[0]!.expires_at.getTime() - rows[0]!.created_at.getTime()).toBe(PASSWORD_RESET_TTL_MS);

        const message = await waitFor(async () => smtp.received.find((m) => m.to.includes('forgetful@lakeside.test')), 'the reset mail');
        expect(smtp.received.some((m) => m.to.includes('nobody@lakeside.test'))).toBe(false);
        const token = /#\/reset-password\?token=([A-Za-z0-9]{40})/.exec(decodeQp(message.raw))![1]!;
        expect(rows[0]!.token_hash).toBe(hashToken(token));
        // A second request within a minute sends nothing more (the same answer); nor does an unknown one.
        ok(await app.http.post('/portal/api/password-reset').send({ email: 'forgetful@lakeside.test' }));
        await settledWrites(app.ctx.db.sequelize);
        expect(await app.ctx.db.models.PasswordReset.count({ where: { account_id: member.accountId } })).toBe(1);
        expect(await app.ctx.db.models.PasswordReset.count()).toBe(1);

        const complete = (body: object) => app.http.post('/portal/api/password-reset/complete').send(body);
        expectError(await complete({ token, password: 'short' }), 422, 'validation_error');
        expect(ok(await complete({ token, password: 'brand new password' }))).toEqual({ email: 'forgetful@lakeside.test' });
        expectError(await member.agent.get('/portal/api/session'), 401, 'unauthorized');
        await signIn(app, 'forgetful@lakeside.test', 'brand new password');
        // Single use; unknown and malformed links answer the same.
        expectError(await complete({ token, password: 'another new password' }), 401, 'unauthorized');
        expectError(await complete({ token: 'A'.repeat(40), password: 'another new password' }), 401, 'unauthorized');
        expectError(await complete({ token: 'bad', password: 'another new password' }), 401, 'unauthorized');

        // An expired link is refused.
        await app.ctx.db.models.PasswordReset.update({ created_at: new Date(Date.now() - 120_000) }, { where: { account_id: member.accountId } });
        ok(await app.http.post('/portal/api/password-reset').send({ email: 'forgetful@lakeside.test' }));
        const second = await waitFor(async () => smtp.received.filter((m) => m.to.includes('forgetful@lakeside.test'))[1], 'the second reset mail');
        const secondToken = /#\/reset-password\?token=([A-Za-z0-9]{40})/.exec(decodeQp(second.raw))![1]!;
        await app.ctx.db.models.PasswordReset.update({ expires_at: new Date(Date.now() - 1) }, { where: { token_hash: hashToken(secondToken) } });
        expectError(await complete({ token: secondToken, password: 'another new password' }), 401, 'unauthorized');
      } finally {
        await clearSmtpSettings(app.ctx.db);
      }
    });
  });
});

describe('"forgot password" is throttled per address', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a flood of requests from one address is refused with Retry-After, in words, not answered (or mailed) one by one', async () => {
    const answers = [];
    // Bounded: one request more than the address may make before it waits.
    for (let i = 0; i < 31; i += 1) answers.push(await app.http.post('/portal/api/password-reset').send({ email: `person${i}@lakeside.test` }));
    // Without a mail server the first thirty are the usual 409; the next is refused before anything is looked up.
    expect(answers.slice(0, 30).every((res) => res.status === 409)).toBe(true);
    const refused = answers[30]!;
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.message).toMatch(/try again in \d+ seconds/);
  });
});
