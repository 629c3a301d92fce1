// @tier integration
// @databases sqlite, postgres
// OneRoster CSV imports (docs/decisions/oneroster-csv.md): zips written here from the 1EdTech OneRoster 1.1 and
// 1.2 CSV bindings, imported with `cli oneroster import`, and what they did read back through /v1.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSchool, requestsAs, startTestAppliance, type TestAppliance, type TestSchool } from './helpers/appliance.js';
import { cliFails, cliOk, runCliCaptured } from './helpers/cli.js';
import type { SyncOutput } from './helpers/oneroster-provider.js';
import { institutionApi, portalRequests, signedInMember } from './helpers/portal.js';

const USERS_11 =
  'sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password';
const CLASSES =
  'sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods';
const ENROLLMENTS = 'sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate';
const ORGS = 'sourcedId,status,dateLastModified,name,type,identifier,parentSourcedId';

const manifest = (version: '1.1' | '1.2', modes: Record<string, 'bulk' | 'delta' | 'absent'>) =>
  [
    'propertyName,value',
    'manifest.version,1.0',
    `oneroster.version,${version}`,
    ...[
      'academicSessions',
      'categories',
      'classes',
      'classResources',
      'courses',
      'courseResources',
      'demographics',
      'enrollments',
      'lineItems',
      'orgs',
      'resources',
      'results',
      'users',
      'roles',
    ].map((file) => `file.${file},${modes[file] ?? 'absent'}`),
    'source.systemName,Tiny SIS',
    'source.systemCode,tiny',
  ].join('\r\n');

function zipOf(files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));
}

/** A bulk 1.1 export: 8 students and a teacher in two classes, a school org. */
function bulkSchool(): Record<string, string> {
  const students = Array.from(
    { length: 8 },
    (_, i) => `s${i + 1},,,true,org1,student,stu${i + 1},,Student,Number${i + 1},,ID-${1000 + i},s${i + 1}@home.example,,,,5,`,
  );
  return {
    'manifest.csv': manifest('1.1', { users: 'bulk', classes: 'bulk', enrollments: 'bulk', orgs: 'bulk' }),
    'users.csv': [USERS_11, 't1,,,true,org1,teacher,tch1,,Tess,Teacher,,T-1,tess@school.example,,,,,', ...students].join('\r\n'),
    'classes.csv': [CLASSES, 'c1,,,Math 5A,5,crs1,M5A,scheduled,,org1,term1,,,1', 'c2,,,Art 5B,5,crs2,A5B,scheduled,,org1,term1,,,2'].join('\r\n'),
    'enrollments.csv': [
      ENROLLMENTS,
      'e-t1,,,c1,org1,t1,teacher,true,,',
      'e-t2,,,c2,org1,t1,teacher,true,,',
      ...Array.from({ length: 8 }, (_, i) => `e${i + 1},,,${i < 6 ? 'c1' : 'c2'},org1,s${i + 1},student,false,,`),
    ].join('\r\n'),
    'orgs.csv': [ORGS, 'org1,,,Tiny School,school,TS,'].join('\r\n'),
  };
}

let app: TestAppliance;
let school: TestSchool;
let dir: string;
const api = requestsAs(() => app);

/** Writes the zip to a file and imports it with the CLI; the result as it exits. */
async function importZip(name: string, bytes: Uint8Array, ...flags: string[]) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return runCliCaptured(app, 'oneroster', 'import', file, '--institution', school.inst.id, ...flags);
}

async function students(): Promise<Array<{ id: string; full_name: string; student_id: string | null; status: string }>> {
  const res = await api.get(school.key, '/students', { limit: 100 });
  expect(res.status).toBe(200);
  return res.body.data.items;
}

async function groupMembers(name: string): Promise<string[]> {
  const groups = await api.get(school.key, '/groups', { limit: 100 });
  const group = (groups.body.data.items as Array<{ id: string; name: string }>).find((item) => item.name === name);
  if (!group) return [];
  const members = await api.get(school.key, '/students', { group_id: group.id, limit: 100 });
  return (members.body.data.items as Array<{ full_name: string }>).map((member) => member.full_name).sort();
}

