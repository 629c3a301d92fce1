// @tier integration
// @databases sqlite, postgres
// Sandbox keys (docs/api.md#sandbox-keys, docs/decisions/sandbox.md): a `cb_test_` key of an institution acts on
// its sandbox only. With a live key and a sandbox key of the same institution, each side creates a
// row of every kind the API makes; then every GET operation of /v1/openapi.json is called by both,
// and neither answer may hold an id of the other side. Also: /me, webhooks to the sandbox's own
// endpoints with `environment: "sandbox"`, reset, the operator's lists, mail, the CLI and the portal.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tenant } from '../../db/tenant.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from '../../../tests/helpers/appliance.js';
import { cliOk, runCliCaptured } from '../../../tests/helpers/cli.js';
import { expectError, institutionApi, ok, signedInMember, type SignedIn } from '../../../tests/helpers/portal.js';
import { createApiKey } from '../../commands/institutions/api-keys.js';
import { ensureSandbox } from '../../commands/institutions/sandbox.js';

const WEBHOOKS = { retryScheduleSeconds: [1, 1, 1, 1, 1], sweepSeconds: 1, timeoutMs: 1500 };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Received {
  body: Record<string, unknown>;
}

interface Receiver {
  url: string;
  requests: Received[];
  close: () => Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    req.on('end', () => {
      requests.push({ body: JSON.parse(raw) as Record<string, unknown> });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor(condition: () => boolean, what: string, ms = 8_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** What one side made: ids by the path parameter they fill, and every id (for the isolation check). */
interface Side {
  name: 'live' | 'sandbox';
  key: TestKey;
  receiver: Receiver;
  ids: Set<string>;
  /** Values for path parameters, by the path's first segment(s). */
  params: Record<string, string>;
}

describe('sandbox keys', () => {
  let app: TestAppliance;
  let inst: TestInstitution;
  let live: Side;
  let sandbox: Side;
  let sandboxId: string;
  let admin: SignedIn;

  const as = (side: Side) => ({
    get: (path: string, query: Record<string, string | number> = {}) => app.http.get(`/v1${path}`).query(query).set('Authorization', side.key.auth),
    post: (path: string, body: unknown = {}) =>
      app.http
        .post(`/v1${path}`)
        .set('Authorization', side.key.auth)
        .send(body as object),
  });

  async function made(side: Side, path: string, body: unknown): Promise<Record<string, any>> {
    const res = await as(side).post(path, body);
    expect(res.status, `${side.name} POST ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    const data = res.body.data as Record<string, any>;
    const id = (data.id ?? data.group?.id) as string | undefined;
    if (id) side.ids.add(id);
    return data;
  }

  /** One row of every kind the API creates, through `side`'s key. */
  async function fill(side: Side): Promise<void> {
    const tag = side.name;
    const endpoint = await made(side, '/webhooks/endpoints', { url: side.receiver.url, events: ['*'] });
    const teacher = await made(side, '/faculty', { full_name: `Fiona ${tag} Teacher` });
    const student = await made(side, '/students', { full_name: `Lena ${tag} Learner`, personal_email: `lena.${tag}@family.example.org` });
    const bulk = await as(side).post('/students/bulk', { students: [{ full_name: `Pat ${tag} Pool` }] });
    expect(bulk.status).toBe(200);
    for (const result of bulk.body.data.results as Array<{ id?: string }>) if (result.id) side.ids.add(result.id);
    const group = await made(side, '/groups', { name: `${tag} group`, faculty_id: teacher.id, student_ids: [student.id] });
    const guardian = await made(side, '/guardians', { student_id: student.id, guardian_email: `parent.${tag}@family.example.org`, guardian_type: 'mother' });
    const exam = await made(side, '/exams', {
      faculty_id: teacher.id,
      title: `${tag} exam`,
      max_score: 10,
      group_ids: [(group.group ?? group).id],
      publish: true,
    });
    const batch = await made(side, '/coupons/batches', {
      name: `${tag} prizes`,
      total_coupons: 2,
      value_cents: 100,
      expiry_date: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    const licenses = await as(side).get('/licenses');
    expect(licenses.status).toBe(200);
    const license = (licenses.body.data.items as Array<{ id: string }>)[0];
    for (const item of licenses.body.data.items as Array<{ id: string }>) side.ids.add(item.id);
    await waitFor(() => side.receiver.requests.length > 0, `${side.name}'s first delivery`);
    const deliveries = await as(side).get('/webhooks/deliveries');
    for (const item of deliveries.body.data.items as Array<{ id: string }>) side.ids.add(item.id);
    const events = await as(side).get('/events', { limit: 200 });
    for (const item of events.body.data.items as Array<{ id: string }>) side.ids.add(item.id);
    side.params = {
      students: student.id,
      faculty: teacher.id,
      groups: (group.group ?? group).id,
      exams: exam.id,
      licenses: license?.id ?? '',
      'coupons/batches': batch.id,
      'webhooks/endpoints': endpoint.id,
      'webhooks/deliveries': (deliveries.body.data.items as Array<{ id: string }>)[0]?.id ?? '',
      'alpha/students': student.id,
      'merits/wallets': student.login_email,
      guardians: guardian.id,
    };
    side.ids.add(student.login_email);
  }

  beforeAll(async () => {
    app = await startTestAppliance({ config: { outbound: { privateHosts: 'all' }, webhooks: WEBHOOKS } });
    inst = await makeInstitution(app, { name: 'Riverside High' });
    await ensureSandbox(app.ctx.db, inst.id);
    const sandboxKey = await createApiKey(inst.tenant, { name: 'sandbox', scopes: ['all'], rate_limit_per_min: 6000, environment: 'sandbox' });
    live = { name: 'live', key: await makeKey(app, inst), receiver: await startReceiver(), ids: new Set(), params: {} };
    sandbox = {
      name: 'sandbox',
      key: { id: sandboxKey.row.id, key: sandboxKey.key, auth: `Bearer ${sandboxKey.key}` },
      receiver: await startReceiver(),
      ids: new Set(),
      params: {},
    };
    await fill(live);
    await fill(sandbox);
    admin = await signedInMember(app, inst.id, 'admin');
  }, 180_000);

  afterAll(async () => {
    await live?.receiver.close();
    await sandbox?.receiver.close();
    await app?.close();
  });

  it('a sandbox key is cb_test_ and /me says sandbox, with the sandbox as its institution', async () => {
    expect(sandbox.key.key).toMatch(/^cb_test_[A-Za-z0-9]{32}$/);
    const me = ok(await as(sandbox).get('/me'));
    expect(me.environment).toBe('sandbox');
    expect(me.institution.name).toBe('Riverside High');
    expect(me.institution.id).not.toBe(inst.id);
    sandboxId = me.institution.id as string;
    const liveMe = ok(await as(live).get('/me'));
    expect(liveMe.environment).toBe('live');
    expect(liveMe.institution.id).toBe(inst.id);
  });

  it('every GET operation: the sandbox key sees none of the live ids, and the live key none of the sandbox ids', async () => {
    const doc = (await app.http.get('/v1/openapi.json')).body as Record<string, any>;
    const skipped = new Set(['/me', '/scopes', '/appliance', '/files/{ref}', '/events/types']);
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const operation = item.get;
      if (!operation || path.startsWith('/app/') || skipped.has(path)) continue;
      for (const [self, other] of [
        [live, sandbox],
        [sandbox, live],
      ] as const) {
        let filled = path;
        let missing = false;
        for (const param of path.match(/\{[^}]+\}/g) ?? []) {
          const prefix = path.slice(0, path.indexOf(param) - 1).replace(/^\//, '');
          const value = self.params[prefix];
          if (!value) missing = true;
          filled = filled.replace(param, encodeURIComponent(value ?? ''));
        }
        if (missing) continue;
        const res = await as(self).get(filled, path === '/events' ? { limit: 200 } : {});
        expect(res.status, `${self.name} GET ${filled}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
        const text = res.text;
        const leaked = [...other.ids].filter((id) => text.includes(id));
        expect(leaked, `${self.name} GET ${filled} holds ${other.name} ids`).toEqual([]);
        // And the other side's record in the path answers as one that does not exist.
        if (filled !== path.replace(/\{[^}]+\}/g, '') && path.includes('{')) {
          let cross = path;
          for (const param of path.match(/\{[^}]+\}/g) ?? []) {
            const prefix = path.slice(0, path.indexOf(param) - 1).replace(/^\//, '');
            cross = cross.replace(param, encodeURIComponent(other.params[prefix] ?? ''));
          }
          const crossRes = await as(self).get(cross);
          expect(crossRes.status, `${self.name} GET ${cross} (the other side's record)`).toBe(404);
        }
        checked.push(`${self.name} ${path}`);
      }
    }
    // Every list the API has was called from both sides.
    for (const list of [
      '/students',
      '/faculty',
      '/groups',
      '/guardians',
      '/exams',
      '/licenses',
      '/webhooks/endpoints',
      '/webhooks/deliveries',
      '/events',
      '/coupons/batches',
    ]) {
      expect(checked).toContain(`live ${list}`);
      expect(checked).toContain(`sandbox ${list}`);
    }
    expect(checked.length).toBeGreaterThan(40);
    // Both sides hold rows: the check above compared real ids, not two empty lists.
    expect(ok(await as(sandbox).get('/students')).items.length).toBe(2);
    expect(ok(await as(live).get('/students')).items.length).toBe(2);
  });

  it("sandbox events go to the sandbox's own endpoints only, marked environment: sandbox", async () => {
    const liveSeen = live.receiver.requests.length;
    const sandboxSeen = sandbox.receiver.requests.length;
    const student = ok(await as(sandbox).post('/students', { full_name: 'Webhook Probe' }));
    const about = (r: Received) => JSON.stringify(r.body.data).includes(student.id as string);
    await waitFor(() => sandbox.receiver.requests.slice(sandboxSeen).some(about), 'the sandbox delivery');
    const delivered = sandbox.receiver.requests.slice(sandboxSeen).find(about)!;
    expect(delivered.body.environment).toBe('sandbox');
    expect(delivered.body.institution_id).toBe(sandboxId);
    await sleep(1_500);
    expect(JSON.stringify(live.receiver.requests.slice(liveSeen))).not.toContain(student.id);
    // Live events say live.
    expect(live.receiver.requests.every((r) => r.body.environment === 'live')).toBe(true);
    expect(sandbox.receiver.requests.every((r) => r.body.environment === 'sandbox')).toBe(true);
  });

  it("the operator's institution list does not show the sandbox", async () => {
    const listed = cliOk<Array<{ id: string }>>(await runCliCaptured(app, 'institution', 'list'));
    expect(listed.map((row) => row.id)).toContain(inst.id);
    expect(listed.map((row) => row.id)).not.toContain(sandboxId);
    // Nor can the operator approve or suspend it on its own: it follows its live institution.
    const suspended = await runCliCaptured(app, 'institution', 'suspend', sandboxId);
    expect(suspended.code).toBe(1);
    expect(suspended.stderr).toContain('not_found');
  });

  it('the CLI prints a cb_test_ key with --sandbox, and refuses a sandbox as the institution', async () => {
    const created = cliOk<{ key: string; environment: string }>(
      await runCliCaptured(app, 'key', 'create', '--institution', inst.id, '--name', 'cli sandbox', '--scopes', 'students:read', '--sandbox'),
    );
    expect(created.key).toMatch(/^cb_test_[A-Za-z0-9]{32}$/);
    expect(created.environment).toBe('sandbox');
    const me = await app.http.get('/v1/me').set('Authorization', `Bearer ${created.key}`);
    expect(me.body.data.environment).toBe('sandbox');
    const students = await app.http.get('/v1/students').set('Authorization', `Bearer ${created.key}`);
    expect(students.text).not.toContain(live.params.students);
    expect(students.text).toContain(sandbox.params.students);
    const refused = await runCliCaptured(app, 'key', 'create', '--institution', sandboxId, '--name', 'x', '--scopes', 'all');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not_found');
  });

  it("a sandbox's mail is never sent", async () => {
    // The published sandbox exam and guardian invitation queued mail for the sandbox's people.
    const rows = await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: sandboxId } });
    expect(rows.length).toBeGreaterThan(0);
    await runCliCaptured(app, 'smtp', 'set', '--host', '127.0.0.1', '--port', '9', '--from', 'campusbridge@example.test');
    const { sendQueuedMail } = await import('../../mail/mailer.js');
    await sendQueuedMail(app.ctx.db, app.ctx.logger);
    const after = await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: sandboxId } });
    expect(after.every((row) => row.status === 'queued' && row.attempts === 0)).toBe(true);
    // Live mail was tried (and failed: nothing listens on port 9).
    const liveRows = await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: inst.id } });
    expect(liveRows.some((row) => row.attempts > 0)).toBe(true);
    await runCliCaptured(app, 'smtp', 'clear');
  });

  it('the portal works in the sandbox through its id, for members of the live institution', async () => {
    const opened = ok(
      await admin.agent
        .post(`${institutionApi(inst.id)}/sandbox`)
        .set('X-CSRF-Token', admin.csrf)
        .send({}),
    );
    expect(opened).toMatchObject({ id: sandboxId, sandbox_of: inst.id, environment: 'sandbox' });
    const students = ok(await admin.agent.get(`${institutionApi(sandboxId)}/students`));
    expect((students.items as Array<{ id: string }>).map((s) => s.id)).toContain(sandbox.params.students);
    expect(JSON.stringify(students)).not.toContain(live.params.students);
    // Keys stay the live institution's: the sandbox id is not a place for them.
    expectError(await admin.agent.get(`${institutionApi(sandboxId)}/keys`), 404, 'not_found');
    const keys = ok<Array<{ key_id: string; environment: string; prefix: string }>>(await admin.agent.get(`${institutionApi(inst.id)}/keys`));
    expect(keys.find((k) => k.key_id === sandbox.key.id)).toMatchObject({ environment: 'sandbox', prefix: expect.stringMatching(/^cb_test_/) });
    const created = ok(
      await admin.agent
        .post(`${institutionApi(inst.id)}/keys`)
        .set('X-CSRF-Token', admin.csrf)
        .send({ name: 'portal sandbox', scopes: ['students:read'], environment: 'sandbox' }),
    );
    expect(created.key).toMatch(/^cb_test_/);
    // Someone who is not a member of the live institution cannot reach its sandbox either.
    const other = await makeInstitution(app);
    const stranger = await signedInMember(app, other.id, 'admin');
    expectError(await stranger.agent.get(`${institutionApi(sandboxId)}/students`), 404, 'not_found');
    // A developer may open but not reset it.
    const developer = await signedInMember(app, inst.id, 'developer');
    expectError(
      await developer.agent
        .post(`${institutionApi(inst.id)}/sandbox/reset`)
        .set('X-CSRF-Token', developer.csrf)
        .send({}),
      403,
      'forbidden',
    );
  });

  it("every foreign key to institutions cascades, so a reset deletes every table's sandbox rows at once", async () => {
    const { sequelize } = app.ctx.db;
    const postgres = sequelize.getDialect() === 'postgres';
    const foreignKeys: Array<{ table: string; column: string; rule: string }> = postgres
      ? await sequelize.query(
          `SELECT kcu.table_name AS "table", kcu.column_name AS "column", rc.delete_rule AS "rule"
             FROM information_schema.referential_constraints rc
             JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name AND kcu.constraint_schema = rc.constraint_schema
             JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.constraint_name AND ccu.constraint_schema = rc.constraint_schema
            WHERE ccu.table_name = 'institutions' AND kcu.table_schema = current_schema()`,
          { type: QueryTypes.SELECT },
        )
      : (
          await Promise.all(
            (await sequelize.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'", { type: QueryTypes.SELECT })).map(
              async ({ name }) =>
                (await sequelize.query<{ table: string; from: string; on_delete: string }>(`PRAGMA foreign_key_list("${name}")`, { type: QueryTypes.SELECT }))
                  .filter((fk) => fk.table === 'institutions')
                  .map((fk) => ({ table: name, column: fk.from, rule: fk.on_delete })),
            ),
          )
        ).flat();
    expect(foreignKeys.length).toBeGreaterThan(30);
    expect(foreignKeys.filter((fk) => fk.rule.toUpperCase() !== 'CASCADE')).toEqual([]);
    // Tables with an institution_id and no foreign key keep their rows on a reset: only the audit log, on purpose.
    const withColumn: Array<{ table: string }> = postgres
      ? await sequelize.query(
          `SELECT table_name AS "table" FROM information_schema.columns WHERE column_name = 'institution_id' AND table_schema = current_schema()`,
          { type: QueryTypes.SELECT },
        )
      : (
          await Promise.all(
            (await sequelize.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'", { type: QueryTypes.SELECT })).map(
              async ({ name }) =>
                (await sequelize.query<{ name: string }>(`PRAGMA table_info("${name}")`, { type: QueryTypes.SELECT })).some((c) => c.name === 'institution_id')
                  ? [{ table: name }]
                  : [],
            ),
          )
        ).flat();
    const referenced = new Set(foreignKeys.filter((fk) => fk.column === 'institution_id').map((fk) => fk.table));
    expect(withColumn.map((row) => row.table).filter((table) => !referenced.has(table))).toEqual(['portal_audit_log']);
  });

  it('reset empties the sandbox, keeps its id and its keys working, and leaves live data alone', async () => {
    const reset = ok(
      await admin.agent
        .post(`${institutionApi(inst.id)}/sandbox/reset`)
        .set('X-CSRF-Token', admin.csrf)
        .send({}),
    );
    expect(reset.id).toBe(sandboxId);
    for (const list of ['/students', '/faculty', '/groups', '/guardians', '/exams', '/licenses', '/webhooks/endpoints', '/webhooks/deliveries', '/events']) {
      const res = await as(sandbox).get(list);
      expect(res.status, `${list}: ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.body.data.items, `sandbox ${list} after reset`).toEqual([]);
    }
    expect(ok(await as(sandbox).get('/me')).environment).toBe('sandbox');
    expect(await new Tenant(app.ctx.db, sandboxId).mailOutbox.count()).toBe(0);
    expect(ok(await as(live).get('/students')).items.length).toBe(2);
    expect(ok(await as(live).get('/webhooks/endpoints')).items.length).toBe(1);
    // The sandbox takes new data after the reset.
    ok(await as(sandbox).post('/students', { full_name: 'After Reset' }));
    expect(ok(await as(sandbox).get('/students')).items.length).toBe(1);
    // The reset is in the live institution's audit log.
    const audit = ok(await admin.agent.get(`${institutionApi(inst.id)}/audit-log`));
    expect(JSON.stringify(audit)).toContain('/sandbox/reset');
  });

  it("a suspended institution's sandbox keys stop with its live keys, and a revoked sandbox key stops at once", async () => {
    cliOk(await runCliCaptured(app, 'institution', 'suspend', inst.id));
    expectError(await as(sandbox).get('/me'), 401, 'invalid_api_key');
    expectError(await as(live).get('/me'), 401, 'invalid_api_key');
    cliOk(await runCliCaptured(app, 'institution', 'approve', inst.id));
    expect(ok(await as(sandbox).get('/me')).environment).toBe('sandbox');
    cliOk(await runCliCaptured(app, 'key', 'revoke', sandbox.key.id));
    expectError(await as(sandbox).get('/students'), 401, 'invalid_api_key');
    expect(ok(await as(live).get('/me')).environment).toBe('live');
  });
});
