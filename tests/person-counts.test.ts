// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPeople } from '../server/commands/people/list.js';
import { createPerson, setStudentStatus, updatePerson } from '../server/commands/people/people.js';
import { bulkCreateStudents } from '../server/commands/people/students.js';
import type { Tenant } from '../server/db/tenant.js';
import { makeInstitution, startTestAppliance, type TestAppliance } from './helpers/appliance.js';

// The students and faculty lists take their totals from `person_counts`, kept by triggers
// (docs/decisions/counted-totals.md). Whatever writes people, the kept counts must equal a count
// of the rows, per institution, role and status.

let app: TestAppliance;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  app = await startTestAppliance();
  tenant = (await makeInstitution(app)).tenant;
  other = (await makeInstitution(app)).tenant;
});

afterAll(async () => {
  await app?.close();
});

/** The kept counts and the counted rows, both as `institution/role/status → n`. */
async function keptAndCounted() {
  const [kept] = await app.ctx.db.sequelize.query('SELECT institution_id, role, status, total AS n FROM person_counts WHERE total > 0');
  const [counted] = await app.ctx.db.sequelize.query('SELECT institution_id, role, status, count(*) AS n FROM people GROUP BY institution_id, role, status');
  const asMap = (rows: unknown[]) =>
    Object.fromEntries(
      (rows as Array<{ institution_id: string; role: string; status: string; n: number }>).map((row) => [
        `${row.institution_id}/${row.role}/${row.status}`,
        Number(row.n),
      ]),
    );
  return { kept: asMap(kept), counted: asMap(counted) };
}

const totalOf = async (t: Tenant, filter: { status?: 'active' | 'suspended' } = {}) => (await listPeople(t, 'student', { page: 1, limit: 1, ...filter })).total;

describe('kept person counts', () => {
  it('follow bulk and single creation, status changes and another institution', async () => {
    const bulk = await bulkCreateStudents(tenant, [
      { full_name: 'Count One', student_id: 'C-1' },
      { full_name: 'Count Two', student_id: 'C-1' }, // a taken student_id: not created, not counted
      { full_name: 'Count Three' },
      { full_name: '' }, // invalid
    ]);
    expect(bulk).toMatchObject({ created: 2, failed: 2 });
    const single = await tenant.inTransaction((tx) => createPerson(tx, 'student', { full_name: 'Count Four', license_days: 30 }));
    await other.inTransaction((tx) => createPerson(tx, 'faculty', { full_name: 'Other Teacher', license_days: 30 }));
    expect(await totalOf(tenant)).toBe(3);
    expect(await totalOf(other)).toBe(0);

    await setStudentStatus(tenant, single.id, 'suspended');
    await setStudentStatus(tenant, single.id, 'suspended'); // no change: counted once
    expect(await totalOf(tenant)).toBe(3);
    expect(await totalOf(tenant, { status: 'suspended' })).toBe(1);
    expect(await totalOf(tenant, { status: 'active' })).toBe(2);

    await updatePerson(tenant, 'student', single.id, { status: 'active', full_name: 'Count Four Renamed' });
    expect(await totalOf(tenant, { status: 'suspended' })).toBe(0);
    expect(await totalOf(tenant, { status: 'active' })).toBe(3);

    const { kept, counted } = await keptAndCounted();
    expect(kept).toEqual(counted);
  });

  it('follow rows written by plain SQL, as an operator or a restore might', async () => {
    await app.ctx.db.sequelize.query(
      `INSERT INTO people (id, institution_id, role, login_email, full_name, status, created_at, updated_at)
       VALUES ('stu_sqlcount1', :institution, 'student', 'sql.count@counts.test', 'Sql Count', 'suspended', '2026-01-01 00:00:00.000 +00:00', '2026-01-01 00:00:00.000 +00:00')`,
      { replacements: { institution: tenant.institutionId } },
    );
    expect(await totalOf(tenant, { status: 'suspended' })).toBe(1);
    await app.ctx.db.sequelize.query(`DELETE FROM people WHERE id = 'stu_sqlcount1'`);
    expect(await totalOf(tenant, { status: 'suspended' })).toBe(0);
    const { kept, counted } = await keptAndCounted();
    expect(kept).toEqual(counted);
  });
});
