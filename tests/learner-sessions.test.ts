// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';

describe('learner sessions end with the license or seat they rest on', () => {
  let app: TestAppliance;
  let school: TestInstitution;
  let key: TestKey;

  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeInstitution(app);
    key = await makeKey(app, school);
  });
  afterAll(() => app.close());

  async function signIn(deviceId: string) {
    const student = (
      await app.http
        .post('/v1/students')
        .set('Authorization', key.auth)
        .send({ full_name: `Learner ${deviceId}` })
    ).body.data;
    const minted = await app.http.post('/v1/sso/tokens').set('Authorization', key.auth).send({ email: student.login_email, app: 'learning' });
    const token = new URL(minted.body.data.launch_url).searchParams.get('token');
    const exchanged = await app.http.post('/v1/sso/exchange').send({ token, device: { id: deviceId, name: 'Laptop' } });
    expect(exchanged.status).toBe(200);
    const session = `Bearer ${exchanged.body.data.session_token}`;
    expect((await app.http.get('/v1/app/me').set('Authorization', session)).status).toBe(200);
    const license = (await app.http.get(`/v1/licenses?user_id=${student.id}`).set('Authorization', key.auth)).body.data.items[0];
    return { student, session, license };
  }

  it('a revoked license ends the session on its next request', async () => {
    const { session, license } = await signIn('device-license');
    expect((await app.http.post(`/v1/licenses/${license.id}/revoke`).set('Authorization', key.auth).send({})).status).toBe(200);
    const res = await app.http.get('/v1/app/me').set('Authorization', session);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('a revoked device seat ends the session that took it', async () => {
    const { session, license } = await signIn('device-seat');
    const seats = (await app.http.get(`/v1/licenses/${license.id}/devices`).set('Authorization', key.auth)).body.data.items;
    expect(seats).toHaveLength(1);
    await app.http.post(`/v1/licenses/${license.id}/devices/${seats[0].seat_id}/revoke`).set('Authorization', key.auth).send({});
    expect((await app.http.get('/v1/app/me').set('Authorization', session)).status).toBe(401);
  });

  it('the daily job deletes launch tokens and sessions a day past expiry, and keeps live ones', async () => {
    const { student, session } = await signIn('device-prune');
    const { LearnerSession, LaunchToken } = app.ctx.db.models;
    const old = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await LaunchToken.update({ expires_at: old }, { where: { user_id: student.id } });
    const before = await LearnerSession.count();
    await LearnerSession.create({
      id: 'ses_expiredtestsession00000',
      institution_id: school.id,
      token_hash: 'f'.repeat(64),
      user_id: student.id,
      app: 'learning',
      seat_id: null,
      expires_at: old,
      revoked_at: null,
      created_at: old,
    });
    const result = await app.scheduler.runNow('prune-sessions');
    expect(result).toEqual({ launch_tokens: 1, sessions: 1, portal_sessions: 0, idempotency_keys: 0 });
    expect(await LearnerSession.count()).toBe(before);
    expect(await LaunchToken.count({ where: { user_id: student.id } })).toBe(0);
    expect((await app.http.get('/v1/app/me').set('Authorization', session)).status).toBe(200);
  });
});
