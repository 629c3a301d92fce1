// @tier integration
// @databases sqlite, postgres
// OneRoster roster sync end to end: a provider written from the 1EdTech specifications
// (tests/helpers/oneroster-provider.ts) on 127.0.0.1, the appliance's CLI connecting and syncing,
// and what the sync did read back through /v1 as an integration would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPlannedPeople, PEOPLE_PER_TRANSACTION } from '../server/commands/oneroster/apply.js';
import { OneRosterClient } from '../server/commands/oneroster/client.js';
import { planSync } from '../server/commands/oneroster/plan.js';
import { runScheduledSyncs } from '../server/commands/oneroster/schedule.js';
import { saveConnection, sisSettings } from '../server/commands/oneroster/connections.js';
import { SYNC_HEARTBEAT_MS, SYNC_STOPPED_AFTER_MS } from '../server/commands/oneroster/sync.js';
import { writeApplianceSetting } from '../server/settings/appliance-settings.js';
import { makeSchool, readEvents, requestsAs, startTestAppliance, type TestAppliance, type TestKey, type TestSchool } from './helpers/appliance.js';
import { runCli } from '../server/cli/program.js';
import { cliFails, cliOk, type CliResult } from './helpers/cli.js';
import { OneRosterProvider, seedSchool, type SyncOutput } from './helpers/oneroster-provider.js';
import { expectError, institutionApi, ok, portalRequests, signedInMember } from './helpers/portal.js';
import { onPostgres } from './helpers/postgres.js';
import { waitFor } from './helpers/wait.js';

let app: TestAppliance;
const api = requestsAs(() => app);
const providers: OneRosterProvider[] = [];

beforeAll(async () => {
  app = await startTestAppliance();
  // Tests reach the provider on 127.0.0.1: allowed the way an operator allows a campus SIS.
  await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
});
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  await app?.close();
});

async function startProvider(options: ConstructorParameters<typeof OneRosterProvider>[0] = {}) {
  const provider = await new OneRosterProvider(options).start();
  providers.push(provider);
  return provider;
}

