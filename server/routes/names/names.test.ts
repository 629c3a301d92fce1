// @tier integration
// @databases sqlite: one `IN` lookup per kind of id through the tenant finders, which the route suites prove on both databases
// Names instead of ids in the portal's tables and audit logs (docs/decisions/names-not-ids.md): one call per page gives
// the names of the page's ids, of this institution only, and only what the role may read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurriculum } from '../../commands/alpha/curricula.js';
import { createBatch } from '../../commands/wallet/coupons.js';
import { seedDemo, type DemoSeed } from '../../commands/demo/seed.js';
import { createGroup } from '../../commands/people/groups.js';
import { inviteMember } from '../../commands/accounts/invitations.js';
import { NAMED_KINDS, type NamedKind } from '../../commands/people/names.js';
import { createPerson } from '../../commands/people/people.js';
import { Tenant } from '../../db/tenant.js';
import { roleScopes } from '../../policies/scopes.js';
import { nameableKinds } from './names.js';
import { MAX_NAMED_IDS } from './schema.js';
import { makeInstitution, startTestAppliance, type TestAppliance, type TestInstitution } from '../../../tests/helpers/appliance.js';
import { createAccount, expectError, institutionApi, signedInMember, signIn } from '../../../tests/helpers/portal.js';

let app: TestAppliance;
let school: TestInstitution;
let other: TestInstitution;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestAppliance();
  school = await makeInstitution(app, { name: 'Names School' });
  other = await makeInstitution(app, { name: 'Other Names School' });
  const student = await school.tenant.inTransaction((tx) => createPerson(tx, 'student', { full_name: 'Ada Lovelace', license_days: 30 }));
  const teacher = await school.tenant.inTransaction((tx) => createPerson(tx, 'faculty', { full_name: 'Grace Hopper', license_days: 30 }));
  const { group } = await createGroup(school.tenant, { name: 'Year 9', description: '', faculty_id: teacher.id, student_ids: [student.id] });
  const stranger = await other.tenant.inTransaction((tx) => createPerson(tx, 'student', { full_name: 'Not Yours', license_days: 30 }));
  Object.assign(ids, { student: student.id, teacher: teacher.id, group: group.id, stranger: stranger.id, studentEmail: student.login_email });
});
afterAll(() => app.close());

describe('GET /portal/api/institutions/{id}/names', () => {
  it("answers the names of the institution's people and groups, and nothing of another institution", async () => {
    const admin = await signedInMember(app, school.id, 'admin');
    const res = await admin.agent
      .get(`${institutionApi(school.id)}/names`)
      .query({ ids: [ids.student, ids.teacher, ids.group, ids.stranger, 'stu_unknown'].join(',') });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual(
      expect.arrayContaining([
        { id: ids.student, kind: 'student', name: 'Ada Lovelace', detail: ids.studentEmail },
        { id: ids.teacher, kind: 'faculty', name: 'Grace Hopper', detail: expect.stringMatching(/^grace\.hopper@/) },
        { id: ids.group, kind: 'group', name: 'Year 9', detail: null },
      ]),
    );
    expect(res.body.data.items).toHaveLength(3);
  });

  it("gives a developer only the kinds the developer's role may read", async () => {
    const developer = await signedInMember(app, school.id, 'developer');
    const scopes = roleScopes('developer');
    const res = await developer.agent.get(`${institutionApi(school.id)}/names`).query({ ids: [ids.student, ids.teacher, ids.group].join(',') });
    expect(res.status).toBe(200);
    const kinds = (res.body.data.items as Array<{ kind: string }>).map((item) => item.kind).sort();
    const readable = [
      ...(scopes.includes('faculty:read') ? ['faculty'] : []),
      ...(scopes.includes('groups:read') ? ['group'] : []),
      ...(scopes.includes('students:read') ? ['student'] : []),
    ];
    expect(kinds).toEqual(readable);
  });

  it('answers no names for no ids, and refuses too many ids and a member of another institution', async () => {
    const admin = await signedInMember(app, school.id, 'admin');
    const none = await admin.agent.get(`${institutionApi(school.id)}/names`);
    expect(none.status).toBe(200);
    expect(none.body.data.items).toEqual([]);
    const many = Array.from({ length: MAX_NAMED_IDS + 1 }, (_, i) => `stu_${i}`).join(',');
    expectError(await admin.agent.get(`${institutionApi(school.id)}/names`).query({ ids: many }), 422, 'validation_error');
    const outsider = await signedInMember(app, other.id, 'admin');
    expectError(await outsider.agent.get(`${institutionApi(school.id)}/names`).query({ ids: ids.student }), 404, 'not_found');
  });
});

/** Stored lower-cased, as every e-mail is. */
const helperEmail = (demo: DemoSeed) => `helper-${demo.institution.id.toLowerCase()}@example.test`;

/** One id of each kind a demo institution holds, read straight from its tables. */
async function idsOfEveryKind(app: TestAppliance, demo: DemoSeed): Promise<Record<NamedKind, string>> {
  const tenant = new Tenant(app.ctx.db, demo.institution.id);
  const first = async (rows: Promise<Array<{ id: string }>>) => (await rows)[0]!.id;
  const { invitation } = await inviteMember(tenant, { email: helperEmail(demo), role: 'developer', invitedBy: null, portalUrl: app.origin });
  return {
    student: await first(tenant.people.findAll({ where: { role: 'student' }, limit: 1 })),
    faculty: await first(tenant.people.findAll({ where: { role: 'faculty' }, limit: 1 })),
    group: await first(tenant.groups.findAll({ limit: 1 })),
    exam: await first(tenant.exams.findAll({ limit: 1 })),
    submission: await first(tenant.submissions.findAll({ limit: 1 })),
    license: await first(tenant.licenses.findAll({ limit: 1 })),
    seat: await first(tenant.deviceSeats.findAll({ limit: 1 })),
    endpoint: await first(tenant.webhookEndpoints.findAll({ limit: 1 })),
    delivery: await first(tenant.webhookDeliveries.findAll({ limit: 1 })),
    event: await first(tenant.events.findAll({ limit: 1 })),
    key: await first(tenant.apiKeys.findAll({ limit: 1 })),
    account: demo.admin.account.id,
    invitation: invitation.id,
  };
}

