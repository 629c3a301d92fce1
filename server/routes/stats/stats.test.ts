// @tier integration
// @databases sqlite, postgres
// The numbers behind the portal's charts (docs/decisions/portal-charts.md): exact counts per UTC day and month against
// rows made with known statuses and times, zeros for an empty institution, nothing of another
// institution, only what the role may read, and queries that read an index range, never a table.
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup } from '../../commands/people/groups.js';
import { createPerson } from '../../commands/people/people.js';
import { endpointStats, type DayEndpointStats } from '../../commands/stats/deliveries.js';
import { licenseExpiry } from '../../commands/stats/licenses.js';
import { overviewStats } from '../../commands/stats/overview.js';
import { createStudent } from '../../commands/people/students.js';
import { createEndpoint } from '../../commands/webhooks/endpoints.js';
import { EXPIRY_MONTHS } from './schema.js';
import type { Tenant } from '../../db/tenant.js';
import { newId } from '../../ids.js';
import type { DeliveryStatus } from '../../models/webhook.js';
import { makeInstitution, startTestAppliance, type TestAppliance, type TestInstitution } from '../../../tests/helpers/appliance.js';
import { expectError, institutionApi, ok, signedInMember, type SignedIn } from '../../../tests/helpers/portal.js';
import { onPostgres } from '../../../tests/helpers/postgres.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

let app: TestAppliance;
let school: TestInstitution;
let other: TestInstitution;
let empty: TestInstitution;
let admin: SignedIn;
let developer: SignedIn;
let emptyAdmin: SignedIn;
/** Today's UTC midnight when the rows were made: every time below is set from it. */
let midnight: number;
let now: Date;
const ids: Record<string, string> = {};
/** The month (0 = this one) each active license of the school expires in. */
const expiryMonth: Record<string, number> = {};

/** `UPDATE table SET column = at WHERE id = id`, past the models (which keep their own timestamps). */
async function setTime(table: string, column: string, id: string, at: Date) {
  await app.ctx.db.sequelize.query(`UPDATE ${table} SET ${column} = ? WHERE id = ?`, { replacements: [at, id] });
}

/** A paused endpoint (the engine leaves its deliveries alone) of `tenant`. */
async function pausedEndpoint(tenant: Tenant): Promise<string> {
  const { endpoint } = await createEndpoint(tenant, { url: 'http://127.0.0.1:9/hooks', description: '', events: ['*'] }, { privateHosts: 'all' });
  await endpoint.update({ status: 'paused' });
  return endpoint.id;
}

async function delivery(inst: TestInstitution, endpointId: string, status: DeliveryStatus, createdAt: number, responseMs: number | null) {
  await app.ctx.db.models.WebhookDelivery.create({
    id: newId('dlv'),
    institution_id: inst.id,
    endpoint_id: endpointId,
    event_id: newId('evt'),
    event_type: 'student.created',
    payload: { id: 'evt_x', type: 'student.created', created_at: new Date(createdAt).toISOString(), institution_id: inst.id, data: {} },
    status,
    attempt_count: status === 'pending' ? 0 : 1,
    next_attempt_at: null,
    last_attempt_at: status === 'pending' ? null : new Date(createdAt),
    response_status: responseMs === null ? null : status === 'succeeded' ? 200 : 500,
    response_time_ms: responseMs,
    response_body: null,
    replay_of: null,
    created_at: new Date(createdAt),
  });
}

/** Months from now's UTC month to `at`'s. */
const monthIndex = (at: Date) => (at.getUTCFullYear() - now.getUTCFullYear()) * 12 + at.getUTCMonth() - now.getUTCMonth();

