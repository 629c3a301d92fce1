// @tier integration
// @databases sqlite, postgres
// The edge before the handlers (docs/security.md, docs/decisions/wire-rules.md): each case here answered 500, stored what it should
// not, or let a role do more than the portal allows, before its fix. Real appliance on
// 127.0.0.1, real SQLite file.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ONLY_SCOPES } from '../server/policies/scopes.js';
import { sweepTempFilesJob } from '../server/jobs/sweep-temp-files.js';
import { pruneMail } from '../server/mail/outbox.js';
import { makePerson, makeSchool, learnerSession, startTestAppliance, type TestAppliance, type TestPerson, type TestSchool } from './helpers/appliance.js';
import { expectError, expectOk, institutionApi, signedInMember } from './helpers/portal.js';
import { onPostgres } from './helpers/postgres.js';
import { waitFor } from './helpers/wait.js';

let app: TestAppliance;
let school: TestSchool;
let teacher: TestPerson;
let student: TestPerson;
let examId: string;
let attemptId: string;
let session: string;

const tempFiles = () => {
  const dir = path.join(app.dataDir, 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

/** Sends exactly these bytes to 127.0.0.1 and reads the whole answer. */
function raw(method: string, target: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; json: Record<string, unknown> }>((resolve, reject) => {
    const request = http.request(`${app.origin}${target}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const BOUNDARY = 'edgeBoundary1234';
const filePart = (name: string, content: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;

beforeAll(async () => {
  app = await startTestAppliance();
  school = await makeSchool(app, { name: 'Edge School' });
  teacher = await makePerson(app, school.key, 'faculty', 'Edge Teacher');
  student = await makePerson(app, school.key, 'students', 'Edge Student');
  const auth = { Authorization: school.key.auth };
  const group = await app.http
    .post('/v1/groups')
    .set(auth)
    .send({ name: 'Edge group', faculty_id: teacher.id, student_ids: [student.id] });
  const exam = await app.http.post('/v1/exams').set(auth).send({ title: 'Edge exam', faculty_id: teacher.id });
  expect(exam.status, JSON.stringify(exam.body)).toBe(200);
  examId = exam.body.data.id;
  expectOk(
    await app.http
      .post(`/v1/exams/${examId}/assignments`)
      .set(auth)
      .send({ group_ids: [group.body.data.id] }),
  );
  expectOk(await app.http.post(`/v1/exams/${examId}/publish`).set(auth));
  session = await learnerSession(app, school.key, student);
  const attempt = await app.http.post(`/v1/app/exams/${examId}/attempts`).set('Authorization', `Bearer ${session}`);
  expect(attempt.status, JSON.stringify(attempt.body)).toBe(200);
  attemptId = attempt.body.data.id;
});
afterAll(() => app.close());

describe('1. uploads: checked before the body, nothing left behind', () => {
  it('refuses an upload to an unknown or foreign id before reading the body, and stores nothing', async () => {
    const other = await makeSchool(app, { name: 'Other School' });
    const big = filePart('starter.zip', 'x'.repeat(2 * 1024 * 1024));
    for (const [target, auth] of [
      ['/v1/exams/exm_doesnotexist/files', school.key.auth],
      [`/v1/exams/${examId}/files`, other.key.auth],
      ['/v1/app/attempts/att_doesnotexist/files', `Bearer ${session}`],
    ] as const) {
      const res = await raw('POST', target, { Authorization: auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, big);
      expect(res.status, target).toBe(404);
      expect(res.json.error).toBe('not_found');
      expect(res.headers.connection).toBe('close');
    }
    expect(tempFiles()).toEqual([]);
  });

  it('removes the partial file of an upload cut off mid-stream', async () => {
    const request = http.request(`${app.origin}/v1/exams/${examId}/files`, {
      method: 'POST',
      headers: { Authorization: school.key.auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(40 * 1024 * 1024) },
    });
    request.on('error', () => undefined);
    request.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="starter.zip"\r\n\r\n`);
    request.write(Buffer.alloc(1024 * 1024, 1));
    await waitFor(() => tempFiles().length === 1, 'the upload to reach the temp folder');
    request.destroy();
    await waitFor(() => tempFiles().length === 0, 'the partial file to be removed');
    // The server still answers.
    expectOk(await app.http.get('/v1/me').set('Authorization', school.key.auth));
  });

  it('sweeps temp files idle for an hour, and everything an earlier run left at start-up', async () => {
    const dir = path.join(app.dataDir, 'tmp');
    fs.mkdirSync(dir, { recursive: true });
    const stale = path.join(dir, 'upload-stale');
    const fresh = path.join(dir, 'upload-fresh');
    fs.writeFileSync(stale, 'x');
    fs.writeFileSync(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
    expect(await sweepTempFilesJob.run(app.ctx)).toEqual({ removed: 1 });
    expect(tempFiles()).toEqual(['upload-fresh']);

    // A second appliance on a copy of this data folder starts with an empty temp folder.
    const copy = fs.mkdtempSync(path.join(path.dirname(app.dataDir), 'campusbridge-edge-copy-'));
    fs.mkdirSync(path.join(copy, 'tmp'));
    fs.copyFileSync(fresh, path.join(copy, 'tmp', 'upload-left-by-a-crash'));
    const second = await startTestAppliance({ dataDir: copy });
    try {
      expect(fs.readdirSync(path.join(copy, 'tmp'))).toEqual([]);
    } finally {
      await second.close();
    }
    fs.rmSync(fresh);
  });
});

describe('3. client errors from the parsers are 4xx in the envelope, never 500', () => {
  it('a malformed % escape in a path is 400 bad_request, with or without a key', async () => {
    for (const target of ['/v1/students/%ZZ', '/v1/files/%ZZ', `/portal/api/institutions/%ZZ/keys`, '/v1/exams/%E0%A4%A/files']) {
      for (const headers of [{}, { Authorization: school.key.auth }] as Array<Record<string, string>>) {
        const res = await raw('GET', target, headers);
        expect(res.status, target).toBe(400);
        expect(res.json).toMatchObject({ success: false, error: 'bad_request' });
        expect(res.headers['x-request-id']).toBeTruthy();
      }
    }
    // The same key's answer carries its rate-limit headers.
    expect((await raw('GET', '/v1/students/%ZZ', { Authorization: school.key.auth })).headers['x-ratelimit-limit']).toBeTruthy();
  });

  it('a body that does not match its Content-Encoding is 422; an encoding we do not decode is 415', async () => {
    const plain = JSON.stringify({ token: 'x' });
    for (const target of ['/v1/sso/exchange', '/portal/api/login']) {
      const bad = await raw('POST', target, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, plain);
      expect(bad.status, target).toBe(422);
      expect(bad.json.error).toBe('validation_error');
      const unknown = await raw('POST', target, { 'Content-Type': 'application/json', 'Content-Encoding': 'br-nonsense' }, plain);
      expect(unknown.status, target).toBe(415);
      expect(unknown.json.error).toBe('unsupported_media_type');
    }
    // A real gzip body is read.
    const gzipped = await raw('POST', '/v1/sso/exchange', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, zlib.gzipSync(plain));
    expect(gzipped.status).toBe(401);
    expect(gzipped.json.error).toBe('LAUNCH_TOKEN_INVALID');
  });

  it('JSON nested 10,000 deep is 422 validation_error, and the server answers afterwards', async () => {
    const deep = `{"token":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const [target, headers] of [
      ['/v1/sso/exchange', {}],
      ['/v1/students', { Authorization: school.key.auth }],
      ['/portal/api/login', {}],
    ] as const) {
      const res = await raw('POST', target, { 'Content-Type': 'application/json', ...headers }, deep);
      expect(res.status, target).toBe(422);
      expect(res.json.error).toBe('validation_error');
    }
    expectOk(await app.http.get('/v1/me').set('Authorization', school.key.auth));
  });

  /** Writes raw bytes on a socket to 127.0.0.1 and reads everything until the server closes it. */
  function rawSocket(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(app.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.end(bytes);
    });
  }

  it.each([
    ['a control character in a header', 'GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n', 400],
    [
      'both Transfer-Encoding and Content-Length',
      'POST /v1/sso/exchange HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['a header block over 16 KB', `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 431],
  ])('malformed HTTP (%s) gets the envelope and an X-Request-Id', async (_name, request, status) => {
    const answer = await rawSocket(request);
    expect(answer.startsWith(`HTTP/1.1 ${status} `), answer.slice(0, 80)).toBe(true);
    expect(answer).toMatch(/\r\nX-Request-Id: req_[A-Za-z0-9]+\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: 'bad_request' });
    expectOk(await app.http.get('/v1/me').set('Authorization', school.key.auth));
  });

  it('no stack of a client error reaches the log as an unhandled error', () => {
    expect(app.logText()).not.toContain('unhandled error');
  });
});

