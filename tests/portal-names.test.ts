// Names instead of ids in the portal's tables (issue 16): one call per page gives the names of
// the page's people and groups, of this institution only, and only what the role may read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup } from '../server/commands/groups.js';
import { createPerson } from '../server/commands/people.js';
import { roleScopes } from '../server/policies/scopes.js';
import { MAX_NAMED_IDS } from '../server/routes/names/names.js';
import { makeInstitution, startTestAppliance, type TestAppliance, type TestInstitution } from './helpers/appliance.js';
import { expectError, institutionApi, signedInMember } from './helpers/portal.js';

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