beforeAll(async () => {
  app = await startTestAppliance();
  [school, other, empty] = await Promise.all([
    makeInstitution(app, { name: 'Stats School' }),
    makeInstitution(app, { name: 'Other Stats School' }),
    makeInstitution(app, { name: 'Empty Stats School' }),
  ]);
  now = new Date();
  midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());

  // People: three students (today, two days ago, eleven days ago), a teacher, a group.
  const students = [];
  for (const name of ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']) students.push(await createStudent(school.tenant, { full_name: name, license_days: 365 }));
  const teacher = await school.tenant.inTransaction((tx) => createPerson(tx, 'faculty', { full_name: 'Tim Teacher', license_days: 365 }));
  await createGroup(school.tenant, { name: 'Year 9', description: '', faculty_id: teacher.id, student_ids: [students[0]!.id] });
  await setTime('people', 'created_at', students[1]!.id, new Date(midnight - 2 * DAY + HOUR));
  await setTime('people', 'created_at', students[2]!.id, new Date(midnight - 10 * DAY));

  // Licenses: Ada's expires within the hour, Alan's is revoked, Grace's expired an hour ago (still
  // stored active), Tim's in 500 days; two more expire in 40 and 200 days.
  const licenseOf = async (userId: string) => (await school.tenant.licenses.findOne({ where: { user_id: userId } }))!;
  const expiries: Record<string, Date> = {
    soon: new Date(now.getTime() + HOUR),
    in40: new Date(now.getTime() + 40 * DAY),
    in200: new Date(now.getTime() + 200 * DAY),
  };
  await (await licenseOf(students[0]!.id)).update({ expires_at: expiries.soon! });
  await (await licenseOf(students[1]!.id)).update({ status: 'revoked', revoked_at: now });
  await (await licenseOf(students[2]!.id)).update({ expires_at: new Date(now.getTime() - HOUR) });
  await (await licenseOf(teacher.id)).update({ expires_at: new Date(now.getTime() + 500 * DAY) });
  for (const [type, key] of [
    ['student', 'in40'],
    ['faculty', 'in200'],
  ] as const) {
    await school.tenant.licenses.create({
      id: newId('lic'),
      user_id: type === 'student' ? students[0]!.id : teacher.id,
      type,
      status: 'active',
      starts_at: now,
      expires_at: expiries[key]!,
      revoked_at: null,
      revoke_reason: null,
    });
  }
  Object.assign(expiryMonth, { soon: monthIndex(expiries.soon!), in40: monthIndex(expiries.in40!), in200: monthIndex(expiries.in200!) });

  // Deliveries of two endpoints, at known times around today's and the window's first midnight.
  ids.endpoint = await pausedEndpoint(school.tenant);
  ids.second = await pausedEndpoint(school.tenant);
  ids.emptyEndpoint = await pausedEndpoint(empty.tenant);
  const rows: Array<[string, DeliveryStatus, number, number | null]> = [
    [ids.endpoint, 'succeeded', midnight, 100],
    [ids.endpoint, 'succeeded', midnight + 2 * HOUR, 300],
    [ids.endpoint, 'failed', midnight + 3 * HOUR, 500],
    [ids.endpoint, 'dead', midnight + 4 * HOUR, null],
    [ids.endpoint, 'pending', midnight + 5 * HOUR, null],
    [ids.endpoint, 'succeeded', midnight - 1, 250],
    [ids.endpoint, 'failed', midnight - 3 * DAY + 5 * HOUR, 1000],
    [ids.endpoint, 'succeeded', midnight - 6 * DAY, 50],
    [ids.endpoint, 'succeeded', midnight - 6 * DAY - 1, 20],
    [ids.second, 'succeeded', midnight + HOUR, 700],
  ];
  for (const [endpointId, status, at, ms] of rows) await delivery(school, endpointId, status, at, ms);

  // The other institution is busy in every way the charts count.
  const theirs = await pausedEndpoint(other.tenant);
  ids.theirEndpoint = theirs;
  for (let i = 0; i < 5; i += 1) await delivery(other, theirs, i % 2 ? 'failed' : 'succeeded', midnight + HOUR + i, 80);
  for (const name of ['Not Yours', 'Nor This One']) await createStudent(other.tenant, { full_name: name, license_days: 30 });

  [admin, developer, emptyAdmin] = await Promise.all([
    signedInMember(app, school.id, 'admin'),
    signedInMember(app, school.id, 'developer'),
    signedInMember(app, empty.id, 'admin'),
  ]);
});
afterAll(() => app?.close());

const get = (who: SignedIn, institutionId: string, path: string, query: Record<string, string | number> = {}) =>
  who.agent.get(`${institutionApi(institutionId)}/stats${path}`).query(query);

/** Seven days of `fill`, with `days` set by index (0 = six days ago, 6 = today). */
function week<T>(fill: (day: string) => T, days: Record<number, Partial<T>>): Array<T & { day: string }> {
  return Array.from({ length: 7 }, (_, i) => {
    const day = new Date(midnight - (6 - i) * DAY).toISOString().slice(0, 10);
    return { day, ...fill(day), ...days[i] };
  });
}

