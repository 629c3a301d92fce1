// @tier integration
// @databases sqlite, postgres
/**
 * The portal's audit log (docs/decisions/portal-sign-in-and-roles.md): every change made in the portal is recorded with who, what,
 * which ids and from where; reads and refused changes are not; secrets never are.
 */
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, startTestAppliance, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { setUpPortal, signedInMember, type Agent, type FirstRun } from '../../../tests/helpers/portal.js';

const ADMIN = { institution: 'Audit Academy', admin_email: 'admin@audit.test', admin_password: 'correct horse battery' };

interface Entry {
  id: string;
  institution_id: string | null;
  occurred_at: string;
  actor_email: string;
  action: string;
  description: string;
  target: Record<string, string>;
  ip: string | null;
  request_id: string;
}

describe('Portal: audit log', () => {
  let app: TestAppliance;
  let admin: FirstRun;
  let institutionId: string;

  const auditLog = async (agent: Agent, query = '') => {
    const res = await agent.get(`/portal/api/institutions/${institutionId}/audit-log${query}`);
    expect(res.status).toBe(200);
    return res.body.data as { items: Entry[]; total: number; page: number; totalPages: number };
  };

  beforeAll(async () => {
    app = await startTestAppliance();
    admin = await setUpPortal(app, ADMIN);
    institutionId = admin.institutionId;
  });
  afterAll(() => app.close());

  it('records a created key with its id, never the key itself, and a revocation', async () => {
    const created = await admin.agent
      .post(`/portal/api/institutions/${institutionId}/keys`)
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'Moodle', scopes: ['students:read'], rate_limit_per_min: 100 });
    expect(created.status).toBe(200);
    const { key_id: keyId, key } = created.body.data as { key_id: string; key: string };
    const revoked = await admin.agent.post(`/portal/api/institutions/${institutionId}/keys/${keyId}/revoke`).set('X-CSRF-Token', admin.csrf);
    expect(revoked.status).toBe(200);

    const log = await auditLog(admin.agent);
    const [revocation, creation] = log.items;
    expect(revocation).toMatchObject({
      institution_id: institutionId,
      actor_email: ADMIN.admin_email,
      action: 'POST /institutions/{id}/keys/{keyId}/revoke',
      description: 'Revoke a key',
      target: { id: institutionId, keyId },
    });
    expect(creation).toMatchObject({ action: 'POST /institutions/{id}/keys', description: 'Create an API key', target: { id: institutionId, key_id: keyId } });
    expect(creation!.ip).toBeTruthy();
    expect(creation!.request_id).toBeTruthy();
    expect(new Date(revocation!.occurred_at).getTime()).toBeGreaterThanOrEqual(new Date(creation!.occurred_at).getTime());

    const rows = await app.ctx.db.models.PortalAuditEntry.findAll();
    expect(JSON.stringify(rows.map((row) => row.toJSON()))).not.toContain(key);
  });

  it('does not record reads or refused changes', async () => {
    const before = (await auditLog(admin.agent)).total;
    await admin.agent.get(`/portal/api/institutions/${institutionId}/keys`).expect(200);
    const refused = await admin.agent
      .post(`/portal/api/institutions/${institutionId}/keys`)
      .set('X-CSRF-Token', admin.csrf)
      .send({ name: 'Too fast', scopes: ['students:read'], rate_limit_per_min: 999_999 });
    expect(refused.status).toBe(422);
    const noCsrf = await admin.agent.post(`/portal/api/institutions/${institutionId}/keys`).send({ name: 'x', scopes: ['students:read'] });
    expect(noCsrf.status).toBe(403);
    expect((await auditLog(admin.agent)).total).toBe(before);
  });

  it('pages newest first', async () => {
    for (const name of ['a', 'b', 'c']) {
      await admin.agent
        .post(`/portal/api/institutions/${institutionId}/keys`)
        .set('X-CSRF-Token', admin.csrf)
        .send({ name, scopes: ['faculty:read'] })
        .expect(200);
    }
    const first = await auditLog(admin.agent, '?limit=2&page=1');
    const second = await auditLog(admin.agent, '?limit=2&page=2');
    expect(first.items).toHaveLength(2);
    expect(first.totalPages).toBe(Math.ceil(first.total / 2));
    const times = [...first.items, ...second.items].map((entry) => entry.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set([...first.items, ...second.items].map((entry) => entry.id)).size).toBe(4);
    const badQuery = await admin.agent.get(`/portal/api/institutions/${institutionId}/audit-log?limit=0`);
    expect(badQuery.status).toBe(422);
  });

  it('is for admins of the institution only; the operator sees every institution', async () => {
    const developer = await signedInMember(app, institutionId, 'developer', { email: 'dev@audit.test' });
    const refused = await developer.agent.get(`/portal/api/institutions/${institutionId}/audit-log`);
    expect(refused.status).toBe(403);

    const other = await makeInstitution(app, { name: 'Elsewhere College' });
    const otherAdmin = await signedInMember(app, other.id, 'admin', { email: 'admin@elsewhere.test' });
    await otherAdmin.agent
      .post(`/portal/api/institutions/${other.id}/keys`)
      .set('X-CSRF-Token', otherAdmin.csrf)
      .send({ name: 'theirs', scopes: ['groups:read'] })
      .expect(200);
    expect((await otherAdmin.agent.get(`/portal/api/institutions/${institutionId}/audit-log`)).status).toBe(404);
    const ours = await auditLog(admin.agent, '?limit=200');
    expect(ours.items.every((entry) => entry.institution_id === institutionId)).toBe(true);
    expect(ours.items.some((entry) => entry.actor_email === 'admin@elsewhere.test')).toBe(false);

    // The setup account is the operator: it sees both institutions, and can narrow to one.
    const everything = await admin.agent.get('/portal/api/operator/audit-log?limit=200');
    expect(everything.status).toBe(200);
    const institutions = new Set((everything.body.data.items as Entry[]).map((entry) => entry.institution_id));
    expect(institutions).toEqual(new Set([institutionId, other.id]));
    const narrowed = await admin.agent.get(`/portal/api/operator/audit-log?institution_id=${other.id}`);
    expect((narrowed.body.data.items as Entry[]).map((entry) => entry.actor_email)).toEqual(['admin@elsewhere.test']);
    expect((await otherAdmin.agent.get('/portal/api/operator/audit-log')).status).toBe(403);
  });

  it("records operator actions on an institution in that institution's log", async () => {
    const pending = await makeInstitution(app, { name: 'Pending School', status: 'pending' });
    await admin.agent.post(`/portal/api/operator/institutions/${pending.id}/approve`).set('X-CSRF-Token', admin.csrf).expect(200);
    const entries = await app.ctx.db.models.PortalAuditEntry.findAll({ where: { institution_id: pending.id } });
    expect(entries.map((entry) => entry.action)).toEqual(['POST /operator/institutions/{id}/approve']);

    // An action whose answer names the institution (its allowance) is filed under it too.
    await admin.agent.put(`/portal/api/operator/allowances/${pending.id}`).set('X-CSRF-Token', admin.csrf).send({ total_cents: 5000 }).expect(200);
    const after = await app.ctx.db.models.PortalAuditEntry.findAll({ where: { institution_id: pending.id }, order: [['created_at', 'ASC']] });
    expect(after.map((entry) => entry.action)).toEqual(['POST /operator/institutions/{id}/approve', 'PUT /operator/allowances/{id}']);
  });

  it('lists the 25 scopes for the scope picker through GET /scopes, to any member', async () => {
    const res = await admin.agent.get(`/portal/api/institutions/${institutionId}/scopes`);
    expect(res.status).toBe(200);
    expect(res.body.data.items).toHaveLength(25);
    expect(res.body.data.items[0]).toEqual({ scope: 'students:read', description: expect.stringContaining('students'), admin_only: false });
    expect((await supertest(app.origin).get(`/portal/api/institutions/${institutionId}/scopes`)).status).toBe(401);
  });
});
