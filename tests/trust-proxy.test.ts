// @tier integration
// @databases sqlite: which request headers are believed; nothing of it reaches the database
/**
 * TRUST_PROXY: behind a reverse proxy the operator names, the client's address and scheme come
 * from X-Forwarded-For and X-Forwarded-Proto; without it those headers change nothing. Every
 * request goes to 127.0.0.1; the forwarded addresses are only header text (documentation ranges).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../server/config.js';
import { makeSchool, startTestAppliance, type TestAppliance } from './helpers/appliance.js';
import { setUpPortal } from './helpers/portal.js';

const ADMIN = { institution: 'Harbour School', admin_email: 'admin@harbour.test', admin_password: 'harbour admin password' };
const CLIENT = '203.0.113.7';
const OWNER = '198.51.100.9';

const configWith = (value: string | undefined) =>
  loadConfig({ DATA_DIR: '/tmp/campusbridge-trust-proxy-config', ...(value === undefined ? {} : { TRUST_PROXY: value }) });

describe('TRUST_PROXY', () => {
  it('takes addresses, CIDR ranges, Express’s named ranges or a hop count; refuses trusting everyone and what is not an address', () => {
    expect(configWith(undefined).trustProxy).toBe(false);
    expect(configWith('off').trustProxy).toBe(false);
    expect(configWith('loopback, 10.0.0.0/8, 192.0.2.4, fd00::/8').trustProxy).toEqual(['loopback', '10.0.0.0/8', '192.0.2.4', 'fd00::/8']);
    expect(configWith('2').trustProxy).toBe(2);
    expect(() => configWith('true')).toThrow(ConfigError);
    expect(() => configWith('true')).toThrow(/trusting every sender is refused/);
    expect(() => configWith('loopback, proxy.campus.lan')).toThrow(
      /TRUST_PROXY: not an address, CIDR range, loopback, linklocal or uniquelocal: proxy\.campus\.lan/,
    );
    expect(() => configWith('11')).toThrow(/1 to 10/);
    // Every sender by another name: refused in words, not a stack trace at start.
    expect(() => configWith('0.0.0.0/0')).toThrow(/too wide to name a proxy: 0\.0\.0\.0\/0/);
    expect(() => configWith('0.0.0.0/1, 128.0.0.0/1')).toThrow(/too wide to name a proxy: 0\.0\.0\.0\/1, 128\.0\.0\.0\/1/);
    expect(() => configWith('::/0')).toThrow(/too wide/);
    expect(configWith('10.0.0.0/8, fc00::/7').trustProxy).toEqual(['10.0.0.0/8', 'fc00::/7']);
  });

  describe('unset: forwarded headers change nothing', () => {
    let app: TestAppliance;
    beforeAll(async () => {
      app = await startTestAppliance();
      await setUpPortal(app, ADMIN);
    });
    afterAll(() => app.close());

    it('a key’s last use is the connection’s address, and failures sent with different X-Forwarded-For still count against one address', async () => {
      const school = await makeSchool(app);
      expect((await app.http.get('/v1/me').set('Authorization', school.key.auth).set('X-Forwarded-For', CLIENT)).status).toBe(200);
      await expect.poll(async () => (await app.ctx.db.models.ApiKey.findByPk(school.key.id))?.last_used_ip).toMatch(/127\.0\.0\.1$/);

      for (let i = 0; i < 5; i += 1) {
        const res = await app.http
          .post('/portal/api/login')
          .set('X-Forwarded-For', `192.0.2.${i + 1}`)
          .send({ email: ADMIN.admin_email, password: `guess ${i}` });
        expect(res.status).toBe(401);
      }
      const sixth = await app.http.post('/portal/api/login').set('X-Forwarded-For', OWNER).send({ email: ADMIN.admin_email, password: ADMIN.admin_password });
      expect(sixth.status).toBe(429);
    });
  });

  describe('loopback: the proxy on this computer is trusted', () => {
    let app: TestAppliance;
    beforeAll(async () => {
      app = await startTestAppliance({ config: { trustProxy: ['loopback'] } });
      await setUpPortal(app, ADMIN);
    });
    afterAll(() => app.close());

    it('a key’s last use is the forwarded client address', async () => {
      const school = await makeSchool(app);
      expect((await app.http.get('/v1/me').set('Authorization', school.key.auth).set('X-Forwarded-For', CLIENT)).status).toBe(200);
      await expect.poll(async () => (await app.ctx.db.models.ApiKey.findByPk(school.key.id))?.last_used_ip).toBe(CLIENT);
    });

    it('a guesser behind the proxy is held back; the owner behind the same proxy signs in', async () => {
      for (let i = 0; i < 5; i += 1) {
        const res = await app.http
          .post('/portal/api/login')
          .set('X-Forwarded-For', CLIENT)
          .send({ email: ADMIN.admin_email, password: `guess ${i}` });
        expect(res.status).toBe(401);
      }
      const guesser = await app.http
        .post('/portal/api/login')
        .set('X-Forwarded-For', CLIENT)
        .send({ email: ADMIN.admin_email, password: ADMIN.admin_password });
      expect([guesser.status, guesser.body.error]).toEqual([429, 'rate_limited']);
      const owner = await app.http.post('/portal/api/login').set('X-Forwarded-For', OWNER).send({ email: ADMIN.admin_email, password: ADMIN.admin_password });
      expect(owner.status).toBe(200);
      expect(owner.get('Set-Cookie')?.find((line) => line.startsWith('cb_portal='))).not.toMatch(/Secure/i);
    });

    it('HTTPS at the proxy (X-Forwarded-Proto: https) makes the session cookie Secure', async () => {
      const res = await app.http
        .post('/portal/api/login')
        .set('X-Forwarded-For', OWNER)
        .set('X-Forwarded-Proto', 'https')
        .send({ email: ADMIN.admin_email, password: ADMIN.admin_password });
      expect(res.status).toBe(200);
      expect(res.get('Set-Cookie')?.find((line) => line.startsWith('cb_portal='))).toMatch(/; Secure/i);
    });
  });
});