describe('GET /portal/api/institutions/{id}/stats/overview', () => {
  it("counts the institution's people, groups and active licenses, and its deliveries and new students per UTC day", async () => {
    const data = ok(await get(admin, school.id, '/overview'));
    expect(data.from).toBe(new Date(midnight - 6 * DAY).toISOString());
    expect(data.to).toBe(new Date(midnight + DAY).toISOString());
    expect(data.counts).toEqual({ students: 3, faculty: 1, groups: 1, active_licenses: 4 });
    expect(data.deliveries).toEqual(
      week(() => ({ succeeded: 0, failed: 0 }), { 0: { succeeded: 1 }, 3: { failed: 1 }, 5: { succeeded: 1 }, 6: { succeeded: 3, failed: 2 } }),
    );
    expect(data.new_students).toEqual(week(() => ({ count: 0 }), { 4: { count: 1 }, 6: { count: 1 } }));
  });

  it('takes the number of days, today the last of them', async () => {
    const data = ok(await get(admin, school.id, '/overview', { days: 1 }));
    expect(data.deliveries).toEqual([{ day: new Date(midnight).toISOString().slice(0, 10), succeeded: 3, failed: 2 }]);
    expect(data.new_students).toHaveLength(1);
    expect(ok(await get(admin, school.id, '/overview', { days: 31 })).new_students).toHaveLength(31);
  });

  it('answers zeros for every day of an empty institution', async () => {
    const data = ok(await get(emptyAdmin, empty.id, '/overview'));
    expect(data.counts).toEqual({ students: 0, faculty: 0, groups: 0, active_licenses: 0 });
    expect(data.deliveries).toEqual(week(() => ({ succeeded: 0, failed: 0 }), {}));
    expect(data.new_students).toEqual(week(() => ({ count: 0 }), {}));
  });

  it("gives a developer everything but the licenses, which the developer's role may not read", async () => {
    const data = ok(await get(developer, school.id, '/overview'));
    expect(data.counts).toEqual({ students: 3, faculty: 1, groups: 1, active_licenses: null });
    expect(data.deliveries[6]).toMatchObject({ succeeded: 3, failed: 2 });
  });

  it('refuses a bad number of days and unknown parameters, and answers a non-member as a missing institution', async () => {
    for (const days of ['0', '32', 'seven', '1e1', '-1']) expectError(await get(admin, school.id, '/overview', { days }), 422, 'validation_error');
    expectError(await get(admin, school.id, '/overview', { weeks: 1 }), 422, 'validation_error');
    expectError(await get(emptyAdmin, school.id, '/overview'), 404, 'not_found');
  });
});

describe('GET /portal/api/institutions/{id}/stats/webhook-endpoints/{endpointId}', () => {
  const none: Omit<DayEndpointStats, 'day'> = { succeeded: 0, failed: 0, success_rate: null, average_response_ms: null, max_response_ms: null };

  it("gives one endpoint's outcomes, success rate and answer times per day, and over the window", async () => {
    const data = ok(await get(admin, school.id, `/webhook-endpoints/${ids.endpoint}`));
    expect(data.endpoint_id).toBe(ids.endpoint);
    expect(data.days).toEqual(
      week(() => none, {
        0: { succeeded: 1, success_rate: 100, average_response_ms: 50, max_response_ms: 50 },
        3: { failed: 1, success_rate: 0, average_response_ms: 1000, max_response_ms: 1000 },
        5: { succeeded: 1, success_rate: 100, average_response_ms: 250, max_response_ms: 250 },
        6: { succeeded: 2, failed: 2, success_rate: 50, average_response_ms: 300, max_response_ms: 500 },
      }),
    );
    expect(data.totals).toEqual({ succeeded: 4, failed: 3, success_rate: 57.1, average_response_ms: 367, max_response_ms: 1000 });
  });

  it('answers zeros and nulls for an endpoint without deliveries, to a developer too', async () => {
    const data = ok(await get(emptyAdmin, empty.id, `/webhook-endpoints/${ids.emptyEndpoint}`));
    expect(data.days).toEqual(week(() => none, {}));
    expect(data.totals).toEqual(none);
    expect(ok(await get(developer, school.id, `/webhook-endpoints/${ids.second}`)).totals).toMatchObject({ succeeded: 1, success_rate: 100 });
  });

  it("answers another institution's endpoint as a missing one, and refuses a bad id or window", async () => {
    expectError(await get(admin, school.id, `/webhook-endpoints/${ids.theirEndpoint}`), 404, 'not_found');
    expectError(await get(admin, school.id, '/webhook-endpoints/whe_missing'), 404, 'not_found');
    expectError(await get(admin, school.id, `/webhook-endpoints/${'x'.repeat(321)}`), 422, 'validation_error');
    expectError(await get(admin, school.id, `/webhook-endpoints/${ids.endpoint}`, { days: 0 }), 422, 'validation_error');
  });
});

