// @tier integration
// @databases sqlite, postgres
/**
 * The operator and accounts (docs/decisions/accounts-and-passwords.md): an institution made by the operator gets its admin through
 * an invitation from the operator's portal; the operator lists accounts and resets another's
 * password. Over HTTP against a real appliance (127.0.0.1, port 0, real SQLite file).
 */
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { createAccount, expectError, ok, setUpPortal, signIn, signedInMember, type FirstRun } from '../../../tests/helpers/portal.js';

const OPERATOR = { institution: 'First School', admin_email: 'op@first.test', admin_password: 'operator password 1' };
const INVITE_LINK = /\/#\/accept-invite\?token=([A-Za-z0-9]{40})$/;

describe('Portal: the operator gives institutions their admins and resets passwords', () => {
  let app: TestAppliance;
  let operator: FirstRun;

  beforeAll(async () => {
    app = await startTestAppliance();
    operator = await setUpPortal(app, OPERATOR);
  });
  afterAll(() => app.close());

  const post = (path: string, body: object = {}) => operator.agent.post(`/portal/api${path}`).set('X-CSRF-Token', operator.csrf).send(body);

  it('invites the admin of a new institution; the link creates the account, who then opens it', async () => {
    const created = ok(await post('/operator/institutions', { name: 'Second School', approve: true }));
    const before = ok(await operator.agent.get(`/portal/api/operator/institutions/${created.id}/admins`));
    expect(before).toMatchObject({ institution: { id: created.id, name: 'Second School' }, admins: [], invitations: [] });

    const sent = ok(await post(`/operator/institutions/${created.id}/admins/invitations`, { email: 'Head@Second.test' }));
    expect(sent).toMatchObject({ email: 'head@second.test', role: 'admin', mail_server: false, mail: { status: 'queued' } });
    const token = INVITE_LINK.exec(sent.invite_url as string)![1]!;
    const pending = ok(await operator.agent.get(`/portal/api/operator/institutions/${created.id}/admins`));
    expect(pending.invitations).toEqual([expect.objectContaining({ invitation_id: sent.invitation_id, role: 'admin' })]);
    expect(JSON.stringify(pending)).not.toContain(token);

    const agent = supertest.agent(app.origin);
    const accepted = ok(await agent.post('/portal/api/invitations/accept').send({ token, password: 'head admin password' }));
    expect(accepted).toMatchObject({ institution_id: created.id, role: 'admin', created_account: true });
    ok(await agent.get(`/portal/api/institutions/${created.id}/developers`));
    const after = ok(await operator.agent.get(`/portal/api/operator/institutions/${created.id}/admins`));
    expect(after.admins).toEqual([expect.objectContaining({ email: 'head@second.test', role: 'admin', status: 'active' })]);
    expect(after.invitations).toEqual([]);

    // The change is in the operator's audit log and in the institution's.
    const audit = await app.ctx.db.models.PortalAuditEntry.findAll({ where: { institution_id: created.id } });
    expect(audit.map((row) => row.action)).toContain('POST /operator/institutions/{id}/admins/invitations');

    expectError(await post(`/operator/institutions/${created.id}/admins/invitations`, { email: 'head@second.test' }), 409, 'already_added');
    expectError(await post('/operator/institutions/inst_nothing/admins/invitations', { email: 'x@second.test' }), 404, 'not_found');
    expectError(await operator.agent.get('/portal/api/operator/institutions/inst_nothing/admins'), 404, 'not_found');
    expectError(await post(`/operator/institutions/${created.id}/admins/invitations`, { email: 'not an email' }), 422, 'validation_error');
  });

  it('an existing account joins as admin with its own password, which it keeps', async () => {
    const created = ok(await post('/operator/institutions', { name: 'Third School', approve: true }));
    const { account } = await createAccount(app, operator.institutionId, 'developer', { email: 'known@first.test', password: 'known password 1' });
    const sent = ok(await post(`/operator/institutions/${created.id}/admins/invitations`, { email: 'known@first.test' }));
    const token = INVITE_LINK.exec(sent.invite_url as string)![1]!;
    expectError(await app.http.post('/portal/api/invitations/accept').send({ token, password: 'a guessed password' }), 401, 'unauthorized');
    const accepted = ok(await supertest.agent(app.origin).post('/portal/api/invitations/accept').send({ token, password: 'known password 1' }));
    expect(accepted).toMatchObject({ account: { id: account.id }, role: 'admin', created_account: false });
  });

  it('only the operator may: an admin gets 403', async () => {
    const admin = await signedInMember(app, operator.institutionId, 'admin');
    expectError(await admin.agent.get(`/portal/api/operator/institutions/${operator.institutionId}/admins`), 403, 'forbidden');
    expectError(
      await admin.agent
        .post(`/portal/api/operator/institutions/${operator.institutionId}/admins/invitations`)
        .set('X-CSRF-Token', admin.csrf)
        .send({ email: 'a@b.test' }),
      403,
      'forbidden',
    );
    expectError(await admin.agent.get('/portal/api/operator/accounts'), 403, 'forbidden');
    expectError(
      await admin.agent.post(`/portal/api/operator/accounts/${operator.accountId}/password`).set('X-CSRF-Token', admin.csrf).send({ password: 'taken over!!' }),
      403,
      'forbidden',
    );
  });

  it("lists accounts with their roles and resets another account's password, ending its sessions", async () => {
    const member = await signedInMember(app, operator.institutionId, 'developer', { email: 'locked.out@first.test' });
    const listed = ok(await operator.agent.get('/portal/api/operator/accounts'));
    expect(listed.items).toContainEqual({
      account_id: operator.accountId,
      email: OPERATOR.admin_email,
      role: 'operator',
      institution_id: null,
      status: 'active',
    });
    expect(listed.items).toContainEqual({
      account_id: operator.accountId,
      email: OPERATOR.admin_email,
      role: 'admin',
      institution_id: operator.institutionId,
      status: 'active',
    });
    expect(listed.items).toContainEqual(expect.objectContaining({ email: 'locked.out@first.test', role: 'developer' }));
    const only = ok(await operator.agent.get('/portal/api/operator/accounts').query({ institution: operator.institutionId }));
    expect(only.items.every((line: { institution_id: string }) => line.institution_id === operator.institutionId)).toBe(true);
    expectError(await operator.agent.get('/portal/api/operator/accounts').query({ institution: 'inst_nothing' }), 404, 'not_found');

    expectError(await post(`/operator/accounts/${member.accountId}/password`, { password: 'short' }), 422, 'validation_error');
    expectError(await post(`/operator/accounts/acc_nothing/password`, { password: 'long enough pass' }), 404, 'not_found');
    expectError(await post(`/operator/accounts/${operator.accountId}/password`, { password: 'long enough pass' }), 409, 'conflict');
    ok(await member.agent.get('/portal/api/session'));

    expect(ok(await post(`/operator/accounts/${member.accountId}/password`, { password: 'reset by operator' }))).toEqual({
      account_id: member.accountId,
      email: 'locked.out@first.test',
    });
    expectError(await member.agent.get('/portal/api/session'), 401, 'unauthorized');
    await signIn(app, 'locked.out@first.test', 'reset by operator');
  });
});
