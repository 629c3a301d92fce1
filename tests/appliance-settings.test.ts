// @tier integration
// @databases sqlite, postgres
// The appliance settings of docs/api.md#appliance-settings: public_url (the base of every link)
// and outbound_private_hosts (the allow-list of loopback and campus targets), through the CLI and
// the operator's portal, with the environment winning, and a running server seeing a change at once.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, databaseLocation } from '../server/db/index.js';
import { loadConfig } from '../server/config.js';
import { migrations } from '../server/db/migrations/index.js';
import { defaultPublicUrl, readApplianceSettings } from '../server/settings/appliance-settings.js';
import { addressSuggestions, linkWarning } from '../server/settings/addresses.js';
import { checkEndpointUrl } from '../server/outbound/address.js';
import { makePerson, makeSchool, startTestAppliance, tempDataDirs, type TestAppliance, type TestSchool } from './helpers/appliance.js';
import { listenOnLoopback, type LoopbackReceiver } from './helpers/bundle.js';
import { cliFails, cliOk, runCliCaptured } from './helpers/cli.js';
import { dataDirEnv } from './helpers/postgres.js';
import { createAccount, expectError, MEMBER_PASSWORD, ok, setUpPortal, signIn, type FirstRun } from './helpers/portal.js';

interface Resolved {
  value: string;
  source: 'env' | 'setting' | 'default';
}

const makeDataDir = tempDataDirs('campusbridge-settings-');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('settings through the CLI', () => {
  it('starts from the defaults, stores valid values, refuses invalid ones, and forgets with `default`', async () => {
    const dir = makeDataDir();
    const initial = cliOk<Record<string, Resolved>>(await runCliCaptured(dir, 'settings', 'get'));
    expect(initial).toEqual({
      public_url: { value: 'http://127.0.0.1:4780', source: 'default' },
      outbound_private_hosts: { value: 'off', source: 'default' },
      webhook_private_hosts: { value: 'off', source: 'default' },
    });

    expect(cliOk(await runCliCaptured(dir, 'settings', 'set', 'public_url', 'http://CampusBridge.Riverside.lan:4780/'))).toEqual({
      value: 'http://campusbridge.riverside.lan:4780',
      source: 'setting',
    });
    expect(cliOk(await runCliCaptured(dir, 'settings', 'set', 'outbound_private_hosts', 'Moodle.campus.lan,10.20.0.0/16  127.0.0.1,10.20.0.0/16'))).toEqual({
      value: 'moodle.campus.lan, 10.20.0.0/16, 127.0.0.1',
      source: 'setting',
    });
    // The setting's old name still sets it.
    expect(cliOk(await runCliCaptured(dir, 'settings', 'set', 'webhook_private_hosts', '127.0.0.1, moodle.campus.lan'))).toEqual({
      value: '127.0.0.1, moodle.campus.lan',
      source: 'setting',
    });
    expect(cliOk<Record<string, Resolved>>(await runCliCaptured(dir, 'settings', 'get')).outbound_private_hosts).toEqual({
      value: '127.0.0.1, moodle.campus.lan',
      source: 'setting',
    });

    for (const [name, value] of [
      ['public_url', 'http://0.0.0.0:4780'],
      ['public_url', 'http://school.lan:4780/portal'],
      ['public_url', 'ftp://school.lan'],
      ['public_url', 'not a url'],
      ['outbound_private_hosts', '10.0.0.0/99'],
      ['outbound_private_hosts', 'bad host!'],
      ['nonexistent', 'x'],
    ] as const) {
      expect(cliFails(await runCliCaptured(dir, 'settings', 'set', name, value), 'validation_error'), `${name}=${value}`).toContain(name);
    }
    // A refused value left the stored one alone.
    expect(cliOk<Record<string, Resolved>>(await runCliCaptured(dir, 'settings', 'get')).public_url?.value).toBe('http://campusbridge.riverside.lan:4780');

    expect(cliOk(await runCliCaptured(dir, 'settings', 'set', 'public_url', 'default'))).toEqual({ value: 'http://127.0.0.1:4780', source: 'default' });
  });

  it('lets an environment variable of the same meaning win, and says so', async () => {
    const dir = makeDataDir();
    cliOk(await runCliCaptured(dir, 'settings', 'set', 'public_url', 'http://stored.school.lan:4780'));
    const config = loadConfig({ ...(await dataDirEnv(dir)), PUBLIC_URL: 'https://cb.school.example', OUTBOUND_PRIVATE_HOSTS: '1' });
    const db = await connectDatabase(databaseLocation(config));
    try {
      expect(await readApplianceSettings(db, config)).toEqual({
        public_url: { value: 'https://cb.school.example', source: 'env' },
        outbound_private_hosts: { value: 'all', source: 'env' },
      });
    } finally {
      await db.close();
    }
    // The variable's old name still works; the new one wins when both are set.
    expect(loadConfig({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_HOSTS: '10.0.0.0/8' }).outbound.privateHosts).toBe('10.0.0.0/8');
    expect(loadConfig({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_HOSTS: '1', OUTBOUND_PRIVATE_HOSTS: 'off' }).outbound.privateHosts).toBe('off');
    expect(() => loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'http://0.0.0.0:80' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ DATA_DIR: dir, OUTBOUND_PRIVATE_HOSTS: 'nope!' })).toThrow(/OUTBOUND_PRIVATE_HOSTS/);
    expect(() => loadConfig({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'nope!' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_HOSTS/);
  });

  it('keeps a value stored under the old name when a data folder from before the rename is migrated', async () => {
    const file = path.join(makeDataDir(), 'campusbridge.sqlite');
    const renamed = migrations.findIndex((migration) => migration.name === '20261209000000-outbound-private-hosts');
    const older = await connectDatabase(file, undefined, { migrateTo: migrations[renamed - 1]!.name });
    await older.models.AppSetting.create({ key: 'setting.webhook_private_hosts', value: 'moodle.campus.lan', updated_at: new Date() });
    await older.close();

    const db = await connectDatabase(file);
    try {
      const config = loadConfig({ DATA_DIR: path.dirname(file) });
      expect((await readApplianceSettings(db, config)).outbound_private_hosts).toEqual({ value: 'moodle.campus.lan', source: 'setting' });
    } finally {
      await db.close();
    }
  });

  it('never makes 0.0.0.0 or :: the base of links: the machine’s name instead', () => {
    expect(defaultPublicUrl({ host: '0.0.0.0', port: 4780 })).toBe(`http://${os.hostname().toLowerCase()}:4780`);
    expect(defaultPublicUrl({ host: '::', port: 4780 })).toBe(`http://${os.hostname().toLowerCase()}:4780`);
    expect(defaultPublicUrl({ host: '::1', port: 81 })).toBe('http://[::1]:81');
  });
});

