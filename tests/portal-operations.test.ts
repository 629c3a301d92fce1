// @tier integration
// @databases sqlite, postgres
// The portal calls the /v1 operations themselves (docs/decisions/portal-on-v1-operations.md): the same declarations, mounted for
// portal sessions under /portal/api/institutions/{institution}, behind the portal's checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../server/routes/index.js';
import { ADMIN_ONLY_SCOPES } from '../server/policies/scopes.js';
import { makeInstitution, makeKey, readEvents, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';
import { expectError, expectOk, institutionApi, signedInMember } from './helpers/portal.js';

let app: TestAppliance;
let school: TestInstitution;
let other: TestInstitution;
let key: TestKey;
let admin: Awaited<ReturnType<typeof signedInMember>>;
let developer: Awaited<ReturnType<typeof signedInMember>>;

beforeAll(async () => {
  app = await startTestAppliance();
  school = await makeInstitution(app, { name: 'Operations School' });
  other = await makeInstitution(app, { name: 'Elsewhere School' });
  key = await makeKey(app, school, { scopes: ['all'] });
  admin = await signedInMember(app, school.id, 'admin');
  developer = await signedInMember(app, school.id, 'developer');
});
afterAll(() => app.close());

const as = (who: typeof admin, institutionId = school.id) => ({
  get: (path: string) => who.agent.get(`${institutionApi(institutionId)}${path}`),
  post: (path: string, body: object = {}) =>
    who.agent
      .post(`${institutionApi(institutionId)}${path}`)
      .set('X-CSRF-Token', who.csrf)
      .send(body),
  put: (path: string, body: object) =>
    who.agent
      .put(`${institutionApi(institutionId)}${path}`)
      .set('X-CSRF-Token', who.csrf)
      .send(body),
});

describe('portal sessions on the /v1 operations', () => {
  it('an admin provisions a student through POST /students: the same row, event and answer as with a key, and an audit entry', async () => {
    const created = await as(admin).post('/students', { full_name: 'Portal Pupil' });
    expectOk(created);
    const byKey = await app.http.get(`/v1/students/${created.body.data.id}`).set('Authorization', key.auth);
    expect(byKey.body.data).toEqual(created.body.data);
    const events = await readEvents(app, key, 'student.created');
    expect(events.map((event) => event.data.student_id)).toContain(created.body.data.id);
    const audit = await app.ctx.db.models.PortalAuditEntry.findAll({ where: { institution_id: school.id } });
    expect(audit.map((entry) => entry.action)).toContain('POST /institutions/{institution}/students');
  });

  it('every institution operation of /v1 is mounted: each list without parameters answers an admin as it answers a key', async () => {
    let compared = 0;
    for (const route of apiRoutes) {
      if (route.caller !== 'key' || route.keyOnly) continue;
      if (route.method !== 'get' || route.path.includes('{')) continue;
      const viaPortal = await as(admin).get(route.path);
      const viaKey = await app.http.get(`/v1${route.path}`).set('Authorization', key.auth);
      expect(viaPortal.status, route.path).toBe(viaKey.status);
      expect(viaPortal.get('Content-Type'), route.path).toBe(viaKey.get('Content-Type'));
      compared += 1;
    }
    expect(compared).toBeGreaterThan(15);
  });

  it('a developer acts with the scopes of the role: students yes, licenses and institution:write no (403 forbidden)', async () => {
    expectOk(await as(developer).get('/students'));
    expectOk(await as(developer).get('/institution/config'));
    const licenses = await as(developer).get('/licenses');
    expectError(licenses, 403, 'forbidden');
    expect(licenses.body.required).toEqual(['licenses:read']);
    const config = (await as(admin).get('/institution/config')).body.data;
    expectError(await as(developer).put('/institution/config', config), 403, 'forbidden');
    expectOk(await as(admin).put('/institution/config', config));
    expect(ADMIN_ONLY_SCOPES).toContain('licenses:read');
  });

  it('writes need the CSRF token; another institution is 404 as one that does not exist; no session is 401', async () => {
    const noCsrf = await admin.agent.post(`${institutionApi(school.id)}/students`).send({ full_name: 'No Token' });
    expectError(noCsrf, 403, 'forbidden');
    for (const institutionId of [other.id, 'ins_doesnotexist']) {
      expectError(await as(admin, institutionId).get('/students'), 404, 'not_found');
      expectError(await as(developer, institutionId).post('/students', { full_name: 'X' }), 404, 'not_found');
    }
    const anonymous = await app.http.get(`${institutionApi(school.id)}/students`);
    expectError(anonymous, 401, 'unauthorized');
    expect(await app.ctx.db.models.Person.count({ where: { full_name: ['No Token', 'X'] } })).toBe(0);
  });

  it('the operation that describes a key (/me) is not mounted for sessions; /scopes is, for any member', async () => {
    expectError(await as(admin).get('/me'), 404, 'not_found');
    expect((await as(developer).get('/scopes')).body.data.items).toHaveLength(25);
  });

  it('validation, paging and errors are the operation’s own', async () => {
    expectError(await as(admin).get('/students?limit=0x10'), 422, 'validation_error');
    expectError(await as(admin).post('/students', { full_name: 'A', nonsense: 1 }), 422, 'validation_error');
    expectError(await as(admin).get('/students/stu_doesnotexist'), 404, 'not_found');
  });
});
