// @tier integration
// @databases sqlite, postgres
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../ids.js';
import type { Scope } from '../../policies/scopes.js';
import { makeKey, makeSchool, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from '../../../tests/helpers/appliance.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SESSION_PATTERN = /^cb_sess_[A-Za-z0-9]{32}$/;
const HOUR_MS = 60 * 60 * 1000;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface Person {
  id: string;
  login_email: string;
  full_name: string;
}

interface Launch {
  launch_url: string;
  expires_at: string;
}

describe('SSO: launch tokens and their exchange', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  const school = (scopes?: Array<Scope | 'all'>) => makeSchool(app, { scopes });

  const post = (key: TestKey, path: string, body?: unknown) => {
    const req = app.http.post(`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? req : req.send(body as object);
  };

  async function person(key: TestKey, role: 'students' | 'faculty' = 'students', fullName = `Pat ${Math.random().toString(36).slice(2, 7)}`): Promise<Person> {
    const res = await post(key, `/${role}`, { full_name: fullName });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Person;
  }

  async function licenseOf(key: TestKey, userId: string): Promise<{ id: string }> {
    const res = await app.http.get('/v1/licenses').query({ user_id: userId }).set('Authorization', key.auth);
    expect(res.status).toBe(200);
    return res.body.data.items[0];
  }

  const mint = (key: TestKey, body: Record<string, unknown>) => post(key, '/sso/tokens', body);

  async function launch(key: TestKey, email: string, extra: Record<string, unknown> = {}): Promise<{ token: string; body: Launch }> {
    const res = await mint(key, { email, app: 'learning', ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const token = new URL(res.body.data.launch_url as string).searchParams.get('token');
    expect(token).toBeTruthy();
    return { token: token!, body: res.body.data };
  }

  const exchange = (body: unknown) => app.http.post('/v1/sso/exchange').send(body as object);

  /** An exam inserted directly (exam creation is another area's work). */
  async function insertExam(inst: TestInstitution, facultyId: string, status: 'draft' | 'published' | 'closed' = 'published'): Promise<string> {
    const id = newId('exm');
    await inst.tenant.inTransaction((tx) =>
      tx.exams.create({
        id,
        faculty_id: facultyId,
        title: 'Kinematics quiz',
        description: '',
        exam_type: 'quiz',
        app: 'learning',
        status,
        max_score: 100,
        due_date: null,
        time_limit_minutes: null,
        proctoring: {},
        ai_policy: {},
        code_spec: null,
        published_at: status === 'draft' ? null : new Date(),
        closed_at: status === 'closed' ? new Date() : null,
      }),
    );
    return id;
  }

  // -------------------------------------------------------------------------------------------

  describe('POST /v1/sso/tokens', () => {
    it('mints <portal>/launch?token=<40 characters>, valid 60 seconds by default; only the hash is stored', async () => {
      const { key } = await school();
      const student = await person(key);
      const before = Date.now();
      const res = await mint(key, { email: student.login_email, app: 'learning' });
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(Object.keys(res.body.data).sort()).toEqual(['expires_at', 'launch_url']);
      const url = res.body.data.launch_url as string;
      expect(url).toMatch(new RegExp(`^${app.origin.replace(/[.]/g, '\\.')}/launch\\?token=[A-Za-z0-9]{40}$`));
      expect(res.body.data.expires_at).toMatch(ISO_MS);
      const expires = Date.parse(res.body.data.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 60_000 - 5);
      expect(expires).toBeLessThanOrEqual(after + 60_000 + 5);

      const token = new URL(url).searchParams.get('token')!;
      const rows = await app.ctx.db.models.LaunchToken.findAll({ where: { user_id: student.id } });
      expect(rows).toHaveLength(1);
      expect(rows[0]!.token_hash).toBe(sha256(token));
      expect(JSON.stringify(rows[0]!.toJSON())).not.toContain(token);
    });

    it('each call mints a different token', async () => {
      const { key } = await school();
      const student = await person(key);
      const a = await launch(key, student.login_email);
      const b = await launch(key, student.login_email);
      expect(a.token).not.toBe(b.token);
    });

    it('ttl_seconds 1 and 300 are accepted and set the expiry', async () => {
      const { key } = await school();
      const student = await person(key);
      for (const ttl of [1, 300]) {
        const before = Date.now();
        const res = await mint(key, { email: student.login_email, app: 'code', ttl_seconds: ttl });
        expect(res.status).toBe(200);
        const expires = Date.parse(res.body.data.expires_at);
        expect(expires).toBeGreaterThanOrEqual(before + ttl * 1000 - 5);
        expect(expires).toBeLessThanOrEqual(Date.now() + ttl * 1000 + 5);
      }
    });

    it('ttl_seconds out of 1..300 or not an integer is 422 validation_error', async () => {
      const { key } = await school();
      const student = await person(key);
      for (const ttl of [0, -5, 301, 3600, 1.5, '60', null]) {
        const res = await mint(key, { email: student.login_email, app: 'learning', ttl_seconds: ttl });
        expect(res.status, String(ttl)).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain('ttl_seconds');
      }
    });

    it('refuses a missing or unknown app, a malformed email, a missing email and unknown fields (422)', async () => {
      const { key } = await school();
      const student = await person(key);
      const bodies: Array<[Record<string, unknown>, string]> = [
        [{ email: student.login_email }, 'app'],
        [{ email: student.login_email, app: 'guardian' }, 'app'],
        [{ email: 'not-an-email', app: 'learning' }, 'email'],
        [{ app: 'learning' }, 'email'],
        [{ email: student.login_email, app: 'learning', user_id: student.id }, 'user_id'],
      ];
      for (const [body, path] of bodies) {
        const res = await mint(key, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
    });

    it('works for faculty members too, and matches the login email case-insensitively', async () => {
      const { key } = await school();
      const teacher = await person(key, 'faculty');
      const res = await mint(key, { email: teacher.login_email.toUpperCase(), app: 'learning' });
      expect(res.status).toBe(200);
    });

    it('an unknown login email is 404 user_not_found', async () => {
      const { key } = await school();
      const res = await mint(key, { email: 'nobody@nowhere.campusbridge.local', app: 'learning' });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: 'user_not_found' });
    });

    it("another institution's student is 404 user_not_found", async () => {
      const a = await school();
      const b = await school();
      const theirs = await person(b.key);
      const res = await mint(a.key, { email: theirs.login_email, app: 'learning' });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('user_not_found');
    });

    it('a suspended student is 409 user_inactive; reactivated, minting works again', async () => {
      const { key } = await school();
      const student = await person(key);
      expect((await post(key, `/students/${student.id}/suspend`)).status).toBe(200);
      const res = await mint(key, { email: student.login_email, app: 'learning' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, error: 'user_inactive' });
      expect((await post(key, `/students/${student.id}/reactivate`)).status).toBe(200);
      expect((await mint(key, { email: student.login_email, app: 'learning' })).status).toBe(200);
    });

    it('a suspended faculty member is 409 user_inactive', async () => {
      const { key } = await school();
      const teacher = await person(key, 'faculty');
      const patched = await app.http.patch(`/v1/faculty/${teacher.id}`).set('Authorization', key.auth).send({ status: 'suspended' });
      expect(patched.status).toBe(200);
      const res = await mint(key, { email: teacher.login_email, app: 'learning' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('user_inactive');
    });

    it('a revoked license is 409 user_inactive', async () => {
      const { key } = await school();
      const student = await person(key);
      const license = await licenseOf(key, student.id);
      expect((await post(key, `/licenses/${license.id}/revoke`, { reason: 'left' })).status).toBe(200);
      const res = await mint(key, { email: student.login_email, app: 'learning' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('user_inactive');
    });

    it('an expired license is 409 user_inactive, also before the expiry job has stored it', async () => {
      const { key } = await school();
      const student = await person(key);
      const license = await licenseOf(key, student.id);
      await app.ctx.db.models.License.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: license.id } });
      const res = await mint(key, { email: student.login_email, app: 'learning' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('user_inactive');
    });

    it('redirect exam:<id> must name an exam of this institution (else 422); other values pass through', async () => {
      const a = await school();
      const b = await school();
      const student = await person(a.key);
      const teacherA = await person(a.key, 'faculty');
      const teacherB = await person(b.key, 'faculty');
      const ownExam = await insertExam(a.inst, teacherA.id, 'draft');
      const theirExam = await insertExam(b.inst, teacherB.id);

      const ok = await mint(a.key, { email: student.login_email, app: 'learning', redirect: `exam:${ownExam}` });
      expect(ok.status).toBe(200);

      for (const redirect of [`exam:${theirExam}`, 'exam:exm_doesNotExist000000000000', 'exam:']) {
        const res = await mint(a.key, { email: student.login_email, app: 'learning', redirect });
        expect(res.status, redirect).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain('redirect');
      }

      const tooLong = await mint(a.key, { email: student.login_email, app: 'learning', redirect: 'x'.repeat(201) });
      expect(tooLong.status).toBe(422);
      const longest = await mint(a.key, { email: student.login_email, app: 'learning', redirect: 'x'.repeat(200) });
      expect(longest.status).toBe(200);
      const other = await mint(a.key, { email: student.login_email, app: 'learning', redirect: 'dashboard' });
      expect(other.status).toBe(200);
    });

    it('needs the sso:write scope (403 insufficient_scope) and a key (401)', async () => {
      const { inst, key } = await school();
      const student = await person(key);
      const readOnly = await makeKey(app, inst, { scopes: ['students:read'] });
      const denied = await mint(readOnly, { email: student.login_email, app: 'learning' });
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ error: 'insufficient_scope', required: ['sso:write'], missing: ['sso:write'] });

      const ssoOnly = await makeKey(app, inst, { scopes: ['sso:write'] });
      expect((await mint(ssoOnly, { email: student.login_email, app: 'learning' })).status).toBe(200);

      const anonymous = await app.http.post('/v1/sso/tokens').send({ email: student.login_email, app: 'learning' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error).toBe('unauthorized');
    });

    it('neither the launch token nor the session token ever reaches the log', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      const res = await exchange({ token, device: { id: 'log-check-device' } });
      expect(res.status).toBe(200);
      // The learner page itself is requested with the token in its query string.
      await app.http.get(`/launch?token=${token}`);
      await exchange({ token });
      const log = app.logText();
      expect(log.length).toBeGreaterThan(0);
      expect(log).not.toContain(token);
      expect(log).not.toContain(res.body.data.session_token);
      expect(log).not.toContain(res.body.data.session_token.slice('cb_sess_'.length));
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('POST /v1/sso/exchange', () => {
    it('opens an 8-hour learner session for the user, with app and redirect; only its hash is stored', async () => {
      const { inst, key } = await school();
      const student = await person(key, 'students', 'Ada Lovelace');
      const teacher = await person(key, 'faculty');
      const examId = await insertExam(inst, teacher.id);
      const { token } = await launch(key, student.login_email, { app: 'code', redirect: `exam:${examId}` });

      const before = Date.now();
      const res = await exchange({ token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.success).toBe(true);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(['app', 'expires_at', 'grading_exam_id', 'redirect', 'session_token', 'user']);
      // Only an LMS instructor's launch opens a grading session (tests/lti-grading.test.ts).
      expect(data.grading_exam_id).toBeNull();
      expect(data.session_token).toMatch(SESSION_PATTERN);
      expect(data.expires_at).toMatch(ISO_MS);
      expect(Date.parse(data.expires_at)).toBeGreaterThanOrEqual(before + 8 * HOUR_MS - 5);
      expect(Date.parse(data.expires_at)).toBeLessThanOrEqual(Date.now() + 8 * HOUR_MS + 5);
      expect(data.user).toEqual({ id: student.id, login_email: student.login_email, full_name: 'Ada Lovelace', role: 'student' });
      expect(data.app).toBe('code');
      expect(data.redirect).toBe(`exam:${examId}`);

      const sessions = await app.ctx.db.models.LearnerSession.findAll({ where: { user_id: student.id } });
      expect(sessions).toHaveLength(1);
      expect(sessions[0]!.token_hash).toBe(sha256(data.session_token));
      expect(sessions[0]!.institution_id).toBe(inst.id);
      expect(sessions[0]!.seat_id).toBeNull();
      expect(JSON.stringify(sessions[0]!.toJSON())).not.toContain(data.session_token);

      const me = await app.http.get('/v1/app/me').set('Authorization', `Bearer ${data.session_token}`);
      expect(me.status).toBe(200);
      expect(me.body.data).toEqual(data.user);
    });

    it('a faculty member gets a session with role faculty; redirect is null when none was given', async () => {
      const { key } = await school();
      const teacher = await person(key, 'faculty');
      const { token } = await launch(key, teacher.login_email);
      const res = await exchange({ token });
      expect(res.status).toBe(200);
      expect(res.body.data.user.role).toBe('faculty');
      expect(res.body.data.app).toBe('learning');
      expect(res.body.data.redirect).toBeNull();
    });

    it('a token works once: the second exchange is 401 LAUNCH_TOKEN_INVALID', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      expect((await exchange({ token })).status).toBe(200);
      const again = await exchange({ token });
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ success: false, error: 'LAUNCH_TOKEN_INVALID' });
    });

    it('an expired token is 401 LAUNCH_TOKEN_INVALID', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      await app.ctx.db.models.LaunchToken.update({ expires_at: new Date(Date.now() - 1) }, { where: { token_hash: sha256(token) } });
      const res = await exchange({ token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
    });

    it('a token that lived its ttl_seconds is refused', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email, { ttl_seconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const res = await exchange({ token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
    });

    it('unknown or malformed tokens are 401 LAUNCH_TOKEN_INVALID; a missing token or bad body is 422', async () => {
      for (const token of ['A'.repeat(40), 'short', `${'a'.repeat(40)}x`, 'cb_sess_abcdefghijklmnopqrstuvwxyz012345']) {
        const res = await exchange({ token });
        expect(res.status, token).toBe(401);
        expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
      }
      for (const body of [
        {},
        { token: '' },
        { token: 5 },
        { token: 'A'.repeat(40), extra: 1 },
        { token: 'A'.repeat(40), device: {} },
        { token: 'A'.repeat(40), device: { id: 'x'.repeat(201) } },
        { token: 'A'.repeat(40), device: { id: 'd', name: 'n'.repeat(201) } },
      ]) {
        const res = await exchange(body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
    });

    it('of 10 parallel exchanges of one token exactly one succeeds; the rest are 401 LAUNCH_TOKEN_INVALID', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => exchange({ token, device: { id: `parallel-${i}` } })));
      const statuses = results.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 401)).toHaveLength(9);
      for (const res of results.filter((r) => r.status === 401)) expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
      expect(await app.ctx.db.models.LearnerSession.count({ where: { user_id: student.id } })).toBe(1);
      const license = await licenseOf(key, student.id);
      expect(await app.ctx.db.models.DeviceSeat.count({ where: { license_id: license.id } })).toBe(1);
    });

    it('a device takes a seat on the license; the same device refreshes it; a 4th device is 409 conflict', async () => {
      const { key } = await school();
      const student = await person(key);
      const license = await licenseOf(key, student.id);
      const devices = async () => {
        const res = await app.http.get(`/v1/licenses/${license.id}/devices`).set('Authorization', key.auth);
        expect(res.status).toBe(200);
        return res.body.data.items as Array<{ seat_id: string; app: string; device_name: string | null; status: string }>;
      };

      const first = await exchange({
        token: (await launch(key, student.login_email, { app: 'code' })).token,
        device: { id: 'device-1', name: "Ada's laptop" },
      });
      expect(first.status).toBe(200);
      let seats = await devices();
      expect(seats).toHaveLength(1);
      expect(seats[0]).toMatchObject({ app: 'code', device_name: "Ada's laptop", status: 'active' });
      const session = await app.ctx.db.models.LearnerSession.findOne({ where: { token_hash: sha256(first.body.data.session_token) } });
      expect(session?.seat_id).toBe(seats[0]!.seat_id);

      // The same device again: its seat is refreshed, not doubled.
      const again = await exchange({ token: (await launch(key, student.login_email)).token, device: { id: 'device-1' } });
      expect(again.status).toBe(200);
      seats = await devices();
      expect(seats).toHaveLength(1);
      expect(seats[0]).toMatchObject({ app: 'learning', device_name: "Ada's laptop" });

      for (const id of ['device-2', 'device-3']) {
        expect((await exchange({ token: (await launch(key, student.login_email)).token, device: { id } })).status).toBe(200);
      }
      expect(await devices()).toHaveLength(3);

      // Without a device no seat is needed, even with all three taken.
      expect((await exchange({ token: (await launch(key, student.login_email)).token })).status).toBe(200);

      const fourth = await launch(key, student.login_email);
      const refused = await exchange({ token: fourth.token, device: { id: 'device-4' } });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ success: false, error: 'conflict' });
      expect(await devices()).toHaveLength(3);
      // The refused exchange spent the token.
      expect((await exchange({ token: fourth.token, device: { id: 'device-1' } })).status).toBe(401);

      // Freeing a seat lets a new device in.
      const seatId = (await devices())[0]!.seat_id;
      expect((await post(key, `/licenses/${license.id}/devices/${seatId}/revoke`)).status).toBe(200);
      expect((await exchange({ token: (await launch(key, student.login_email)).token, device: { id: 'device-4' } })).status).toBe(200);
    });

    it('a student suspended between mint and exchange is 409 user_inactive, and the token is spent', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      expect((await post(key, `/students/${student.id}/suspend`)).status).toBe(200);
      const res = await exchange({ token, device: { id: 'device-1' } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, error: 'user_inactive' });
      expect(await app.ctx.db.models.LearnerSession.count({ where: { user_id: student.id } })).toBe(0);

      expect((await post(key, `/students/${student.id}/reactivate`)).status).toBe(200);
      const retry = await exchange({ token });
      expect(retry.status).toBe(401);
      expect(retry.body.error).toBe('LAUNCH_TOKEN_INVALID');
    });

    it('a license revoked or expired between mint and exchange is 409 user_inactive', async () => {
      const { key } = await school();
      const revoked = await person(key);
      const revokedLaunch = await launch(key, revoked.login_email);
      const revokedLicense = await licenseOf(key, revoked.id);
      expect((await post(key, `/licenses/${revokedLicense.id}/revoke`)).status).toBe(200);
      const a = await exchange({ token: revokedLaunch.token });
      expect(a.status).toBe(409);
      expect(a.body.error).toBe('user_inactive');

      const expired = await person(key);
      const expiredLaunch = await launch(key, expired.login_email);
      const expiredLicense = await licenseOf(key, expired.id);
      await app.ctx.db.models.License.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: expiredLicense.id } });
      const b = await exchange({ token: expiredLaunch.token, device: { id: 'device-x' } });
      expect(b.status).toBe(409);
      expect(b.body.error).toBe('user_inactive');
    });

    it('an institution suspended between mint and exchange: the token is 401 LAUNCH_TOKEN_INVALID', async () => {
      const { inst, key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      await app.ctx.db.models.Institution.update({ status: 'suspended' }, { where: { id: inst.id } });
      const res = await exchange({ token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('LAUNCH_TOKEN_INVALID');
    });

    it('needs no key, and ignores one', async () => {
      const { key } = await school();
      const student = await person(key);
      const { token } = await launch(key, student.login_email);
      const res = await app.http.post('/v1/sso/exchange').set('Authorization', 'Bearer nonsense').send({ token });
      expect(res.status).toBe(200);
    });
  });
});