describe('links follow public_url at once', () => {
  let app: TestAppliance;
  let school: TestSchool;
  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeSchool(app);
  });
  afterAll(() => app.close());

  it('a launch_url minted after `cli settings set public_url` starts with the new address, without a restart', async () => {
    const student = await makePerson(app, school.key, 'students', 'Ada Lovelace');
    const mint = async () => {
      const res = await app.http.post('/v1/sso/tokens').set('Authorization', school.key.auth).send({ email: student.login_email, app: 'learning' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.launch_url as string;
    };
    expect(await mint()).toMatch(new RegExp(`^${app.origin}/launch\\?token=`));
    cliOk(await runCliCaptured(app.dataDir, 'settings', 'set', 'public_url', 'http://campusbridge.riverside.lan:4780'));
    expect(await mint()).toMatch(/^http:\/\/campusbridge\.riverside\.lan:4780\/launch\?token=/);
    cliOk(await runCliCaptured(app.dataDir, 'settings', 'set', 'public_url', 'default'));
    // The default is the port actually bound (PORT=0 here), not the configured 0.
    expect(await mint()).toMatch(new RegExp(`^${app.origin}/launch\\?token=`));
  });
});

describe('outbound_private_hosts', () => {
  let app: TestAppliance;
  let school: TestSchool;
  let operator: FirstRun;
  let receiver: LoopbackReceiver;
  const received: string[] = [];

  beforeAll(async () => {
    app = await startTestAppliance({
      config: { outbound: { privateHosts: null }, webhooks: { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 2000 } },
    });
    operator = await setUpPortal(app, { institution: 'Riverside High', admin_email: 'it@riverside.example', admin_password: 'operator password 1' });
    school = await makeSchool(app);
    receiver = await listenOnLoopback(
      http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          received.push(body);
          res.end('ok');
        });
      }),
    );
  });
  afterAll(async () => {
    await receiver.close();
    await app.close();
  });

  const createEndpoint = (url: string) =>
    app.http
      .post('/v1/webhooks/endpoints')
      .set('Authorization', school.key.auth)
      .send({ url, description: 'LMS on this computer', events: ['student.created'] });
  const setHosts = (value: string, name = 'outbound_private_hosts') =>
    operator.agent.put(`/portal/api/operator/settings/${name}`).set('X-CSRF-Token', operator.csrf).send({ value });

  it('refuses a receiver on this computer while off, naming the setting, and accepts it once the operator allows this computer', async () => {
    const refused = await createEndpoint(receiver.url);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('https_required');
    expect(refused.body.message).toContain('outbound_private_hosts');
    const https = await createEndpoint(receiver.url.replace('http:', 'https:'));
    expect(https.body.error).toBe('private_host');
    expect(https.body.message).toContain('outbound_private_hosts');

    // A range that does not hold 127.0.0.1 allows nothing here (set by the setting's old name, still accepted).
    expect(ok(await setHosts('10.20.0.0/16', 'webhook_private_hosts'))).toEqual({ value: '10.20.0.0/16', source: 'setting' });
    const listed = ok(await operator.agent.get('/portal/api/operator/settings')).settings;
    expect(listed.outbound_private_hosts).toEqual({ value: '10.20.0.0/16', source: 'setting' });
    expect(listed.webhook_private_hosts).toEqual(listed.outbound_private_hosts);
    expect((await createEndpoint(receiver.url)).body.error).toBe('private_host');

    expect(ok(await setHosts('localhost, 127.0.0.1, ::1'))).toEqual({ value: 'localhost, 127.0.0.1, ::1', source: 'setting' });
    const accepted = await createEndpoint(receiver.url);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);

    await makePerson(app, school.key, 'students', 'Grace Hopper');
    for (let waited = 0; received.length === 0 && waited < 10_000; waited += 100) await sleep(100);
    expect(received.length).toBe(1);
    expect(JSON.parse(received[0]!)).toMatchObject({ type: 'student.created' });
  });

  it('is checked again at each delivery: turned off, the next attempt fails with private_host and nothing is sent', async () => {
    cliOk(await runCliCaptured(app.dataDir, 'settings', 'set', 'outbound_private_hosts', 'off'));
    const before = received.length;
    await makePerson(app, school.key, 'students', 'Katherine Johnson');
    let attempt: { error: string | null } | undefined;
    for (let waited = 0; !attempt && waited < 10_000; waited += 100) {
      await sleep(100);
      const list = await app.http.get('/v1/webhooks/deliveries').set('Authorization', school.key.auth).query({ limit: 10 });
      const deliveries = list.body.data.items as Array<{ id: string; attempt_count: number; created_at: string }>;
      const latest = deliveries.filter((delivery) => delivery.attempt_count > 0).sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
      if (!latest) continue;
      const detail = await app.http.get(`/v1/webhooks/deliveries/${latest.id}`).set('Authorization', school.key.auth);
      attempt = (detail.body.data.attempts as Array<{ error: string | null }>).find((entry) => entry.error === 'private_host');
    }
    expect(attempt?.error).toBe('private_host');
    expect(received.length).toBe(before);
  });

  it('never opens link-local addresses (cloud metadata) with `all`, unless listed by address', async () => {
    const metadata = 'https://169.254.169.254/latest';
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: { code?: string }) => error.code,
      );
    expect(await code(checkEndpointUrl(metadata, { privateHosts: 'all' }))).toBe('private_host');
    expect(await code(checkEndpointUrl('http://10.1.2.3/hook', { privateHosts: 'all' }))).toBe('accepted');
    expect(await code(checkEndpointUrl('http://10.1.2.3/hook', { privateHosts: '10.0.0.0/8' }))).toBe('accepted');
    expect(await code(checkEndpointUrl('http://10.1.2.3/hook', { privateHosts: '192.168.0.0/16' }))).toBe('private_host');
    expect(await code(checkEndpointUrl(metadata, { privateHosts: '169.254.169.254' }))).toBe('accepted');
  });
});