/** The command line on the appliance's database, with extra environment variables (the client secret's). */
async function cliWith(extraEnv: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const env = { DATA_DIR: app.dataDir, ...(app.ctx.config.databaseUrl ? { DATABASE_URL: app.ctx.config.databaseUrl } : {}), ...extraEnv };
  const code = await runCli(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}
const cli = (...argv: string[]) => cliWith({}, ...argv);

async function connect(school: TestSchool, provider: OneRosterProvider, extra: string[] = []) {
  return cliWith(
    { OR_TEST_SECRET: provider.clientSecret },
    'oneroster',
    'connect',
    '--institution',
    school.inst.id,
    '--url',
    provider.url,
    '--client-id',
    provider.clientId,
    '--client-secret-env',
    'OR_TEST_SECRET',
    '--token-url',
    provider.tokenUrl,
    ...extra,
  );
}

/** A school connected (straight through saveConnection) to a provider of 3 students, a teacher and a class. */
async function smallConnectedSchool() {
  const school = await makeSchool(app);
  const provider = await startProvider();
  seedSchool(provider, { students: 3, teachers: 1, classes: 1 });
  const connection = await saveConnection(school.inst.tenant, {
    url: provider.url,
    token_url: provider.tokenUrl,
    client_id: provider.clientId,
    client_secret: provider.clientSecret,
  });
  return { school, provider, connection };
}

const sync = async (school: TestSchool, ...flags: string[]) => cliOk<SyncOutput>(await cli('oneroster', 'sync', '--institution', school.inst.id, ...flags));

async function total(school: TestSchool, path: string, query: Record<string, string | number> = {}): Promise<number> {
  const res = await api.get(school.key, path, { limit: 1, ...query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.total as number;
}

async function studentByIdentifier(school: TestSchool, identifier: string) {
  const res = await api.get(school.key, '/students', { student_id: identifier });
  expect(res.status).toBe(200);
  return res.body.data.items[0] as { id: string; full_name: string; status: string } | undefined;
}

describe('a sync applied in bounded transactions', () => {
  it('a sync cut short after its first transaction of new people: the next one makes the rest, none twice, all linked', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider({ maxPageSize: 500 });
    seedSchool(provider, { students: 600, teachers: 20, classes: 20 });
    expect((await connect(school, provider)).code).toBe(0);

    // What a sync does up to its first transaction of new people, then stops (the process died).
    const tenant = school.inst.tenant;
    const connection = (await tenant.onerosterConnections.findAll())[0]!;
    const roster = await new OneRosterClient(await sisSettings(app.ctx.db, app.ctx.config, tenant, connection)).fetchRoster(null);
    const plan = await tenant.inTransaction((tx) => planSync(tx, connection, roster, 'full'));
    expect(plan.createPeople).toHaveLength(620);
    await tenant.inTransaction((tx) => createPlannedPeople(tx, connection, plan, 0, PEOPLE_PER_TRANSACTION, new Map()));
    const made = await tenant.people.count();
    expect(made).toBe(PEOPLE_PER_TRANSACTION);

    const done = await sync(school, '--full');
    expect(done).toMatchObject({ outcome: 'applied', created: { groups: 20 }, memberships: { added: 600 } });
    expect(done.created.students + done.created.faculty).toBe(620 - made);
    expect(await total(school, '/students')).toBe(600);
    expect(await total(school, '/faculty')).toBe(20);
    expect(await tenant.onerosterLinks.count({ where: { kind: 'user' } })).toBe(620);
    // Nothing left to do.
    expect(await sync(school, '--full')).toMatchObject({ outcome: 'applied', created: { students: 0, faculty: 0, groups: 0 }, memberships: { added: 0 } });
  }, 120_000);
});

describe('a OneRoster 1.2 school of 2,000 users and 80 classes', () => {
  let school: TestSchool & { eventsKey: TestKey };
  let provider: OneRosterProvider;

  beforeAll(async () => {
    school = await makeSchool(app, { eventsKey: true });
    provider = await startProvider({ maxPageSize: 300 });
    seedSchool(provider, { students: 1920, teachers: 80, classes: 80 });
  });

  it('connects with the secret read from an environment variable and sealed at rest', async () => {
    const connected = cliOk<{ id: string; url: string }>(await connect(school, provider));
    expect(connected.id).toMatch(/^orc_/);
    expect(connected.url).toBe(provider.url);
    const row = await app.ctx.db.models.OneRosterConnection.findByPk(connected.id);
    expect(row!.client_secret_sealed).not.toContain(provider.clientSecret);
    expect(row!.client_secret_sealed.startsWith('v1.')).toBe(true);
    // A missing variable is refused before anything is stored.
    cliFails(
      await cli('oneroster', 'connect', '--institution', school.inst.id, '--url', provider.url, '--client-id', 'x', '--client-secret-env', 'OR_NOT_SET'),
      'validation_error',
    );
  });

  it('a dry run shows what would be created and changes nothing', async () => {
    const planned = await sync(school, '--dry-run');
    expect(planned).toMatchObject({
      outcome: 'dry_run',
      dry_run: true,
      kind: 'full',
      created: { students: 1920, faculty: 80, groups: 80 },
      memberships: { added: 1920, removed: 0 },
      held_back: false,
    });
    expect(await total(school, '/students')).toBe(0);
    expect(await total(school, '/faculty')).toBe(0);
    expect(await total(school, '/groups')).toBe(0);
  });

  it('syncs every page of users, classes and enrollments', async () => {
    const before = provider.requests.length;
    const started = Date.now();
    const done = await sync(school);
    const seconds = (Date.now() - started) / 1000;
    expect(done).toMatchObject({
      outcome: 'applied',
      kind: 'full',
      created: { students: 1920, faculty: 80, groups: 80 },
      suspended: { students: 0, faculty: 0, groups: 0 },
      memberships: { added: 1920, removed: 0 },
      held_back: false,
      reason: null,
    });
    expect(seconds).toBeLessThan(60);
    expect(await total(school, '/students', { status: 'active' })).toBe(1920);
    expect(await total(school, '/faculty')).toBe(80);
    expect(await total(school, '/groups')).toBe(80);

    // Paging: the provider caps pages at 300, so 1,920 + 80 + 1 users took 7 pages of users.
    const userPages = provider.requests.slice(before).filter((request) => request.path.endsWith('/users'));
    expect(userPages.map((request) => request.query.get('offset'))).toEqual(['0', '300', '600', '900', '1200', '1500', '1800']);
    expect(userPages.every((request) => request.query.get('limit') === '500')).toBe(true);
    expect(provider.tokenAuth.at(-1)).toBe('basic');

    // A class is a group with its primary teacher and its students.
    const student = await studentByIdentifier(school, 'S10081'); // s-81: class c-1
    const listed = await api.get(school.key, '/groups', { limit: 200 });
    const group = (listed.body.data.items as Array<{ id: string; name: string; student_count: number; faculty_id: string }>).find(
      (item) => item.name === 'Class 1',
    )!;
    expect(group.student_count).toBe(24);
    const detail = await api.get(school.key, `/groups/${group.id}`);
    expect((detail.body.data.members as Array<{ id: string }>).map((member) => member.id)).toContain(student!.id);
    const teacher = await api.get(school.key, `/faculty/${group.faculty_id}`);
    expect(teacher.body.data).toMatchObject({ faculty_id: 'T1001', full_name: 'Teacher1 Smith' });

    // The same events as API calls: webhooks fire for synced people.
    expect((await readEvents(app, school.eventsKey, 'group.created')).length).toBe(80);

    // A second full sync with nothing changed changes nothing.
    const again = await sync(school, '--full');
    expect(again).toMatchObject({
      outcome: 'applied',
      created: { students: 0, faculty: 0, groups: 0 },
      updated: { students: 0, faculty: 0, groups: 0 },
      memberships: { added: 0, removed: 0 },
    });
  }, 120_000);

  it('a delta sync asks for what changed after the last one and applies only that', async () => {
    const later = '2026-02-01T09:00:00.000Z';
    const renamed = provider.users.find((user) => user.sourcedId === 's-5')!;
    Object.assign(renamed, { givenName: 'Renamed', dateLastModified: later });
    Object.assign(
      provider.users.find((user) => user.sourcedId === 's-6')!,
      { status: 'tobedeleted', dateLastModified: later },
    );
    provider.users.push({
      sourcedId: 's-new',
      status: 'active',
      dateLastModified: later,
      enabledUser: true,
      givenName: 'Newcomer',
      familyName: 'Jones',
      email: 'newcomer@riverside.example',
      identifier: 'S99999',
      role: 'student',
    });
    provider.enrollments.push({
      sourcedId: 'e-s-new',
      status: 'active',
      dateLastModified: later,
      user: 's-new',
      class: 'c-0',
      role: 'student',
      primary: false,
    });
    const before = provider.requests.length;

    const delta = await sync(school);
    expect(delta).toMatchObject({
      outcome: 'applied',
      kind: 'delta',
      created: { students: 1, faculty: 0, groups: 0 },
      updated: { students: 1, faculty: 0, groups: 0 },
      suspended: { students: 1, faculty: 0, groups: 0 },
      memberships: { added: 1, removed: 0 },
    });
    const asked = provider.requests.slice(before).filter((request) => request.path.endsWith('/users'));
    expect(asked[0]!.query.get('filter')).toBe("dateLastModified>'2026-01-10T08:00:00.000Z'");

    expect((await studentByIdentifier(school, 'S10005'))!.full_name).toBe('Renamed Jones');
    expect((await studentByIdentifier(school, 'S10006'))!.status).toBe('suspended');
    expect((await studentByIdentifier(school, 'S99999'))!.full_name).toBe('Newcomer Jones');
    expect(await total(school, '/students', { status: 'active' })).toBe(1920);
    expect((await readEvents(app, school.eventsKey, 'student.suspended')).length).toBe(1);
  });

  it('holds back a sync that would suspend half a class, changing nothing, until confirmed', async () => {
    // Class c-2 has 24 students (s-2, s-82, …): 12 of them leave the SIS.
    const later = '2026-03-01T09:00:00.000Z';
    const leaving = provider.users.filter((user) => user.role === 'student' && Number(user.sourcedId.slice(2)) % 80 === 2).slice(0, 12);
    expect(leaving).toHaveLength(12);
    for (const user of leaving) Object.assign(user, { enabledUser: false, dateLastModified: later });

    const held = await sync(school);
    expect(held).toMatchObject({ outcome: 'held_back', held_back: true, suspended: { students: 12 } });
    expect(held.reason).toContain('Class 2');
    expect(held.reason).toContain('12 of the 24');
    expect(await total(school, '/students', { status: 'suspended' })).toBe(1);

    // The dry run says the same, and also changes nothing.
    const planned = await sync(school, '--dry-run');
    expect(planned.outcome).toBe('dry_run');
    expect(planned.reason).toContain('held back');
    expect(await total(school, '/students', { status: 'suspended' })).toBe(1);

    const confirmed = await sync(school, '--confirm');
    expect(confirmed).toMatchObject({ outcome: 'applied', held_back: false, suspended: { students: 12 } });
    expect(await total(school, '/students', { status: 'suspended' })).toBe(13);
  });

  it('a full sync suspends people the SIS no longer lists and retires classes it dropped', async () => {
    provider.users = provider.users.filter((user) => user.sourcedId !== 's-100');
    provider.classes = provider.classes.filter((row) => row.sourcedId !== 'c-79');
    provider.enrollments = provider.enrollments.filter((row) => row.class !== 'c-79' && row.user !== 's-100');
    const done = await sync(school, '--full');
    // c-79's 24 students are unenrolled (s-100 is in c-20), s-100 suspended.
    expect(done).toMatchObject({ outcome: 'applied', kind: 'full', suspended: { students: 1, groups: 1 }, memberships: { removed: 25 } });
    expect((await studentByIdentifier(school, 'S10100'))!.status).toBe('suspended');
    expect(await total(school, '/groups')).toBe(80);
  });

  it('every run is recorded with its outcome', async () => {
    const runs = await app.ctx.db.models.OneRosterRun.findAll({ where: { institution_id: school.inst.id }, order: [['started_at', 'ASC']] });
    expect(runs.map((run) => run.outcome)).toEqual(['dry_run', 'applied', 'applied', 'applied', 'held_back', 'dry_run', 'applied', 'applied']);
    expect(runs.every((run) => run.finished_at !== null)).toBe(true);
  });
});

describe('other providers and failures', () => {
  it('syncs from a OneRoster 1.1 service with the client authenticated in the form body', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider({ version: '1.1' });
    seedSchool(provider, { students: 30, teachers: 3, classes: 3 });
    cliOk(await connect(school, provider, ['--version', '1.1', '--auth', 'form']));
    const done = await sync(school);
    expect(done).toMatchObject({ outcome: 'applied', created: { students: 30, faculty: 3, groups: 3 }, memberships: { added: 30 } });
    expect(provider.tokenAuth).toEqual(['form']);
    expect(provider.requests.some((request) => request.path === '/ims/oneroster/v1p1/users')).toBe(true);
    expect(await total(school, '/students')).toBe(30);
  });

  it('bad credentials give a failed run that says so, and nothing changes', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider();
    seedSchool(provider, { students: 5, teachers: 1, classes: 1 });
    const connected = await cliWith(
      { OR_WRONG: 'not-the-secret' },
      'oneroster',
      'connect',
      '--institution',
      school.inst.id,
      '--url',
      provider.url,
      '--client-id',
      provider.clientId,
      '--client-secret-env',
      'OR_WRONG',
      '--token-url',
      provider.tokenUrl,
    );
    cliOk(connected);
    const failed = await sync(school);
    expect(failed.outcome).toBe('failed');
    expect(failed.reason).toContain('invalid_client');
    expect(await total(school, '/students')).toBe(0);

    // The right secret with a scope the SIS does not grant: refused as well, saying which.
    cliOk(await connect(school, provider, ['--scopes', 'https://purl.imsglobal.org/spec/or/v1p2/scope/gradebook.readonly']));
    const unscoped = await sync(school);
    expect(unscoped.outcome).toBe('failed');
    expect(unscoped.reason).toContain('invalid_scope');
    cliOk(await connect(school, provider));
    expect((await sync(school)).outcome).toBe('applied');
    expect(await total(school, '/students')).toBe(5);
  });

  it('a SIS failing part way through leaves nothing half-written, and the run says where it failed', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider({ maxPageSize: 10 });
    seedSchool(provider, { students: 40, teachers: 2, classes: 2 });
    cliOk(await connect(school, provider));
    provider.failWhen = (request) => request.path.endsWith('/enrollments') && request.query.get('offset') === '20';
    const failed = await sync(school);
    expect(failed).toMatchObject({ outcome: 'failed', held_back: false });
    expect(failed.reason).toBe('The SIS answered /enrollments with HTTP 503.');
    expect(await total(school, '/students')).toBe(0);
    expect(await total(school, '/groups')).toBe(0);
    expect(await app.ctx.db.models.OneRosterLink.count({ where: { institution_id: school.inst.id } })).toBe(0);
    provider.failWhen = null;
    expect(await sync(school)).toMatchObject({ outcome: 'applied', kind: 'full', created: { students: 40, faculty: 2, groups: 2 } });
  });

  // The budget is the client's, before any write: the PostgreSQL pass would prove nothing more.
  it.skipIf(onPostgres())(
    'a SIS serving 20 MB pages for ever: the sync fails in words within its budget, memory stays bounded, /healthz answers throughout',
    async () => {
      const school = await makeSchool(app);
      // 20 MB of well-formed users per page, and a total that is never reached; 40 MB for one path.
      const user = (i: number) => ({
        sourcedId: `u-${i}`,
        status: 'active',
        roles: [{ roleType: 'primary', role: 'student' }],
        givenName: 'A'.repeat(900),
        familyName: `F${i}`,
      });
      const pageOf = (bytes: number) => {
        const users = [];
        for (let i = 0, size = 12; size < bytes; i++) {
          const entry = JSON.stringify(user(i));
          users.push(entry);
          size += entry.length + 1;
        }
        return Buffer.from(`{"users":[${users.join(',')}]}`);
      };
      const page = pageOf(20 * 1024 * 1024);
      const hugePage = pageOf(40 * 1024 * 1024);
      let pagesServed = 0;
      const sis = http.createServer((req, res) => {
        req.resume();
        if (req.method === 'POST')
          return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"access_token":"t","token_type":"bearer","expires_in":3600}');
        pagesServed++;
        const body = req.url!.includes('/huge/') ? hugePage : page;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'X-Total-Count': '100000000' }).end(body);
      });
      await new Promise<void>((resolve) => sis.listen(0, '127.0.0.1', () => resolve()));
      const base = `http://127.0.0.1:${(sis.address() as AddressInfo).port}`;
      try {
        const connectTo = (url: string) =>
          saveConnection(school.inst.tenant, { url, token_url: `${base}/token`, client_id: 'c', client_secret: 's' }).then(() => undefined);
        await connectTo(base);

        // /healthz every 100 ms and the process's memory, while the sync runs.
        const health: number[] = [];
        let peakRss = process.memoryUsage().rss;
        const startRss = peakRss;
        const watching = setInterval(() => {
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
          void fetch(`${app.origin}/healthz`).then(
            (res) => health.push(res.status),
            () => health.push(0),
          );
        }, 100);
        let failed: SyncOutput;
        try {
          failed = await sync(school);
        } finally {
          clearInterval(watching);
        }
        console.log(
          `oneroster budget: ${pagesServed} pages of ${page.length >> 20} MB, RSS ${startRss >> 20} → ${peakRss >> 20} MB, ${health.length} /healthz answers`,
        );
        expect(failed).toMatchObject({ outcome: 'failed' });
        expect(failed.reason).toMatch(/^The SIS sent more than 256 MB for one sync \(at \/users\)/);
        expect(pagesServed).toBeLessThanOrEqual(1 + Math.ceil((256 * 1024 * 1024) / page.length));
        expect(health.length).toBeGreaterThan(0);
        expect(health.filter((status) => status !== 200)).toEqual([]);
        // 270 MB read; what the sync holds is the users' few fields, not the pages.
        expect(peakRss - startRss, `RSS ${startRss >> 20} → ${peakRss >> 20} MB`).toBeLessThan(700 * 1024 * 1024);
        expect(await total(school, '/students')).toBe(0);

        // A page over 32 MB is refused as it arrives.
        await connectTo(`${base}/huge`);
        const refused = await sync(school);
        expect(refused).toMatchObject({ outcome: 'failed', reason: 'The SIS answered /huge/ims/oneroster/rostering/v1p2/users with more than 32 MB.' });
      } finally {
        await new Promise<void>((resolve) => sis.close(() => resolve()));
      }
    },
  );

  it('the CLI refuses an unknown institution, and a sync before any connection, with not_found', async () => {
    const school = await makeSchool(app);
    cliFails(await cli('oneroster', 'sync', '--institution', 'inst_nope'), 'not_found');
    expect(cliFails(await cli('oneroster', 'sync', '--institution', school.inst.id), 'not_found')).toContain('connect one first');
    cliFails(
      await cliWith(
        { S: 'x' },
        'oneroster',
        'connect',
        '--institution',
        school.inst.id,
        '--url',
        'ftp://sis.example',
        '--client-id',
        'c',
        '--client-secret-env',
        'S',
      ),
      'validation_error',
    );
    expect(await app.ctx.db.models.OneRosterConnection.count({ where: { institution_id: school.inst.id } })).toBe(0);
  });

  it('one sync at a time: another while one runs is refused with conflict, and a run cut short long ago does not block', async () => {
    const { school, connection } = await smallConnectedSchool();
    const running = {
      institution_id: school.inst.id,
      connection_id: connection.id,
      trigger: 'portal' as const,
      kind: 'full' as const,
      dry_run: false,
      outcome: 'running' as const,
      counts: null,
      reason: null,
      finished_at: null,
    };
    await app.ctx.db.models.OneRosterRun.create({ ...running, id: 'orr_running_now', started_at: new Date(), heartbeat_at: new Date() });
    cliFails(await cli('oneroster', 'sync', '--institution', school.inst.id), 'conflict');
    expect(await total(school, '/students')).toBe(0);
    const longAgo = new Date(Date.now() - 60 * 60 * 1000);
    await app.ctx.db.models.OneRosterRun.update({ started_at: longAgo, heartbeat_at: longAgo }, { where: { id: 'orr_running_now' } });
    expect((await sync(school)).outcome).toBe('applied');
  });

  it('a sync whose process stopped (no heartbeat for a minute) is recorded as cut short, and the next one runs at once', async () => {
    const { school, connection } = await smallConnectedSchool();
    // What a crash three minutes ago leaves: a run marked running, its last heartbeat 65 s old.
    await app.ctx.db.models.OneRosterRun.create({
      id: 'orr_crashed_at_3',
      institution_id: school.inst.id,
      connection_id: connection.id,
      trigger: 'scheduled',
      kind: 'full',
      dry_run: false,
      outcome: 'running',
      counts: null,
      reason: null,
      started_at: new Date(Date.now() - 3 * 60_000),
      heartbeat_at: new Date(Date.now() - (SYNC_STOPPED_AFTER_MS + 5_000)),
      finished_at: null,
    });
    expect((await sync(school)).outcome).toBe('applied');
    const crashed = await app.ctx.db.models.OneRosterRun.findByPk('orr_crashed_at_3');
    expect(crashed).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/^Cut short: the process running this sync stopped/) });
    expect(crashed!.finished_at).not.toBeNull();
    // A run that beats is alive, however long it has run.
    await app.ctx.db.models.OneRosterRun.update(
      { outcome: 'running', started_at: new Date(Date.now() - 2 * 60 * 60_000), heartbeat_at: new Date(), finished_at: null },
      { where: { id: 'orr_crashed_at_3' } },
    );
    cliFails(await cli('oneroster', 'sync', '--institution', school.inst.id), 'conflict');
  });

  it('a running sync writes its heartbeat', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { school, provider } = await smallConnectedSchool();
      let beatsSeen = 0;
      // The SIS answers its first page once two heartbeats have been written.
      provider.beforeAnswer = async () => {
        const [run] = await school.inst.tenant.onerosterRuns.findAll({ where: { outcome: 'running' } });
        const first = run!.heartbeat_at!.getTime();
        await vi.advanceTimersByTimeAsync(2 * SYNC_HEARTBEAT_MS);
        await waitFor(async () => ((await app.ctx.db.models.OneRosterRun.findByPk(run!.id))!.heartbeat_at!.getTime() > first ? true : null), 'a heartbeat');
        beatsSeen++;
        provider.beforeAnswer = null;
      };
      expect((await sync(school)).outcome).toBe('applied');
      expect(beatsSeen).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a SIS on a private address unless the outbound_private_hosts setting allows it', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider();
    seedSchool(provider, { students: 2, teachers: 1, classes: 1 });
    cliOk(await connect(school, provider));
    await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'off');
    try {
      const refused = await sync(school);
      expect(refused.outcome).toBe('failed');
      expect(refused.reason).toContain('outbound_private_hosts');
      expect(provider.requests).toHaveLength(0);
    } finally {
      await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
    }
  });

  it('runs scheduled syncs when due, and records a held-back scheduled run without changing anything', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider();
    seedSchool(provider, { students: 40, teachers: 2, classes: 2 });
    await saveConnection(school.inst.tenant, {
      url: provider.url,
      token_url: provider.tokenUrl,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      schedule_hours: 6,
    });
    const first = await runScheduledSyncs(app.ctx.db, app.ctx.config);
    expect(first.synced).toBeGreaterThanOrEqual(1);
    expect(await total(school, '/students')).toBe(40);
    // Not due again within its 6 hours…
    const calls = provider.requests.length;
    await runScheduledSyncs(app.ctx.db, app.ctx.config);
    expect(provider.requests.length).toBe(calls);
    // …and due after them (an appliance that was off catches up at its next check).
    for (const user of provider.users.filter((row) => row.role === 'student').slice(0, 10))
      Object.assign(user, { status: 'tobedeleted', dateLastModified: '2026-05-01T00:00:00.000Z' });
    const later = await runScheduledSyncs(app.ctx.db, app.ctx.config, Date.now() + 7 * 60 * 60 * 1000);
    expect(later.held_back).toBe(1);
    expect(await total(school, '/students', { status: 'suspended' })).toBe(0);
    const runs = await app.ctx.db.models.OneRosterRun.findAll({ where: { institution_id: school.inst.id }, order: [['started_at', 'ASC']] });
    expect(runs.map((run) => [run.trigger, run.outcome])).toEqual([
      ['scheduled', 'applied'],
      ['scheduled', 'held_back'],
    ]);
  });

  it('the scheduler knows the job: hourly, so a start that missed it catches it up', async () => {
    const listed = await app.scheduler.list();
    expect(listed.find((job) => job.name === 'oneroster-sync')).toMatchObject({ schedule: '20 * * * *' });
    // Every connection of this appliance is within its period (or has no schedule): nothing is due.
    expect(await app.scheduler.runNow('oneroster-sync')).toEqual({ synced: 0, held_back: 0, failed: 0 });
    const after = (await app.scheduler.list()).find((job) => job.name === 'oneroster-sync')!;
    expect(after.last_run).toMatchObject({ outcome: 'ok' });
  });
});