describe('OneRoster CSV import', () => {
  beforeAll(async () => {
    app = await startTestAppliance();
    school = await makeSchool(app, { scopes: ['all'] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-csv-'));
  });
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a dry run of a bulk 1.1 zip counts what it would do and changes nothing', async () => {
    const dry = cliOk<SyncOutput>(await importZip('bulk.zip', zipOf(bulkSchool()), '--dry-run'));
    expect(dry).toMatchObject({
      kind: 'full',
      dry_run: true,
      outcome: 'dry_run',
      created: { students: 8, faculty: 1, groups: 2 },
      memberships: { added: 8, removed: 0 },
    });
    expect(await students()).toEqual([]);
  });

  it('a bulk 1.1 zip makes the students, the teacher and the classes with their members', async () => {
    const applied = cliOk<SyncOutput>(await importZip('bulk.zip', zipOf(bulkSchool())));
    expect(applied).toMatchObject({
      kind: 'full',
      dry_run: false,
      outcome: 'applied',
      created: { students: 8, faculty: 1, groups: 2 },
      memberships: { added: 8 },
    });
    const made = await students();
    expect(made.map((student) => student.student_id).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `ID-${1000 + i}`));
    expect(await groupMembers('Art 5B')).toEqual(['Student Number7', 'Student Number8']);
    expect(await groupMembers('Math 5A')).toHaveLength(6);

    // The same zip again changes nothing: the records are linked by sourcedId.
    const again = cliOk<SyncOutput>(await importZip('bulk.zip', zipOf(bulkSchool())));
    expect(again).toMatchObject({ outcome: 'applied', created: { students: 0, faculty: 0, groups: 0 }, memberships: { added: 0, removed: 0 } });
    expect(await students()).toHaveLength(8);
  });

  it('the portal shows the connection the import made and its runs; a REST sync of it is refused in words', async () => {
    const admin = await signedInMember(app, school.inst.id, 'admin');
    const portal = portalRequests(
      () => admin,
      () => institutionApi(school.inst.id),
    );
    const state = await portal.get('/oneroster');
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body.data.connection).toMatchObject({ source: 'csv', url: '', client_secret_set: false });
    expect((state.body.data.runs as Array<{ trigger: string; outcome: string }>).map((run) => `${run.trigger} ${run.outcome}`)).toEqual([
      'cli_csv applied',
      'cli_csv applied',
      'cli_csv dry_run',
    ]);
    const message = cliFails(await runCliCaptured(app, 'oneroster', 'sync', '--institution', school.inst.id), 'conflict');
    expect(message).toContain('OneRoster CSV files');
  });

  it('a delta zip that would suspend half of a class is held back, then applied with --confirm', async () => {
    const delta = {
      'manifest.csv': manifest('1.1', { users: 'delta', enrollments: 'delta' }),
      'users.csv': [
        USERS_11,
        ...[1, 2, 3, 4].map((n) => `s${n},tobedeleted,2026-11-20T10:00:00Z,true,org1,student,stu${n},,Student,Number${n},,ID-${999 + n},,,,,5,`),
        's9,active,2026-11-20T10:00:00Z,true,org1,student,stu9,,Nine,Newcomer,,ID-2000,,,,,5,',
      ].join('\r\n'),
      'enrollments.csv': [ENROLLMENTS, 'e9,active,2026-11-20T10:00:00Z,c2,org1,s9,student,false,,'].join('\r\n'),
    };
    const held = cliOk<SyncOutput>(await importZip('delta.zip', zipOf(delta)));
    expect(held).toMatchObject({ kind: 'delta', outcome: 'held_back', held_back: true, suspended: { students: 4 } });
    expect(held.reason).toMatch(/suspend 4 of/);
    expect((await students()).filter((student) => student.status === 'suspended')).toEqual([]);

    const confirmed = cliOk<SyncOutput>(await importZip('delta.zip', zipOf(delta), '--confirm'));
    expect(confirmed).toMatchObject({ kind: 'delta', outcome: 'applied', suspended: { students: 4 }, created: { students: 1 } });
    expect((await students()).filter((student) => student.status === 'suspended').map((student) => student.student_id)).toHaveLength(4);
    expect(await groupMembers('Art 5B')).toEqual(['Nine Newcomer', 'Student Number7', 'Student Number8']);
  });

  it('a 1.2 zip takes the roles from roles.csv', async () => {
    const users12 =
      'sourcedId,status,dateLastModified,enabledUser,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password,userMasterIdentifier,resourceSourcedIds,preferredGivenName,preferredMiddleName,preferredFamilyName,primaryOrgSourcedId,pronouns';
    const zip = zipOf({
      'manifest.csv': manifest('1.2', { users: 'delta', roles: 'delta' }),
      'users.csv': [users12, 's20,active,2026-11-21T10:00:00Z,true,stu20,,Twenty,Roles,,ID-2020,,,,,5,,,,,,,org1,'].join('\n'),
      'roles.csv': [
        'sourcedId,status,dateLastModified,userSourcedId,roleType,role,beginDate,endDate,orgSourcedId,userProfileSourcedId',
        'r20,active,2026-11-21T10:00:00Z,s20,primary,student,,,org1,',
      ].join('\n'),
    });
    expect(cliOk<SyncOutput>(await importZip('v12.zip', zip))).toMatchObject({ kind: 'delta', outcome: 'applied', created: { students: 1 } });
    expect((await students()).map((student) => student.student_id)).toContain('ID-2020');
  });

  it('the portal imports a zip as an upload: an admin may, a developer may not; a bad zip is a 422 naming the row', async () => {
    const admin = await signedInMember(app, school.inst.id, 'admin');
    const upload = (who: typeof admin, bytes: Uint8Array, query: Record<string, string> = {}) =>
      who.agent
        .post(`${institutionApi(school.inst.id)}/oneroster/import`)
        .query(query)
        .set('X-CSRF-Token', who.csrf)
        .attach('file', Buffer.from(bytes), { filename: 'export.zip', contentType: 'application/zip' });
    const zip = zipOf({
      'manifest.csv': manifest('1.1', { users: 'delta' }),
      'users.csv': [USERS_11, 's40,active,2026-11-23T10:00:00Z,true,org1,student,stu40,,Forty,Portal,,ID-4000,,,,,5,'].join('\r\n'),
    });
    const dry = await upload(admin, zip, { dry_run: 'true' });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.data).toMatchObject({ dry_run: true, outcome: 'dry_run', created: { students: 1 } });
    const applied = await upload(admin, zip);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.data).toMatchObject({ kind: 'delta', outcome: 'applied', created: { students: 1 } });
    expect((await students()).map((student) => student.student_id)).toContain('ID-4000');
    const runs = await admin.agent.get(`${institutionApi(school.inst.id)}/oneroster`);
    expect(runs.body.data.runs[0]).toMatchObject({ trigger: 'portal_csv', outcome: 'applied' });

    const broken = await upload(
      admin,
      zipOf({ 'manifest.csv': manifest('1.1', { users: 'bulk' }), 'users.csv': [USERS_11, ',,,true,org1,student,x,,No,Id,,,,,,,,'].join('\n') }),
    );
    expect(broken.status).toBe(422);
    expect(broken.body).toMatchObject({ success: false, error: 'validation_error', details: [{ path: 'users.csv:2', message: 'sourcedId is empty.' }] });
    const none = await admin.agent
      .post(`${institutionApi(school.inst.id)}/oneroster/import`)
      .set('X-CSRF-Token', admin.csrf)
      .send({});
    expect(none.status).toBe(422);

    const developer = await signedInMember(app, school.inst.id, 'developer');
    const refused = await upload(developer, zip);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
  });

  it('unreadable rows are reported by file and line, and nothing is imported', async () => {
    const runsBefore = await app.ctx.db.models.OneRosterRun.count();
    const before = await students();
    const broken = {
      'manifest.csv': manifest('1.1', { users: 'delta', enrollments: 'delta' }),
      'users.csv': [
        USERS_11,
        's30,active,2026-11-22T10:00:00Z,true,org1,student,stu30,,Thirty,Fine,,ID-3000,,,,,5,',
        ',active,2026-11-22T10:00:00Z,true,org1,student,x,,No,Id,,ID-3001,,,,,5,',
      ].join('\r\n'),
      'enrollments.csv': [ENROLLMENTS, 'e30,,2026-11-22T10:00:00Z,c1,org1,s30,student,false,,'].join('\r\n'),
    };
    const message = cliFails(await importZip('broken.zip', zipOf(broken)), 'validation_error');
    expect(message).toContain('users.csv:3: sourcedId is empty');
    expect(message).toContain('1 more problem');
    expect(await students()).toEqual(before);
    expect(await app.ctx.db.models.OneRosterRun.count()).toBe(runsBefore);

    expect(cliFails(await importZip('not-a.zip', strToU8('sourcedId,role\ns1,student\n')), 'validation_error')).toContain('not a zip file');
    const noManifest = cliFails(await importZip('no-manifest.zip', zipOf({ 'users.csv': USERS_11 })), 'validation_error');
    expect(noManifest).toContain('no manifest.csv');
    const missingFile = cliFails(
      await importZip('missing.zip', zipOf({ 'manifest.csv': manifest('1.1', { users: 'bulk', classes: 'bulk' }), 'users.csv': USERS_11 })),
      'validation_error',
    );
    expect(missingFile).toContain('classes.csv: The manifest lists it as bulk, and the zip does not hold it');
    const mixed = cliFails(
      await importZip(
        'mixed.zip',
        zipOf({ 'manifest.csv': manifest('1.1', { users: 'bulk', enrollments: 'delta' }), 'users.csv': USERS_11, 'enrollments.csv': ENROLLMENTS }),
      ),
      'validation_error',
    );
    expect(mixed).toContain('mix bulk and delta');
    expect(
      cliFails(await runCliCaptured(app, 'oneroster', 'import', path.join(dir, 'nowhere.zip'), '--institution', school.inst.id), 'validation_error'),
    ).toContain('Cannot read');
  });
});