describe('the operator’s settings page', () => {
  let app: TestAppliance;
  let operator: FirstRun;
  beforeAll(async () => {
    app = await startTestAppliance();
    operator = await setUpPortal(app, { institution: 'Riverside High', admin_email: 'it@riverside.example', admin_password: 'operator password 1' });
  });
  afterAll(() => app.close());

  it('shows each setting with its source, where the server listens and addresses to offer; others may not', async () => {
    const settings = ok(await operator.agent.get('/portal/api/operator/settings'));
    expect(settings.settings.public_url).toEqual({ value: app.origin, source: 'default' });
    expect(settings.listening).toEqual({ host: '127.0.0.1', port: app.port });
    // Listening on 127.0.0.1: no LAN address is offered, and the page says how to serve the network.
    expect(settings.address_suggestions).toEqual([]);
    expect(settings).toMatchObject({ serves_network: false, network_hint: expect.stringContaining('HOST=0.0.0.0') });
    expect(settings.link_warning).toBeNull();

    expectError(
      await operator.agent.put('/portal/api/operator/settings/public_url').set('X-CSRF-Token', operator.csrf).send({ value: 'http://0.0.0.0' }),
      422,
      'validation_error',
    );
    expectError(
      await operator.agent.put('/portal/api/operator/settings/other').set('X-CSRF-Token', operator.csrf).send({ value: 'x' }),
      422,
      'validation_error',
    );
    expectError(await operator.agent.put('/portal/api/operator/settings/public_url').send({ value: 'http://school.lan' }), 403, 'forbidden');

    const admin = await createAccount(app, operator.institutionId, 'admin');
    const signedIn = await signIn(app, admin.email, MEMBER_PASSWORD);
    expectError(await signedIn.agent.get('/portal/api/operator/settings'), 403, 'forbidden');
    expect(ok(await signedIn.agent.get('/portal/api/appliance'))).toEqual({ public_url: app.origin, link_warning: null });
  });

  it('saving a LAN address while the listener is on 127.0.0.1: the settings, every page and the start log warn', async () => {
    const put = (value: string) => operator.agent.put('/portal/api/operator/settings/public_url').set('X-CSRF-Token', operator.csrf).send({ value });
    ok(await put('http://192.168.1.20:4780'));
    const settings = ok(await operator.agent.get('/portal/api/operator/settings'));
    expect(settings.link_warning).toContain('nothing answers there: CampusBridge listens on 127.0.0.1 only');
    expect(ok(await operator.agent.get('/portal/api/appliance')).link_warning).toBe(settings.link_warning);

    // A start on this data folder says so in its log.
    const again = await startTestAppliance({ dataDir: app.dataDir });
    try {
      expect(again.logLines()).toContainEqual(
        expect.objectContaining({ level: 40, public_url: 'http://192.168.1.20:4780', msg: expect.stringContaining('nothing answers there') }),
      );
    } finally {
      await again.stop();
    }

    ok(await put('default'));
    expect(ok(await operator.agent.get('/portal/api/appliance')).link_warning).toBeNull();
  });

  it("warns whenever the links' address is not one the listener answers on", () => {
    expect(linkWarning('http://127.0.0.1:4780', '0.0.0.0')).toContain('only this computer can open');
    expect(linkWarning('http://localhost:4780', '192.168.1.20')).toContain('Settings');
    expect(linkWarning('http://127.0.0.1:4780', '127.0.0.1')).toBeNull();
    expect(linkWarning('http://campusbridge.lan:4780', '0.0.0.0')).toBeNull();
    // Loopback listener, network address: nothing answers there, unless a reverse proxy does.
    expect(linkWarning('http://192.168.1.20:4780', '127.0.0.1')).toContain('nothing answers there');
    expect(linkWarning('http://campusbridge.lan:4780', '127.0.0.1')).toContain('HOST=0.0.0.0');
    expect(linkWarning('https://campusbridge.school.org', '127.0.0.1')).toBeNull();
    expect(linkWarning('http://campusbridge.lan', '127.0.0.1', { behindProxy: true })).toBeNull();
    // Listening on one LAN address, links at another.
    expect(linkWarning('http://192.168.1.30:4780', '192.168.1.20')).toContain('listens on 192.168.1.20 only');
    expect(linkWarning('http://192.168.1.20:4780', '192.168.1.20')).toBeNull();
  });

  it('offers only addresses the listener answers on: all on 0.0.0.0, that one on a LAN address, none on loopback', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '', cidr: null }],
      eth0: [
        { address: '192.168.1.20', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '', cidr: null },
        { address: '10.0.0.5', family: 'IPv4', internal: false, netmask: '255.0.0.0', mac: '', cidr: null },
      ],
    } satisfies NodeJS.Dict<os.NetworkInterfaceInfo[]>;
    expect(addressSuggestions(4780, '127.0.0.1', interfaces, 'Office-PC')).toEqual([]);
    expect(addressSuggestions(4780, '192.168.1.20', interfaces, 'Office-PC')).toEqual([{ url: 'http://192.168.1.20:4780', label: 'eth0 (192.168.1.20)' }]);
    expect(addressSuggestions(4780, '0.0.0.0', interfaces, 'Office-PC').map((suggestion) => suggestion.url)).toEqual([
      'http://office-pc:4780',
      'http://192.168.1.20:4780',
      'http://10.0.0.5:4780',
    ]);
  });

  it('offers the host name and LAN addresses, never loopback or link-local ones', () => {
    const suggestions = addressSuggestions(
      4780,
      '0.0.0.0',
      {
        lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '', cidr: null }],
        eth0: [
          { address: '192.168.1.20', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '', cidr: null },
          { address: 'fe80::1', family: 'IPv6', internal: false, netmask: 'ffff::', mac: '', cidr: null, scopeid: 2 },
        ],
      },
      'Office-PC',
    );
    expect(suggestions).toEqual([
      { url: 'http://office-pc:4780', label: "This computer's name" },
      { url: 'http://192.168.1.20:4780', label: 'eth0 (192.168.1.20)' },
    ]);
  });
});