describe('the portal operations', () => {
  it('an admin connects, tests, dry-runs, is held back, confirms, and reads the runs; the secret is never shown', async () => {
    const school = await makeSchool(app);
    const provider = await startProvider();
    seedSchool(provider, { students: 48, teachers: 2, classes: 2 });
    const admin = await signedInMember(app, school.inst.id, 'admin');
    const portal = portalRequests(
      () => admin,
      () => institutionApi(school.inst.id),
    );

    expect(ok(await portal.get('/oneroster'))).toEqual({ connection: null, runs: [] });
    // Bad input is a 422 naming the field, and nothing is stored.
    expectError(await portal.put('/oneroster', { url: 'not a url', client_id: 'x', client_secret: 'y' }), 422, 'validation_error');
    expectError(await portal.put('/oneroster', { url: provider.url, client_id: 'x' }), 422, 'validation_error');
    expectError(await portal.put('/oneroster', { url: provider.url, client_id: 'x', client_secret: 'y', class_share: 2 }), 422, 'validation_error');
    expect(ok(await portal.get('/oneroster')).connection).toBeNull();

    // Tested before it is saved: the values as typed, wrong then right, and still nothing stored.
    expectError(await portal.post('/oneroster/test'), 404, 'not_found');
    expectError(await portal.post('/oneroster/test', { url: provider.url, client_id: provider.clientId }), 422, 'validation_error');
    const draft = { url: provider.url, token_url: provider.tokenUrl, client_id: provider.clientId, auth_method: 'form' };
    const refused = ok(await portal.post('/oneroster/test', { ...draft, client_secret: 'not the secret' }));
    expect(refused).toMatchObject({ ok: false });
    expect(refused.message).not.toContain('not the secret');
    expect(ok(await portal.post('/oneroster/test', { ...draft, client_secret: provider.clientSecret }))).toEqual({
      ok: true,
      message: expect.stringContaining('51 in all'),
    });
    expect(ok(await portal.get('/oneroster')).connection).toBeNull();

    const saved = ok(
      await portal.put('/oneroster', {
        url: provider.url,
        token_url: provider.tokenUrl,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
        auth_method: 'form',
        class_share: 0.25,
        schedule_hours: 12,
      }),
    );
    expect(saved).toMatchObject({ url: provider.url, client_secret_set: true, auth_method: 'form', schedule_hours: 12, class_minimum: 4, school_share: 0.1 });
    expect(JSON.stringify(saved)).not.toContain(provider.clientSecret);
    // A change without the secret keeps it.
    ok(await portal.put('/oneroster', { url: provider.url, token_url: provider.tokenUrl, client_id: provider.clientId, auth_method: 'basic' }));
    expect(ok(await portal.post('/oneroster/test'))).toEqual({ ok: true, message: expect.stringContaining('51 in all') });
    // A draft without its secret is tested with the stored one.
    expect(
      ok(await portal.post('/oneroster/test', { url: provider.url, token_url: provider.tokenUrl, client_id: provider.clientId, auth_method: 'form' })),
    ).toMatchObject({
      ok: true,
    });

    const planned = ok(await portal.post('/oneroster/sync', { dry_run: true }));
    expect(planned).toMatchObject({ outcome: 'dry_run', created: { students: 48, faculty: 2, groups: 2 } });
    expect(await total(school, '/students')).toBe(0);
    expect(ok(await portal.post('/oneroster/sync', {}))).toMatchObject({ outcome: 'applied', created: { students: 48 } });

    for (const user of provider.users.filter((row) => row.role === 'student').slice(0, 12))
      Object.assign(user, { status: 'tobedeleted', dateLastModified: '2026-06-01T00:00:00.000Z' });
    const held = ok(await portal.post('/oneroster/sync', {}));
    expect(held).toMatchObject({ outcome: 'held_back', held_back: true });
    expect(ok(await portal.post('/oneroster/sync', { confirm: true }))).toMatchObject({ outcome: 'applied', suspended: { students: 12 } });

    const state = ok(await portal.get('/oneroster'));
    expect(state.runs.map((run: { outcome: string; trigger: string }) => run.outcome)).toEqual(['applied', 'held_back', 'applied', 'dry_run']);
    expect(state.runs.every((run: { trigger: string }) => run.trigger === 'portal')).toBe(true);
    expect(JSON.stringify(state)).not.toContain(provider.clientSecret);

    // Disconnecting keeps the people; a second disconnect finds nothing.
    expect(ok(await portal.del('/oneroster'))).toEqual({ deleted: true });
    expect(ok(await portal.get('/oneroster'))).toEqual({ connection: null, runs: [] });
    expect(await total(school, '/students')).toBe(48);
    expectError(await portal.del('/oneroster'), 404, 'not_found');

    // Developers do not see the roster connection.
    const developer = await signedInMember(app, school.inst.id, 'developer');
    expectError(await developer.agent.get(`${institutionApi(school.inst.id)}/oneroster`), 403, 'forbidden');
  });
});