describe('names of every kind of id the portal shows (audit targets, deliveries, submissions)', () => {
  let demo: DemoSeed;
  let ids: Record<NamedKind, string>;
  let foreign: Record<NamedKind, string>;

  beforeAll(async () => {
    demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    const otherDemo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
    [ids, foreign] = await Promise.all([idsOfEveryKind(app, demo), idsOfEveryKind(app, otherDemo)]);
  }, 180_000);

  const namesFor = async (agent: { get(url: string): { query(q: object): PromiseLike<{ status: number; body: any }> } }, wanted: string[]) =>
    agent.get(`${institutionApi(demo.institution.id)}/names`).query({ ids: wanted.join(',') });

  it("names an admin every kind, each as its own page shows it, and nothing of another institution's", async () => {
    const admin = await signIn(app, demo.admin.account.email, demo.admin.password);
    const res = await namesFor(admin.agent, [...Object.values(ids), ...Object.values(foreign)]);
    expect(res.status).toBe(200);
    const items = res.body.data.items as Array<{ id: string; kind: NamedKind; name: string; detail: string | null }>;
    expect(items.map((item) => item.kind).sort()).toEqual([...NAMED_KINDS].sort());
    expect(items.every((item) => item.id === ids[item.kind])).toBe(true);
    const byKind = Object.fromEntries(items.map((item) => [item.kind, item]));
    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    const endpoint = (await tenant.webhookEndpoints.findById(ids.endpoint))!;
    expect(byKind.endpoint).toMatchObject({ name: endpoint.url, detail: endpoint.description });
    expect(byKind.exam!.name).toBe((await tenant.exams.findById(ids.exam))!.title);
    expect(byKind.event!.name).toBe((await tenant.events.findById(ids.event))!.type);
    expect(byKind.key!.name).toBe('Demo key (all scopes)');
    expect(byKind.account).toMatchObject({ name: demo.admin.account.email, detail: 'admin' });
    expect(byKind.invitation!.name).toBe(helperEmail(demo));
    // A submission by its student and exam; a license by its holder.
    const submission = (await tenant.submissions.findById(ids.submission))!;
    const student = (await tenant.people.findById(submission.student_id))!;
    expect(byKind.submission).toMatchObject({ name: student.full_name, detail: (await tenant.exams.findById(submission.exam_id))!.title });
    const license = (await tenant.licenses.findById(ids.license))!;
    expect(byKind.license!.name).toBe((await tenant.people.findById(license.user_id))!.full_name);
  });

  it("gives a developer the kinds the developer's scopes and pages allow, not licenses or the team", async () => {
    const developer = await signedInMember(app, demo.institution.id, 'developer');
    const res = await namesFor(developer.agent, Object.values(ids));
    expect(res.status).toBe(200);
    const kinds = (res.body.data.items as Array<{ kind: NamedKind }>).map((item) => item.kind).sort();
    expect(kinds).toEqual([...nameableKinds('developer')].sort());
    for (const kind of ['license', 'seat', 'account', 'invitation'] as const) expect(kinds).not.toContain(kind);
    for (const kind of ['student', 'exam', 'submission', 'endpoint', 'delivery', 'event', 'key'] as const) expect(kinds).toContain(kind);
  });

  it("names the operator's institutions, accounts, invitations, batches and curricula; refuses anyone else", async () => {
    const made = await createAccount(app, null, 'admin');
    await made.account.update({ is_operator: true });
    const operator = await signIn(app, made.email, made.password!);
    const tenant = new Tenant(app.ctx.db, demo.institution.id);
    const batch = await createBatch(tenant, {
      name: 'Spring prizes',
      description: '',
      total_coupons: 5,
      value_cents: 100,
      expiry_date: new Date(Date.now() + 86_400_000),
    });
    const { curriculum } = await createCurriculum(app.ctx.db, { name: 'Fractions', description: '', concepts: ['Halves'], institution_id: null });
    const res = await operator.agent
      .get('/portal/api/operator/names')
      .query({ ids: [demo.institution.id, demo.admin.account.id, ids.invitation, batch.id, curriculum.id, ids.student, 'inst_unknown'].join(',') });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual(
      expect.arrayContaining([
        { id: demo.institution.id, kind: 'institution', name: demo.institution.name, detail: null },
        { id: demo.admin.account.id, kind: 'account', name: demo.admin.account.email, detail: null },
        { id: ids.invitation, kind: 'invitation', name: helperEmail(demo), detail: demo.institution.name },
        { id: batch.id, kind: 'coupon_batch', name: 'Spring prizes', detail: demo.institution.name },
        { id: curriculum.id, kind: 'curriculum', name: 'Fractions', detail: null },
      ]),
    );
    // Institution data stays an id for the operator, who is not a member of every institution.
    expect(res.body.data.items).toHaveLength(5);
    const admin = await signIn(app, demo.admin.account.email, demo.admin.password);
    expectError(await admin.agent.get('/portal/api/operator/names').query({ ids: demo.institution.id }), 403, 'forbidden');
  });
});
