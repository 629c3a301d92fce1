// @tier integration
// @databases sqlite, postgres
/**
 * Portal operator pages (docs/decisions/portal-settings-and-operator-pages.md): institutions, the mail server, coupon batches, merit allowances
 * and curricula, on the CLI's commands, over HTTP against a real appliance (127.0.0.1, port 0,
 * real SQLite file). The test message goes to a real SMTP server on 127.0.0.1; nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tenant } from '../../db/tenant.js';
import { makeKey, makeSchool, requestsAs, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { closedPort } from '../../../tests/helpers/net.js';
import { expectError, expectOk, portalRequests, setUpPortal, signedInMember, type FirstRun } from '../../../tests/helpers/portal.js';
import { startSmtpServer } from '../../../tests/helpers/smtp.js';

const OPERATOR = { institution: 'Northgate School', admin_email: 'operator@northgate.test', admin_password: 'correct horse battery' };
const FROM = 'Northgate <noreply@northgate.example>';
const SMTP_PASSWORD = 'Sup3r-Secret-SMTP-pass';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('Portal: the operator', () => {
  let app: TestAppliance;
  let operator: FirstRun;
  const v1 = requestsAs(() => app);

  beforeAll(async () => {
    app = await startTestAppliance();
    operator = await setUpPortal(app, OPERATOR);
    expect(operator.session.account.is_operator).toBe(true);
  });
  afterAll(() => app.close());

  const op = portalRequests(
    () => operator,
    () => '/portal/api/operator',
  );

  const school = (name: string) => makeSchool(app, { name });

  it('creates, approves and suspends institutions; suspension stops their keys at once and approval restores them', async () => {
    const created = await op.post('/institutions', { name: 'Pinewood High' });
    expectOk(created);
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(/^inst_/), name: 'Pinewood High', status: 'pending' });
    const id = created.body.data.id as string;
    const key = await makeKey(app, { id, name: 'Pinewood High', tenant: new Tenant(app.ctx.db, id) });
    expectError(await v1.get(key, '/me'), 403, 'institution_not_approved');

    // A pending institution cannot be suspended.
    expectError(await op.post(`/institutions/${id}/suspend`), 409, 'conflict');
    const approved = await op.post(`/institutions/${id}/approve`);
    expectOk(approved);
    expect(approved.body.data.status).toBe('approved');
    expectOk(await v1.get(key, '/me'));

    const suspended = await op.post(`/institutions/${id}/suspend`);
    expectOk(suspended);
    expect(suspended.body.data.status).toBe('suspended');
    expectError(await v1.get(key, '/me'), 401, 'invalid_api_key');
    expectOk(await op.post(`/institutions/${id}/approve`));
    expectOk(await v1.get(key, '/me'));

    const listed = await op.get('/institutions');
    expectOk(listed);
    expect(listed.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'Pinewood High', status: 'approved' })]));

    expectError(await op.post('/institutions', { name: '' }), 422, 'validation_error');
    expectError(await op.post('/institutions/inst_doesnotexist/approve'), 404, 'not_found');
  });

  it('approves and rejects coupon batches requested through the API, as `coupons approve|reject` does', async () => {
    const { inst, key } = await school('Maple Academy');
    const request = (name: string) => v1.post(key, '/coupons/batches', { name, total_coupons: 3, value_cents: 250, expiry_date: inDays(30) });
    const first = await request('Science fair');
    const second = await request('Chess club');
    expectOk(first);
    expectOk(second);
    const firstId = first.body.data.id as string;
    const secondId = second.body.data.id as string;

    const pending = await op.get('/coupon-batches', { status: 'pending' });
    expectOk(pending);
    const mine = pending.body.data.items.filter((item: { institution: { id: string } }) => item.institution.id === inst.id);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ status: 'pending', institution: { id: inst.id, name: 'Maple Academy' }, decided_at: null, total_coupons: 3 });

    const approved = await op.post(`/coupon-batches/${firstId}/approve`);
    expectOk(approved);
    expect(approved.body.data).toMatchObject({
      id: firstId,
      status: 'approved',
      institution: { id: inst.id, name: 'Maple Academy' },
      decided_at: expect.any(String),
    });
    const detail = await v1.get(key, `/coupons/batches/${firstId}`);
    expect(detail.body.data.status).toBe('approved');
    expect(detail.body.data.codes).toHaveLength(3);

    const rejected = await op.post(`/coupon-batches/${secondId}/reject`);
    expectOk(rejected);
    expect(rejected.body.data.status).toBe('rejected');
    expect((await v1.get(key, `/coupons/batches/${secondId}`)).body.data).not.toHaveProperty('codes');

    // Decided once: both ways are 409 afterwards.
    expectError(await op.post(`/coupon-batches/${firstId}/reject`), 409, 'conflict');
    expectError(await op.post(`/coupon-batches/${secondId}/approve`), 409, 'conflict');
    expectError(await op.post('/coupon-batches/cpb_doesnotexist/approve'), 404, 'not_found');

    // Pending ones come first in the unfiltered list.
    expectOk(await request('Library week'));
    const all = await op.get('/coupon-batches');
    expectOk(all);
    expect(all.body.data.items[0]).toMatchObject({ name: 'Library week', status: 'pending' });
    expect(all.body.data.total).toBe(3);
    const onlyRejected = await op.get('/coupon-batches', { status: 'rejected' });
    expect(onlyRejected.body.data.items.map((item: { id: string }) => item.id)).toEqual([secondId]);
    expectError(await op.get('/coupon-batches', { status: 'lost' }), 422, 'validation_error');
  });

  it('sets merit allowances that the API then reports, never below what was credited', async () => {
    const { inst, key } = await school('Oak Grove');
    const listed = await op.get('/allowances');
    expectOk(listed);
    expect(listed.body.data).toEqual(
      expect.arrayContaining([{ institution: expect.objectContaining({ id: inst.id, name: 'Oak Grove' }), total_cents: 0, used_cents: 0, remaining_cents: 0 }]),
    );

    const set = await op.put(`/allowances/${inst.id}`, { total_cents: 50_000 });
    expectOk(set);
    expect(set.body.data).toMatchObject({ institution: { id: inst.id }, total_cents: 50_000, used_cents: 0, remaining_cents: 50_000 });
    expect((await v1.get(key, '/merits/allowance')).body.data).toEqual({ total_cents: 50_000, used_cents: 0, remaining_cents: 50_000 });

    // Credit some of it, then try to set the total below what was used.
    const student = await v1.post(key, '/students', { full_name: 'Ada Lovelace' });
    expectOk(student);
    expectOk(await v1.post(key, '/merits/credits', { email: student.body.data.login_email, amount_cents: 20_000, reason: 'Science fair', ref: 'op-test-1' }));
    expectError(await op.put(`/allowances/${inst.id}`, { total_cents: 10_000 }), 409, 'conflict');
    const after = (await op.get('/allowances')).body.data.find((row: { institution: { id: string } }) => row.institution.id === inst.id);
    expect(after).toMatchObject({ total_cents: 50_000, used_cents: 20_000, remaining_cents: 30_000 });

    expectError(await op.put(`/allowances/${inst.id}`, { total_cents: -1 }), 422, 'validation_error');
    expectError(await op.put(`/allowances/${inst.id}`, { total_cents: 1.5 }), 422, 'validation_error');
    expectError(await op.put(`/allowances/${inst.id}`, { cents: 100 }), 422, 'validation_error');
    expectError(await op.put('/allowances/inst_doesnotexist', { total_cents: 100 }), 404, 'not_found');
  });

  it('creates and publishes curricula; only published ones reach the API', async () => {
    const { inst, key } = await school('Birch College');
    const visible = async () => ((await v1.get(key, '/alpha/curricula', { limit: 200 })).body.data.items as Array<{ id: string }>).map((item) => item.id);

    const shared = await op.post('/curricula', { name: 'Fractions', description: 'Halves to mixed numbers', concepts: ['Halves', 'Quarters'] });
    expectOk(shared);
    expect(shared.body.data).toMatchObject({
      name: 'Fractions',
      status: 'draft',
      scope: 'shared',
      institution: null,
      concepts: [
        { id: expect.any(String), name: 'Halves' },
        { id: expect.any(String), name: 'Quarters' },
      ],
    });
    const own = await op.post('/curricula', { name: 'Local history', concepts: ['Founding'], institution_id: inst.id, publish: true });
    expectOk(own);
    expect(own.body.data).toMatchObject({ status: 'published', scope: 'institution', institution: { id: inst.id, name: 'Birch College' } });

    expect(await visible()).toEqual([own.body.data.id]);
    const drafts = await op.get('/curricula', { status: 'draft' });
    expectOk(drafts);
    expect(drafts.body.data.map((item: { id: string }) => item.id)).toEqual([shared.body.data.id]);

    const published = await op.post(`/curricula/${shared.body.data.id}/publish`);
    expectOk(published);
    expect(published.body.data).toMatchObject({ id: shared.body.data.id, status: 'published', concepts: [{ name: 'Halves' }, { name: 'Quarters' }] });
    expect((await visible()).sort()).toEqual([own.body.data.id, shared.body.data.id].sort());
    expect((await op.get('/curricula')).body.data).toHaveLength(2);

    expectError(await op.post('/curricula', { name: 'Empty', concepts: [] }), 422, 'validation_error');
    expectError(await op.post('/curricula', { name: 'Twice', concepts: ['A', 'a'] }), 422, 'validation_error');
    expectError(await op.post('/curricula', { name: 'Nowhere', concepts: ['A'], institution_id: 'inst_doesnotexist' }), 404, 'not_found');
    expectError(await op.post('/curricula/cur_doesnotexist/publish'), 404, 'not_found');
  });

  describe('the mail server', () => {
    it('saves, shows and clears the settings; the password is never answered', async () => {
      const empty = await op.get('/smtp');
      expectOk(empty);
      expect(empty.body.data).toBeNull();

      const saved = await op.put('/smtp', { host: '127.0.0.1', port: 2525, user: 'mailer', password: SMTP_PASSWORD, from: FROM });
      expectOk(saved);
      expect(saved.body.data).toEqual({
        host: '127.0.0.1',
        port: 2525,
        secure: false,
        user: 'mailer',
        from: FROM,
        password_set: true,
        updated_at: expect.any(String),
      });
      const shown = await op.get('/smtp');
      expect(shown.body.data).toEqual(saved.body.data);
      expect(JSON.stringify(shown.body)).not.toContain(SMTP_PASSWORD);

      // Leaving the password out keeps it for the same user (the form's blank field).
      const kept = await op.put('/smtp', { host: '127.0.0.1', port: 2526, user: 'mailer', from: FROM });
      expect(kept.body.data).toMatchObject({ port: 2526, password_set: true });
      const removed = await op.put('/smtp', { host: '127.0.0.1', port: 2526, user: 'mailer', password: null, from: FROM });
      expect(removed.body.data).toMatchObject({ password_set: false });

      for (const bad of [
        { host: 'bad host', port: 25, from: FROM },
        { host: '127.0.0.1', port: 70_000, from: FROM },
        { host: '127.0.0.1', port: 25, from: 'not an address' },
        { host: '127.0.0.1', port: 25, password: 'x', from: FROM },
        { host: '127.0.0.1', port: 25, from: FROM, extra: true },
      ]) {
        expectError(await op.put('/smtp', bad), 422, 'validation_error');
      }
      expect((await op.get('/smtp')).body.data).toMatchObject({ port: 2526 });

      const cleared = await op.del('/smtp');
      expectOk(cleared);
      expect(cleared.body.data).toBeNull();
      expect((await op.get('/smtp')).body.data).toBeNull();
      expect(app.logText()).not.toContain(SMTP_PASSWORD);
    });

    it('sends a test message through the saved server, and says why when it cannot', async () => {
      expectError(await op.post('/smtp/test', { to: 'me@northgate.example' }), 409, 'conflict');

      const smtp = await startSmtpServer();
      try {
        expectOk(await op.put('/smtp', { host: '127.0.0.1', port: smtp.port, from: FROM }));
        const sent = await op.post('/smtp/test', { to: 'Me@Northgate.example' });
        expectOk(sent);
        expect(sent.body.data).toEqual({ mail_id: expect.stringMatching(/^mail_/), to: 'm•••@northgate.example', status: 'sent', error: null });
        const message = smtp.received.find((mail) => mail.to.includes('me@northgate.example'));
        expect(message).toBeDefined();
        expect(message!.raw).toMatch(/^Subject: CampusBridge test message/im);
        expect(message!.raw).toMatch(/^From: Northgate <noreply@northgate\.example>/im);
      } finally {
        await smtp.close();
      }

      expectOk(await op.put('/smtp', { host: '127.0.0.1', port: await closedPort(), from: FROM }));
      const failed = await op.post('/smtp/test', { to: 'me@northgate.example' });
      expectOk(failed);
      expect(failed.body.data).toMatchObject({ status: 'failed', error: expect.stringMatching(/ECONNREFUSED/) });
      expect(failed.body.data.error).not.toContain('@');
      // Not retried behind the operator's back.
      const row = await app.ctx.db.models.MailOutbox.findByPk(failed.body.data.mail_id);
      expect(row).toMatchObject({ status: 'failed', attempts: 1, institution_id: null });

      expectError(await op.post('/smtp/test', { to: 'not an address' }), 422, 'validation_error');
      expectOk(await op.del('/smtp'));
    });
  });

  it('refuses every operator route to an admin who is not the operator (403) and to no session (401)', async () => {
    const { inst } = await school('Cedar School');
    const { agent, csrf } = await signedInMember(app, inst.id, 'admin', { email: 'cedar.admin@cedar.test' });
    // Admin of their own institution all the same.
    expectOk(await agent.get(`/portal/api/institutions/${inst.id}/institution`));

    const smtpBefore = (await op.get('/smtp')).body.data;
    const calls: Array<[method: 'get' | 'post' | 'put' | 'delete', path: string, body?: object]> = [
      ['get', '/institutions'],
      ['post', '/institutions', { name: 'Sneaky' }],
      ['post', `/institutions/${inst.id}/approve`],
      ['post', `/institutions/${inst.id}/suspend`],
      ['get', '/smtp'],
      ['put', '/smtp', { host: '127.0.0.1', port: 25, from: FROM }],
      ['delete', '/smtp'],
      ['post', '/smtp/test', { to: 'x@cedar.test' }],
      ['get', '/coupon-batches'],
      ['post', '/coupon-batches/cpb_x/approve'],
      ['post', '/coupon-batches/cpb_x/reject'],
      ['get', '/allowances'],
      ['put', `/allowances/${inst.id}`, { total_cents: 100 }],
      ['get', '/curricula'],
      ['post', '/curricula', { name: 'Sneaky', concepts: ['A'] }],
      ['post', '/curricula/cur_x/publish'],
    ];
    for (const [method, path, body] of calls) {
      const url = `/portal/api/operator${path}`;
      let request = agent[method](url);
      if (method !== 'get') request = request.set('X-CSRF-Token', csrf);
      const res = body ? await request.send(body) : await request;
      expectError(res, 403, 'forbidden');
      const anonymous = app.http[method](url);
      expectError(body ? await anonymous.send(body) : await anonymous, 401, 'unauthorized');
    }
    // Nothing changed.
    expect((await op.get('/institutions')).body.data.some((row: { name: string }) => row.name === 'Sneaky')).toBe(false);
    expect((await op.get('/allowances')).body.data.find((row: { institution: { id: string } }) => row.institution.id === inst.id)).toMatchObject({
      total_cents: 0,
    });
    expect((await op.get('/smtp')).body.data).toEqual(smtpBefore);
  });
});