describe('GET /portal/api/institutions/{id}/stats/licenses', () => {
  it('counts active licenses by type and UTC expiry month, this month first, and those expiring later', async () => {
    const data = ok(await get(admin, school.id, '/licenses'));
    expect(data.months).toHaveLength(EXPIRY_MONTHS);
    expect(data.months[0].month).toBe(now.toISOString().slice(0, 7));
    const expected = Array.from({ length: EXPIRY_MONTHS }, () => ({ student: 0, faculty: 0 }));
    expected[expiryMonth.soon!]!.student += 1;
    expected[expiryMonth.in40!]!.student += 1;
    expected[expiryMonth.in200!]!.faculty += 1;
    expect(data.months.map(({ student, faculty }: { student: number; faculty: number }) => ({ student, faculty }))).toEqual(expected);
    expect(data.later).toEqual({ student: 0, faculty: 1 });
  });

  it('answers zeros for an empty institution', async () => {
    const data = ok(await get(emptyAdmin, empty.id, '/licenses'));
    expect(data.months.every((month: { student: number; faculty: number }) => month.student === 0 && month.faculty === 0)).toBe(true);
    expect(data.later).toEqual({ student: 0, faculty: 0 });
  });

  it('refuses a developer, whose role may not read licenses', async () => {
    expectError(await get(developer, school.id, '/licenses'), 403, 'forbidden');
  });
});

describe('the queries', () => {
  const capture = new AsyncLocalStorage<string[]>();

  /** The SELECTs `run` sends, values inlined as the SQLite dialect sends them. */
  async function selectsOf(run: () => Promise<unknown>): Promise<string[]> {
    const { options } = app.ctx.db.sequelize as unknown as { options: { logging: unknown } };
    const statements: string[] = [];
    const previous = options.logging;
    options.logging = (sql: string) => capture.getStore()?.push(sql.replace(/^Executing \([^)]*\): /, ''));
    try {
      await capture.run(statements, run);
    } finally {
      options.logging = previous;
    }
    return statements.filter((sql) => /^SELECT /i.test(sql));
  }

  async function plansOf(run: () => Promise<unknown>): Promise<string> {
    const plans = [];
    for (const sql of await selectsOf(run)) {
      const [rows] = await app.ctx.db.sequelize.query(`EXPLAIN QUERY PLAN ${sql}`);
      plans.push((rows as Array<{ detail: string }>).map((row) => row.detail).join('\n'));
    }
    return plans.join('\n');
  }

  // EXPLAIN QUERY PLAN and its wording are SQLite's; PostgreSQL's planner chooses by table statistics.
  it.skipIf(onPostgres())('read index ranges of the institution, never a whole table, and sort nothing', async () => {
    const parts = new Set(['students', 'faculty', 'groups', 'licenses', 'deliveries'] as const);
    const overview = await plansOf(() => overviewStats(school.tenant, parts, 7));
    const endpoint = await plansOf(() => endpointStats(school.tenant, ids.endpoint!, 7));
    const licenses = await plansOf(() => licenseExpiry(school.tenant, 12));
    for (const line of [overview, endpoint, licenses].join('\n').split('\n'))
      expect(line).toMatch(
        /^SEARCH \w+ USING (COVERING )?INDEX \w+ \(institution_id=\?|^SEARCH WebhookEndpoint USING INDEX sqlite_autoindex_webhook_endpoints_1 \(id=\?\)$/,
      );
    const day = 'created_at>\\? AND created_at<\\?';
    expect(overview).toMatch(
      new RegExp(`COVERING INDEX webhook_deliveries_institution_id_status_created_at_id \\(institution_id=\\? AND status=\\? AND ${day}\\)`),
    );
    expect(overview).toMatch(new RegExp(`COVERING INDEX people_institution_id_role_created_at_id \\(institution_id=\\? AND role=\\? AND ${day}\\)`));
    expect(endpoint).toMatch(
      new RegExp(`INDEX webhook_deliveries_institution_id_endpoint_id_created_at\\w* \\(institution_id=\\? AND endpoint_id=\\? AND ${day}\\)`),
    );
    const licenseLines = [...overview.split('\n'), ...licenses.split('\n')].filter((line) => line.startsWith('SEARCH License'));
    expect(licenseLines.length).toBeGreaterThan(26);
    for (const line of licenseLines)
      expect(line).toMatch(/COVERING INDEX licenses_institution_id_status_type_expires_at \(institution_id=\? AND status=\? AND type=\? AND expires_at>\?/);
  });
});
