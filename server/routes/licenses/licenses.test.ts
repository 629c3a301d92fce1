// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateSeat, type DeviceActivation } from '../../commands/people/licenses.js';
import { AppError } from '../../errors.js';
import type { Scope } from '../../policies/scopes.js';
import {
  makeKey,
  makeSchool,
  readEvents,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
  type WireEvent,
} from '../../../tests/helpers/appliance.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LICENSE_FIELDS = ['expires_at', 'id', 'revoked_at', 'starts_at', 'status', 'type', 'user_id'];
const SEAT_FIELDS = ['activated_at', 'app', 'device_name', 'last_seen_at', 'seat_id', 'status'];

interface WireLicense {
  id: string;
  user_id: string;
  type: 'student' | 'faculty';
  status: 'active' | 'expired' | 'revoked';
  starts_at: string;
  expires_at: string;
  revoked_at: string | null;
}

interface WireSeat {
  seat_id: string;
  app: 'learning' | 'code';
  device_name: string | null;
  activated_at: string;
  last_seen_at: string;
  status: 'active' | 'revoked';
}

interface WirePerson {
  id: string;
  login_email: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('Licenses', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  // -------------------------------------------------------------------------------------------
  // Helpers: people are provisioned over HTTP, which grants their licenses.
  // -------------------------------------------------------------------------------------------

  const school = (scopes?: Array<Scope | 'all'>) => makeSchool(app, { scopes });

  async function createPerson(key: TestKey, role: 'students' | 'faculty', body: Record<string, unknown> = {}): Promise<WirePerson> {
    const res = await app.http
      .post(`/v1/${role}`)
      .set('Authorization', key.auth)
      .send({ full_name: `Person ${Math.random().toString(36).slice(2, 7)}`, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as WirePerson;
  }

  /** A person of `role` and the one license their creation granted. */
  async function personWithLicense(key: TestKey, role: 'students' | 'faculty' = 'students', body: Record<string, unknown> = {}) {
    const person = await createPerson(key, role, body);
    const res = await list(key, { user_id: person.id });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toHaveLength(1);
    return { person, license: res.body.data.items[0] as WireLicense };
  }

  const list = (key: TestKey, query: Record<string, string | number> = {}) => app.http.get('/v1/licenses').query(query).set('Authorization', key.auth);
  const getLicense = (key: TestKey, id: string) => app.http.get(`/v1/licenses/${id}`).set('Authorization', key.auth);
  const summary = (key: TestKey) => app.http.get('/v1/licenses/summary').set('Authorization', key.auth);
  const revoke = (key: TestKey, id: string, body?: unknown) => {
    const req = app.http.post(`/v1/licenses/${id}/revoke`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };
  const extend = (key: TestKey, id: string, body: unknown) =>
    app.http
      .post(`/v1/licenses/${id}/extend`)
      .set('Authorization', key.auth)
      .send(body as object);
  const devices = (key: TestKey, id: string) => app.http.get(`/v1/licenses/${id}/devices`).set('Authorization', key.auth);
  const revokeDevice = (key: TestKey, id: string, seatId: string) =>
    app.http.post(`/v1/licenses/${id}/devices/${seatId}/revoke`).set('Authorization', key.auth);

  /** Moves a license's stored expiry, as time passing would (the API refuses a past expiry). */
  async function setExpiry(licenseId: string, expiresAt: Date) {
    const [affected] = await app.ctx.db.models.License.update({ expires_at: expiresAt }, { where: { id: licenseId } });
    expect(affected).toBe(1);
  }

  /** Activates a device seat the way the token exchange will: through the command, in a transaction. */
  function activate(inst: TestInstitution, licenseId: string, device: DeviceActivation) {
    return inst.tenant.inTransaction(async (tx) => {
      const license = await tx.licenses.findById(licenseId);
      if (!license) throw new Error(`license ${licenseId} not found in ${inst.id}`);
      return activateSeat(tx, license, device);
    });
  }

  async function licenseEvents(key: TestKey, licenseId?: string): Promise<WireEvent[]> {
    const items = await readEvents(app, key, 'license.*');
    return licenseId ? items.filter((event) => event.data.license_id === licenseId) : items;
  }

  // -------------------------------------------------------------------------------------------

  describe('the License object', () => {
    it('a new student gets an active student license of license_days (default 365)', async () => {
      const { key } = await school();
      const before = Date.now();
      const { person, license } = await personWithLicense(key);
      const after = Date.now();
      expect(Object.keys(license).sort()).toEqual(LICENSE_FIELDS);
      expect(license.id).toMatch(/^lic_[A-Za-z0-9]+$/);
      expect(license.user_id).toBe(person.id);
      expect(license.type).toBe('student');
      expect(license.status).toBe('active');
      expect(license.revoked_at).toBeNull();
      expect(license.starts_at).toMatch(ISO_MS);
      expect(license.expires_at).toMatch(ISO_MS);
      const starts = Date.parse(license.starts_at);
      expect(starts).toBeGreaterThanOrEqual(before - 5);
      expect(starts).toBeLessThanOrEqual(after + 5);
      expect(Date.parse(license.expires_at) - starts).toBe(365 * DAY_MS);
    });

    it('a faculty member gets a faculty license of the license_days asked for', async () => {
      const { key } = await school();
      const { person, license } = await personWithLicense(key, 'faculty', { license_days: 30 });
      expect(license.user_id).toBe(person.id);
      expect(license.type).toBe('faculty');
      expect(license.status).toBe('active');
      expect(Date.parse(license.expires_at) - Date.parse(license.starts_at)).toBe(30 * DAY_MS);
    });

    it('GET /licenses/{id} returns the same object; an unknown id is 404 not_found', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      const res = await getLicense(key, license.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: license });

      const missing = await getLicense(key, 'lic_doesnotexist000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ success: false, error: 'not_found' });
    });

    it('an active license whose expiry has passed reads as expired before the job has run', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      await setExpiry(license.id, new Date(Date.now() - 1000));
      const stored = await app.ctx.db.models.License.findByPk(license.id);
      expect(stored?.status).toBe('active');
      const res = await getLicense(key, license.id);
      expect(res.body.data.status).toBe('expired');
    });
  });

  describe('GET /v1/licenses', () => {
    it('pages: items, page, limit, total, totalPages, oldest first', async () => {
      const { key } = await school();
      const made = [];
      for (let i = 0; i < 3; i += 1) made.push((await personWithLicense(key)).license);
      const first = await list(key, { limit: 2 });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
      expect(first.body.data.items.map((l: WireLicense) => l.id)).toEqual([made[0]?.id, made[1]?.id]);
      const second = await list(key, { limit: 2, page: 2 });
      expect(second.body.data.items.map((l: WireLicense) => l.id)).toEqual([made[2]?.id]);
      for (const item of first.body.data.items) expect(Object.keys(item).sort()).toEqual(LICENSE_FIELDS);
    });

    it('refuses bad paging and unknown or malformed filters with 422 validation_error', async () => {
      const { key } = await school();
      const queries: Array<Record<string, string | number>> = [
        { page: 0 },
        { limit: 0 },
        { limit: 201 },
        { status: 'suspended' },
        { type: 'guardian' },
        { expires_before: 'tomorrow' },
        { holder: 'x' },
      ];
      for (const query of queries) {
        const res = await list(key, query);
        expect(res.status, JSON.stringify(query)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
    });

    it('user_id takes a person id or login email, student or faculty; an unknown one gives an empty list', async () => {
      const { key } = await school();
      const student = await personWithLicense(key);
      const teacher = await personWithLicense(key, 'faculty');

      const byId = await list(key, { user_id: teacher.person.id });
      expect(byId.body.data.items.map((l: WireLicense) => l.id)).toEqual([teacher.license.id]);

      const byEmail = await list(key, { user_id: student.person.login_email.toUpperCase() });
      expect(byEmail.body.data.items.map((l: WireLicense) => l.id)).toEqual([student.license.id]);

      const byFacultyEmail = await list(key, { user_id: teacher.person.login_email });
      expect(byFacultyEmail.body.data.items.map((l: WireLicense) => l.id)).toEqual([teacher.license.id]);

      for (const unknown of ['stu_nobody00000000000000000', 'nobody@example.org']) {
        const res = await list(key, { user_id: unknown });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual({ items: [], page: 1, limit: 50, total: 0, totalPages: 0 });
      }
    });

    it('type filters student or faculty licenses', async () => {
      const { key } = await school();
      const student = await personWithLicense(key);
      const teacher = await personWithLicense(key, 'faculty');
      const students = await list(key, { type: 'student' });
      expect(students.body.data.items.map((l: WireLicense) => l.id)).toEqual([student.license.id]);
      const faculty = await list(key, { type: 'faculty' });
      expect(faculty.body.data.items.map((l: WireLicense) => l.id)).toEqual([teacher.license.id]);
    });

    it('status filters on the effective status', async () => {
      const { key } = await school();
      const active = (await personWithLicense(key)).license;
      const pastDue = (await personWithLicense(key)).license; // stored active, expiry passed
      const revoked = (await personWithLicense(key)).license;
      await setExpiry(pastDue.id, new Date(Date.now() - 60_000));
      expect((await revoke(key, revoked.id)).status).toBe(200);

      const ids = async (status: string) => (await list(key, { status })).body.data.items.map((l: WireLicense) => l.id);
      expect(await ids('active')).toEqual([active.id]);
      expect(await ids('expired')).toEqual([pastDue.id]);
      expect(await ids('revoked')).toEqual([revoked.id]);
      const expired = await list(key, { status: 'expired' });
      expect(expired.body.data.items[0].status).toBe('expired');
    });

    it('expires_before is strictly before the given instant', async () => {
      const { key } = await school();
      const short = (await personWithLicense(key, 'students', { license_days: 10 })).license;
      const middle = (await personWithLicense(key, 'students', { license_days: 20 })).license;
      await personWithLicense(key, 'students', { license_days: 30 });

      const atMiddle = await list(key, { expires_before: middle.expires_at });
      expect(atMiddle.status).toBe(200);
      expect(atMiddle.body.data.items.map((l: WireLicense) => l.id)).toEqual([short.id]);

      const justAfter = new Date(Date.parse(middle.expires_at) + 1).toISOString();
      const after = await list(key, { expires_before: justAfter });
      expect(after.body.data.items.map((l: WireLicense) => l.id)).toEqual([short.id, middle.id]);

      const withOffset = await list(key, { expires_before: '2000-01-01T00:00:00+02:00' });
      expect(withOffset.body.data.total).toBe(0);
    });

    it('filters combine', async () => {
      const { key } = await school();
      const student = await personWithLicense(key, 'students', { license_days: 5 });
      await personWithLicense(key, 'faculty', { license_days: 5 });
      await personWithLicense(key, 'students', { license_days: 50 });
      const res = await list(key, { type: 'student', status: 'active', expires_before: new Date(Date.now() + 10 * DAY_MS).toISOString() });
      expect(res.body.data.items.map((l: WireLicense) => l.id)).toEqual([student.license.id]);
    });
  });

  describe('GET /v1/licenses/summary', () => {
    it('is all zeros for an institution without people', async () => {
      const { key } = await school();
      const res = await summary(key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        by_type: { student: { active: 0, expired: 0, revoked: 0 }, faculty: { active: 0, expired: 0, revoked: 0 } },
        total: 0,
      });
    });

    it('counts by type and effective status', async () => {
      const { key } = await school();
      const students = [];
      for (let i = 0; i < 4; i += 1) students.push((await personWithLicense(key)).license);
      const teachers = [];
      for (let i = 0; i < 2; i += 1) teachers.push((await personWithLicense(key, 'faculty')).license);
      // students: 2 active, 1 past due (stored active), 1 revoked; faculty: 1 expired by the job... of this test's rows only
      await setExpiry(students[1]!.id, new Date(Date.now() - 1000));
      await revoke(key, students[2]!.id).expect(200);
      await setExpiry(teachers[0]!.id, new Date(Date.now() - 1000));
      await revoke(key, teachers[1]!.id).expect(200);

      const res = await summary(key);
      expect(res.body.data).toEqual({
        by_type: { student: { active: 2, expired: 1, revoked: 1 }, faculty: { active: 0, expired: 1, revoked: 1 } },
        total: 6,
      });
    });
  });

  describe('POST /v1/licenses/{id}/revoke', () => {
    it('revokes with revoked_at, emits license.revoked, and a second revoke is 409 conflict', async () => {
      const { key } = await school();
      const { person, license } = await personWithLicense(key);
      const before = Date.now();
      const res = await revoke(key, license.id, { reason: 'Left the school' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: license.id, status: 'revoked', expires_at: license.expires_at });
      expect(res.body.data.revoked_at).toMatch(ISO_MS);
      expect(Date.parse(res.body.data.revoked_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Object.keys(res.body.data).sort()).toEqual(LICENSE_FIELDS);
      expect((await getLicense(key, license.id)).body.data).toEqual(res.body.data);

      const again = await revoke(key, license.id);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, error: 'conflict' });

      const events = await licenseEvents(key, license.id);
      expect(events.map((event) => event.type)).toEqual(['license.revoked']);
      expect(events[0]?.data).toEqual({ license_id: license.id, user_id: person.id });
    });

    it('accepts no body; refuses a reason over 500 characters and unknown fields', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      const long = await revoke(key, license.id, { reason: 'x'.repeat(501) });
      expect(long.status).toBe(422);
      expect(long.body.error).toBe('validation_error');
      const unknown = await revoke(key, license.id, { reason: 'ok', notify: true });
      expect(unknown.status).toBe(422);
      expect(unknown.body.details).toContainEqual({ path: 'notify', message: 'Unknown field.' });
      expect((await getLicense(key, license.id)).body.data.status).toBe('active');

      expect((await revoke(key, license.id, { reason: 'x'.repeat(500) })).status).toBe(200);
      const other = (await personWithLicense(key)).license;
      expect((await revoke(key, other.id)).body.data.status).toBe('revoked');
    });

    it('an expired license can still be revoked', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      await setExpiry(license.id, new Date(Date.now() - 1000));
      const res = await revoke(key, license.id);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('revoked');
    });

    it('also revokes the active device seats of the license', async () => {
      const { inst, key } = await school();
      const { license } = await personWithLicense(key);
      const seat = await activate(inst, license.id, { app: 'learning', device_id: 'dev-1', device_name: 'Laptop' });
      await activate(inst, license.id, { app: 'code', device_id: 'dev-2' });
      await revokeDevice(key, license.id, seat.id).expect(200);

      await revoke(key, license.id).expect(200);
      const seats = (await devices(key, license.id)).body.data.items as WireSeat[];
      expect(seats).toHaveLength(2);
      expect(seats.map((s) => s.status)).toEqual(['revoked', 'revoked']);
      const stored = await app.ctx.db.models.DeviceSeat.findAll({ where: { license_id: license.id } });
      expect(stored.every((row) => row.revoked_at instanceof Date)).toBe(true);
    });
  });