describe('4. malformed multipart is 422 validation_error naming the problem', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no boundary', { 'Content-Type': 'multipart/form-data' }, filePart('starter.zip', 'x')],
    ['truncated body', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, filePart('starter.zip', 'x').slice(0, 120)],
    [
      'control character in a part header',
      { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a\u0001.zip"\r\nX-Bad\u0007: 1\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    ],
    [
      'header without a colon',
      { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      `--${BOUNDARY}\r\nContent-Disposition form-data name=file\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
    ],
    ['NUL in the file name', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, filePart('start\u0000er.zip', 'x')],
  ];
  it.each(cases)('%s', async (_name, headers, body) => {
    for (const [target, auth] of [
      [`/v1/exams/${examId}/files`, school.key.auth],
      [`/v1/app/attempts/${attemptId}/files`, `Bearer ${session}`],
    ] as const) {
      const res = await raw('POST', target, { Authorization: auth, ...headers }, body);
      expect(res.status, `${target}: ${JSON.stringify(res.json)}`).toBe(422);
      expect(res.json.error).toBe('validation_error');
      expect(String(res.json.message).length).toBeGreaterThan(10);
    }
    expect(tempFiles()).toEqual([]);
  });
});

describe('2. a developer cannot grant what only admins may use', () => {
  it('refuses admin-only scopes to a developer with 403 forbidden; an admin may grant them', async () => {
    const developer = await signedInMember(app, school.inst.id, 'developer');
    const keys = `${institutionApi(school.inst.id)}/keys`;
    for (const scope of ADMIN_ONLY_SCOPES) {
      const res = await developer.agent
        .post(keys)
        .set('X-CSRF-Token', developer.csrf)
        .send({ name: 'sneaky', scopes: ['students:read', scope] });
      expectError(res, 403, 'forbidden');
      expect(res.body.message).toContain(scope);
    }
    const all = await developer.agent
      .post(keys)
      .set('X-CSRF-Token', developer.csrf)
      .send({ name: 'everything', scopes: ['all'] });
    expectError(all, 403, 'forbidden');
    expect(await app.ctx.db.models.ApiKey.count({ where: { institution_id: school.inst.id, name: ['sneaky', 'everything'] } })).toBe(0);
    expectOk(
      await developer.agent
        .post(keys)
        .set('X-CSRF-Token', developer.csrf)
        .send({ name: 'lms', scopes: ['students:write', 'webhooks:write'] }),
    );

    const admin = await signedInMember(app, school.inst.id, 'admin');
    expectOk(
      await admin.agent
        .post(keys)
        .set('X-CSRF-Token', admin.csrf)
        .send({ name: 'licensing', scopes: ['licenses:write', 'institution:write'] }),
    );

    // The scope picker is told which are admin-only.
    const scopes = await developer.agent.get(`${institutionApi(school.inst.id)}/scopes`);
    const adminOnly = (scopes.body.data.items as Array<{ scope: string; admin_only: boolean }>).filter((entry) => entry.admin_only).map((entry) => entry.scope);
    expect(adminOnly.sort()).toEqual([...ADMIN_ONLY_SCOPES].sort());
  });
});

describe('5. the mail outbox keeps nothing replayable', () => {
  it('stores an invitation link neither in clear nor after it is sent or expired', async () => {
    const guardian = 'guardian.edge@home.example';
    const invited = await app.http
      .post('/v1/guardians')
      .set('Authorization', school.key.auth)
      .send({ student_id: student.id, guardian_email: guardian, guardian_name: 'Edge Guardian', guardian_type: 'mother' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const rows = await app.ctx.db.models.MailOutbox.findAll({ where: { kind: 'guardian_invite' } });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.body_sealed).toBeTruthy();
    expect(row.expires_at).toBeInstanceOf(Date);
    // On SQLite, the database file and its write-ahead log, where the newest pages are; PostgreSQL's
    // files are its server's, so there the rows as they are stored.
    const stored = onPostgres()
      ? JSON.stringify(await app.ctx.db.sequelize.query('SELECT * FROM mail_outbox', { type: QueryTypes.SELECT }))
      : ['campusbridge.sqlite', 'campusbridge.sqlite-wal']
          .map((name) => path.join(app.dataDir, name))
          .filter((file) => fs.existsSync(file))
          .map((file) => fs.readFileSync(file).toString('latin1'))
          .join('');
    expect(stored).toContain('guardian_invite');
    expect(stored).not.toContain('/guardian/accept?token=');

    // Past its link's expiry, the waiting message is dropped, not kept to be sent.
    const result = await pruneMail(app.ctx.db, new Date(row.expires_at!.getTime() + 1000));
    expect(result.dropped).toBeGreaterThanOrEqual(1);
    await row.reload();
    expect(row).toMatchObject({ status: 'dropped', dropped_reason: 'link_expired' });
    expect(row.body_sealed).toBeNull();
  });
});

describe('10. query integers are decimal digits only', () => {
  it.each(['1e2', '0x10', ' 5', '5.0', '+5', '', '1_0'])('limit=%j is 422 validation_error', async (limit) => {
    const res = await app.http.get('/v1/students').query({ limit }).set('Authorization', school.key.auth);
    expectError(res, 422, 'validation_error');
  });
  it('limit=10 works', async () => {
    const res = await app.http.get('/v1/students').query({ limit: '10' }).set('Authorization', school.key.auth);
    expectOk(res);
    expect(res.body.data.limit).toBe(10);
  });
});