  describe('POST /v1/licenses/{id}/extend', () => {
    it('days only: added to the current expiry; emits license.extended', async () => {
      const { key } = await school();
      const { person, license } = await personWithLicense(key, 'students', { license_days: 30 });
      const res = await extend(key, license.id, { days: 10 });
      expect(res.status).toBe(200);
      const expected = new Date(Date.parse(license.expires_at) + 10 * DAY_MS).toISOString();
      expect(res.body.data).toEqual({ ...license, expires_at: expected });

      const events = await licenseEvents(key, license.id);
      expect(events.map((event) => event.type)).toEqual(['license.extended']);
      expect(events[0]?.data).toEqual({ license_id: license.id, user_id: person.id, expires_at: expected });
    });

    it('expires_at only: the expiry becomes that (earlier or later)', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      const later = '2099-06-30T12:00:00.000Z';
      expect((await extend(key, license.id, { expires_at: later })).body.data.expires_at).toBe(later);
      const sooner = new Date(Date.now() + 3 * DAY_MS).toISOString();
      const res = await extend(key, license.id, { expires_at: sooner });
      expect(res.status).toBe(200);
      expect(res.body.data.expires_at).toBe(sooner);
      expect((await getLicense(key, license.id)).body.data.expires_at).toBe(sooner);
      // An offset is accepted and normalised to UTC.
      const offset = await extend(key, license.id, { expires_at: '2099-01-01T02:00:00+02:00' });
      expect(offset.body.data.expires_at).toBe('2099-01-01T00:00:00.000Z');
    });

    it('both: days are added to the new expiry, even one in the past', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      const res = await extend(key, license.id, { expires_at: '2099-01-01T00:00:00.000Z', days: 2 });
      expect(res.body.data.expires_at).toBe('2099-01-03T00:00:00.000Z');

      const yesterday = Date.now() - DAY_MS;
      const past = await extend(key, license.id, { expires_at: new Date(yesterday).toISOString(), days: 3 });
      expect(past.status).toBe(200);
      expect(past.body.data.expires_at).toBe(new Date(yesterday + 3 * DAY_MS).toISOString());
    });

    it('an expired license: days count from now, and it is active again', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      await setExpiry(license.id, new Date(Date.now() - 10 * DAY_MS));
      expect((await getLicense(key, license.id)).body.data.status).toBe('expired');
      const before = Date.now();
      const res = await extend(key, license.id, { days: 7 });
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('active');
      const expires = Date.parse(res.body.data.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 7 * DAY_MS);
      expect(expires).toBeLessThanOrEqual(after + 7 * DAY_MS);
      expect((await list(key, { status: 'active' })).body.data.items.map((l: WireLicense) => l.id)).toEqual([license.id]);
    });

    it('a license stored expired by the job is active again when extended into the future', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      await setExpiry(license.id, new Date(Date.now() - 1000));
      await app.scheduler.runNow('expire-licenses');
      expect((await app.ctx.db.models.License.findByPk(license.id))?.status).toBe('expired');

      const target = new Date(Date.now() + 5 * DAY_MS).toISOString();
      const res = await extend(key, license.id, { expires_at: target });
      expect(res.body.data).toMatchObject({ status: 'active', expires_at: target });
      expect((await app.ctx.db.models.License.findByPk(license.id))?.status).toBe('active');
    });

    it('a result that is not in the future is 422 validation_error and changes nothing', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      const past = await extend(key, license.id, { expires_at: new Date(Date.now() - 60_000).toISOString() });
      expect(past.status).toBe(422);
      expect(past.body.error).toBe('validation_error');
      expect(past.body.details[0].path).toBe('expires_at');
      const stillPast = await extend(key, license.id, { expires_at: new Date(Date.now() - 5 * DAY_MS).toISOString(), days: 2 });
      expect(stillPast.status).toBe(422);
      expect((await getLicense(key, license.id)).body.data).toEqual(license);
      expect(await licenseEvents(key, license.id)).toEqual([]);
    });

    it('refuses an empty body, bad days and bad dates with 422 validation_error', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      for (const body of [
        {},
        { days: 0 },
        { days: 3651 },
        { days: 1.5 },
        { days: '10' },
        { expires_at: 'next year' },
        { expires_at: '2099-01-01' },
        { days: 1, note: 'x' },
      ]) {
        const res = await extend(key, license.id, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      const none = await app.http.post(`/v1/licenses/${license.id}/extend`).set('Authorization', key.auth);
      expect(none.status).toBe(422);
      expect((await extend(key, license.id, { days: 3650 })).status).toBe(200);
    });

    it('a revoked license cannot be extended: 409 conflict', async () => {
      const { key } = await school();
      const { license } = await personWithLicense(key);
      await revoke(key, license.id).expect(200);
      const res = await extend(key, license.id, { days: 30 });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
      expect((await getLicense(key, license.id)).body.data.status).toBe('revoked');
      expect((await licenseEvents(key, license.id)).map((event) => event.type)).toEqual(['license.revoked']);
    });

    it('an unknown license is 404 not_found', async () => {
      const { key } = await school();
      const res = await extend(key, 'lic_nothere0000000000000000', { days: 1 });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    });
  });

  describe('device seats', () => {
    it('activateSeat creates seats listed newest first with the seat fields only', async () => {
      const { inst, key } = await school();
      const { license } = await personWithLicense(key);
      const first = await activate(inst, license.id, { app: 'learning', device_id: 'dev-a', device_name: 'Chromebook' });
      await sleep(5);
      const second = await activate(inst, license.id, { app: 'code', device_id: 'dev-b' });
      expect(first.id).toMatch(/^seat_[A-Za-z0-9]+$/);

      const res = await devices(key, license.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(['items']);
      const items = res.body.data.items as WireSeat[];
      expect(items.map((s) => s.seat_id)).toEqual([second.id, first.id]);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(SEAT_FIELDS);
        expect(item.activated_at).toMatch(ISO_MS);
        expect(item.last_seen_at).toMatch(ISO_MS);
      }
      expect(items[1]).toMatchObject({ app: 'learning', device_name: 'Chromebook', status: 'active' });
      expect(items[0]).toMatchObject({ app: 'code', device_name: null, status: 'active' });
      expect(JSON.stringify(res.body)).not.toContain('dev-a');
    });

    it('the same active device only refreshes last_seen_at, app and device_name', async () => {
      const { inst, key } = await school();
      const { license } = await personWithLicense(key);
      const seat = await activate(inst, license.id, { app: 'learning', device_id: 'dev-x', device_name: 'Old name' });
      await sleep(10);
      const again = await activate(inst, license.id, { app: 'code', device_id: 'dev-x', device_name: 'New name' });
      expect(again.id).toBe(seat.id);
      const items = (await devices(key, license.id)).body.data.items as WireSeat[];
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ seat_id: seat.id, app: 'code', device_name: 'New name', activated_at: seat.activated_at.toISOString() });
      expect(Date.parse(items[0]!.last_seen_at)).toBeGreaterThan(seat.activated_at.getTime());
      // Without a name, the one it had is kept.
      await activate(inst, license.id, { app: 'code', device_id: 'dev-x' });
      expect(((await devices(key, license.id)).body.data.items as WireSeat[])[0]?.device_name).toBe('New name');
    });

    it('a fourth active device is 409 conflict across apps; revoking a seat frees it', async () => {
      const { inst, key } = await school();
      const { license } = await personWithLicense(key);
      const seats = [];
      seats.push(await activate(inst, license.id, { app: 'learning', device_id: 'd1' }));
      seats.push(await activate(inst, license.id, { app: 'code', device_id: 'd2' }));
      seats.push(await activate(inst, license.id, { app: 'learning', device_id: 'd3' }));
      // A known device still refreshes at the limit.
      await expect(activate(inst, license.id, { app: 'code', device_id: 'd2' })).resolves.toMatchObject({ id: seats[1]!.id });

      const fourth = activate(inst, license.id, { app: 'code', device_id: 'd4' });
      await expect(fourth).rejects.toBeInstanceOf(AppError);
      await expect(activate(inst, license.id, { app: 'code', device_id: 'd4' })).rejects.toMatchObject({ code: 'conflict', status: 409 });
      expect((await devices(key, license.id)).body.data.items).toHaveLength(3);

      await revokeDevice(key, license.id, seats[0]!.id).expect(200);
      const replacement = await activate(inst, license.id, { app: 'code', device_id: 'd4' });
      expect(replacement.status).toBe('active');
      // The revoked device comes back as a new seat only when one is free.
      await expect(activate(inst, license.id, { app: 'learning', device_id: 'd1' })).rejects.toMatchObject({ code: 'conflict' });
      expect((await devices(key, license.id)).body.data.items).toHaveLength(4);
    });

    it('seats are counted per license', async () => {
      const { inst, key } = await school();
      const a = (await personWithLicense(key)).license;
      const b = (await personWithLicense(key)).license;
      for (const id of ['d1', 'd2', 'd3']) await activate(inst, a.id, { app: 'learning', device_id: id });
      await expect(activate(inst, b.id, { app: 'learning', device_id: 'd1' })).resolves.toMatchObject({ license_id: b.id, status: 'active' });
    });

    it('a revoked or expired license gives user_inactive', async () => {
      const { inst, key } = await school();
      const revoked = (await personWithLicense(key)).license;
      await revoke(key, revoked.id).expect(200);
      await expect(activate(inst, revoked.id, { app: 'learning', device_id: 'd1' })).rejects.toMatchObject({ code: 'user_inactive', status: 409 });

      const expired = (await personWithLicense(key)).license;
      const seat = await activate(inst, expired.id, { app: 'learning', device_id: 'd1' });
      await setExpiry(expired.id, new Date(Date.now() - 1000));
      // Even the device that already holds a seat.
      await expect(activate(inst, expired.id, { app: 'learning', device_id: 'd1' })).rejects.toMatchObject({ code: 'user_inactive' });
      await expect(activate(inst, expired.id, { app: 'code', device_id: 'd2' })).rejects.toMatchObject({ code: 'user_inactive' });
      const items = (await devices(key, expired.id)).body.data.items as WireSeat[];
      expect(items.map((s) => s.seat_id)).toEqual([seat.id]);
    });

    it('revoking a seat keeps it listed as revoked; revoking it again is a 200 no-op', async () => {
      const { inst, key } = await school();
      const { license } = await personWithLicense(key);
      const seat = await activate(inst, license.id, { app: 'learning', device_id: 'dev-1', device_name: 'Tablet' });
      const res = await revokeDevice(key, license.id, seat.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(SEAT_FIELDS);
      expect(res.body.data).toMatchObject({ seat_id: seat.id, status: 'revoked', device_name: 'Tablet', app: 'learning' });

      const first = await app.ctx.db.models.DeviceSeat.findByPk(seat.id);
      expect(first?.status).toBe('revoked');
      expect(first?.revoked_at).toBeInstanceOf(Date);
      await sleep(5);
      const again = await revokeDevice(key, license.id, seat.id);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(res.body.data);
      const stored = await app.ctx.db.models.DeviceSeat.findByPk(seat.id);
      expect(stored?.revoked_at?.getTime()).toBe(first?.revoked_at?.getTime());

      expect((await devices(key, license.id)).body.data.items).toEqual([res.body.data]);
      // The license itself is untouched.
      expect((await getLicense(key, license.id)).body.data.status).toBe('active');
    });

    it('a seat of another license, an unknown seat or an unknown license is 404 not_found', async () => {
      const { inst, key } = await school();
      const a = (await personWithLicense(key)).license;
      const b = (await personWithLicense(key)).license;
      const seatOfB = await activate(inst, b.id, { app: 'learning', device_id: 'dev-b' });
      for (const [licenseId, seatId] of [
        [a.id, seatOfB.id],
        [a.id, 'seat_none00000000000000000'],
        ['lic_none000000000000000000', seatOfB.id],
      ] as const) {
        const res = await revokeDevice(key, licenseId, seatId);
        expect(res.status, `${licenseId}/${seatId}`).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
      expect((await app.ctx.db.models.DeviceSeat.findByPk(seatOfB.id))?.status).toBe('active');
      const missing = await devices(key, 'lic_none000000000000000000');
      expect(missing.status).toBe(404);
      expect((await devices(key, a.id)).body.data).toEqual({ items: [] });
    });
  });

  describe('scopes', () => {
    it('licenses:read reads but cannot write; licenses:write implies read; other scopes get nothing', async () => {
      const { inst, key: admin } = await school();
      const { license } = await personWithLicense(admin);
      const seat = await activate(inst, license.id, { app: 'learning', device_id: 'dev-1' });
      const reader = await makeKey(app, inst, { scopes: ['licenses:read'] });
      const writer = await makeKey(app, inst, { scopes: ['licenses:write'] });
      const other = await makeKey(app, inst, { scopes: ['students:write', 'webhooks:write'] });

      const reads = (key: TestKey) => [list(key), summary(key), getLicense(key, license.id), devices(key, license.id)];
      const writes = (key: TestKey) => [extend(key, license.id, { days: 1 }), revokeDevice(key, license.id, seat.id), revoke(key, license.id)];

      for (const res of await Promise.all(reads(reader))) expect(res.status).toBe(200);
      for (const res of await Promise.all(reads(other))) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['licenses:read'], missing: ['licenses:read'] });
      }
      for (const res of [await writes(reader)[0]!, await writes(reader)[1]!, await writes(reader)[2]!]) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: 'insufficient_scope', required: ['licenses:write'], missing: ['licenses:write'] });
      }
      expect((await getLicense(admin, license.id)).body.data).toEqual(license);

      for (const res of await Promise.all(reads(writer))) expect(res.status).toBe(200);
      expect((await extend(writer, license.id, { days: 1 })).status).toBe(200);
      expect((await revokeDevice(writer, license.id, seat.id)).status).toBe(200);
      expect((await revoke(writer, license.id)).status).toBe(200);

      expect((await app.http.get('/v1/licenses')).status).toBe(401);
    });
  });

  describe('tenancy', () => {
    it("another institution's licenses and seats are 404 on every path and absent from lists", async () => {
      const a = await school();
      const b = await school();
      const ownA = (await personWithLicense(a.key)).license;
      const seatA = await activate(a.inst, ownA.id, { app: 'learning', device_id: 'dev-a' });
      const { person: personB, license: licenseB } = await personWithLicense(b.key);
      const seatB = await activate(b.inst, licenseB.id, { app: 'learning', device_id: 'dev-b' });

      const attempts = [
        getLicense(a.key, licenseB.id),
        revoke(a.key, licenseB.id),
        extend(a.key, licenseB.id, { days: 5 }),
        devices(a.key, licenseB.id),
        revokeDevice(a.key, licenseB.id, seatB.id),
        revokeDevice(a.key, ownA.id, seatB.id),
      ];
      for (const [i, res] of (await Promise.all(attempts)).entries()) {
        expect(res.status, `attempt ${i}`).toBe(404);
        expect(res.body).toMatchObject({ success: false, error: 'not_found' });
      }
      // B's own seat id under A's own license path, and A's seat under B's license: still 404.
      expect((await revokeDevice(b.key, licenseB.id, seatA.id)).status).toBe(404);

      expect((await list(a.key, { user_id: personB.id })).body.data.total).toBe(0);
      expect((await list(a.key, { user_id: personB.login_email })).body.data.total).toBe(0);
      expect((await list(a.key)).body.data.items.map((l: WireLicense) => l.id)).toEqual([ownA.id]);
      expect((await summary(a.key)).body.data.total).toBe(1);

      // Nothing of B changed.
      expect((await getLicense(b.key, licenseB.id)).body.data).toEqual(licenseB);
      expect(((await devices(b.key, licenseB.id)).body.data.items as WireSeat[]).map((s) => s.status)).toEqual(['active']);
      expect((await licenseEvents(b.key)).length).toBe(0);
      expect((await app.ctx.db.models.DeviceSeat.findByPk(seatA.id))?.status).toBe('active');
    });

    it('activateSeat through one tenant cannot reach another tenant’s license', async () => {
      const a = await school();
      const b = await school();
      const { license } = await personWithLicense(b.key);
      const row = await b.inst.tenant.licenses.findById(license.id);
      await expect(a.inst.tenant.inTransaction((tx) => activateSeat(tx, row!, { app: 'learning', device_id: 'd' }))).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('OpenAPI', () => {
    it('documents every licenses operation with its scope', async () => {
      const doc = (await app.http.get('/v1/openapi.json')).body;
      const ops: Array<[string, string, string]> = [
        ['/licenses', 'get', 'licenses:read'],
        ['/licenses/summary', 'get', 'licenses:read'],
        ['/licenses/{id}', 'get', 'licenses:read'],
        ['/licenses/{id}/revoke', 'post', 'licenses:write'],
        ['/licenses/{id}/extend', 'post', 'licenses:write'],
        ['/licenses/{id}/devices', 'get', 'licenses:read'],
        ['/licenses/{id}/devices/{seatId}/revoke', 'post', 'licenses:write'],
      ];
      for (const [path, method, scope] of ops) {
        expect(doc.paths[path]?.[method]?.['x-required-scope'], `${method} ${path}`).toBe(scope);
      }
      expect(doc.components.schemas.License.properties.status.enum).toEqual(['active', 'expired', 'revoked']);
    });
  });
});

describe('expire-licenses job', () => {
  // Its own appliance: the job sweeps every institution, so counts must not see other suites' rows.
  // Off its every-minute schedule: a scheduled run at the turn of a minute would expire licenses
  // between a test's setup and its runNow (seen on a busy machine).
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance({ config: { jobsOnSchedule: false } });
  });
  afterAll(() => app.close());

  async function schoolWithPeople(n: number) {
    const { inst, key } = await makeSchool(app);
    const licenses: WireLicense[] = [];
    for (let i = 0; i < n; i += 1) {
      const person = await app.http
        .post('/v1/students')
        .set('Authorization', key.auth)
        .send({ full_name: `Learner ${i}` });
      expect(person.status).toBe(200);
      const res = await app.http.get('/v1/licenses').query({ user_id: person.body.data.id }).set('Authorization', key.auth);
      licenses.push(res.body.data.items[0]);
    }
    return { inst, key, licenses };
  }

  const setExpiry = (id: string, at: Date) => app.ctx.db.models.License.update({ expires_at: at }, { where: { id } });
  const expiredEvents = async (key: TestKey) => {
    const res = await app.http.get('/v1/events').query({ type: 'license.expired' }).set('Authorization', key.auth);
    return res.body.data.items as WireEvent[];
  };

  it('is registered to run every minute', async () => {
    const { jobs } = await import('../../jobs/registry.js');
    const job = jobs.find((candidate) => candidate.name === 'expire-licenses');
    expect(job?.schedule(app.ctx)).toBe('* * * * *');
  });

  it('expires past-due licenses of every institution, each with exactly one license.expired', async () => {
    const one = await schoolWithPeople(3);
    const two = await schoolWithPeople(1);
    const [due, notDue, revoked] = one.licenses as [WireLicense, WireLicense, WireLicense];
    await setExpiry(due.id, new Date(Date.now() - 1000));
    await setExpiry(revoked.id, new Date(Date.now() - 1000));
    await app.http.post(`/v1/licenses/${revoked.id}/revoke`).set('Authorization', one.key.auth).expect(200);
    await setExpiry(two.licenses[0]!.id, new Date(Date.now() - 5 * DAY_MS));

    expect(await app.scheduler.runNow('expire-licenses')).toEqual({ expired: 2 });
    expect(await app.scheduler.runNow('expire-licenses')).toEqual({ expired: 0 });

    const stored = async (id: string) => (await app.ctx.db.models.License.findByPk(id))?.status;
    expect(await stored(due.id)).toBe('expired');
    expect(await stored(notDue.id)).toBe('active');
    expect(await stored(revoked.id)).toBe('revoked');
    expect(await stored(two.licenses[0]!.id)).toBe('expired');

    const eventsOne = await expiredEvents(one.key);
    expect(eventsOne).toHaveLength(1);
    expect(eventsOne[0]?.data).toEqual({ license_id: due.id, user_id: due.user_id });
    const eventsTwo = await expiredEvents(two.key);
    expect(eventsTwo.map((event) => event.data.license_id)).toEqual([two.licenses[0]!.id]);

    const read = await app.http.get(`/v1/licenses/${due.id}`).set('Authorization', one.key.auth);
    expect(read.body.data.status).toBe('expired');
  });

  it('concurrent runs still emit one event per license', async () => {
    const { key, licenses } = await schoolWithPeople(2);
    for (const license of licenses) await setExpiry(license.id, new Date(Date.now() - 1000));
    const results = await Promise.all([app.scheduler.runNow('expire-licenses'), app.scheduler.runNow('expire-licenses')]);
    const total = results.reduce((sum, result) => sum + Number((result as { expired: number }).expired), 0);
    expect(total).toBe(2);
    const events = await expiredEvents(key);
    expect(events.map((event) => event.data.license_id).sort()).toEqual(licenses.map((license) => license.id).sort());
  });

  it('skips a license extended between the scan and its update', async () => {
    const { key, licenses } = await schoolWithPeople(1);
    const license = licenses[0]!;
    await setExpiry(license.id, new Date(Date.now() - 1000));
    const { License } = app.ctx.db.models;
    let moved = false;
    // Right after the job lists what is due, the license is extended (as a concurrent request would).
    License.addHook('afterFind', 'extend-in-between', async (found) => {
      const rows = Array.isArray(found) ? found : [found];
      if (moved || !rows.some((row) => row?.id === license.id)) return;
      moved = true;
      await License.update({ expires_at: new Date(Date.now() + DAY_MS) }, { where: { id: license.id } });
    });
    try {
      expect(await app.scheduler.runNow('expire-licenses')).toEqual({ expired: 0 });
    } finally {
      License.removeHook('afterFind', 'extend-in-between');
    }
    expect(moved).toBe(true);
    expect((await License.findByPk(license.id))?.status).toBe('active');
    expect(await expiredEvents(key)).toEqual([]);
  });

  it('leaves alone a license extended after it fell due, and one not yet due', async () => {
    const { key, licenses } = await schoolWithPeople(1);
    const license = licenses[0]!;
    await setExpiry(license.id, new Date(Date.now() - 1000));
    await app.http.post(`/v1/licenses/${license.id}/extend`).set('Authorization', key.auth).send({ days: 1 }).expect(200);
    expect(await app.scheduler.runNow('expire-licenses')).toEqual({ expired: 0 });
    expect((await app.ctx.db.models.License.findByPk(license.id))?.status).toBe('active');
    expect(await expiredEvents(key)).toEqual([]);
  });
});
