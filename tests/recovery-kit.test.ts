// @tier integration
// @databases sqlite, postgres
// The recovery kit and a move to a new computer, on real data folders: `recovery-kit export` and
// `import` through the command line (passphrase rules, wrong passphrase, an appliance still
// running, a different key kept aside), and the whole move of docs/install.md#moving-to-a-new-computer.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/program.js';
import { FileMasterKeyStore, masterKeyFile } from '../server/crypto/master-key.js';
import { openRecoveryKit, parseRecoveryKit } from '../server/crypto/recovery-kit.js';
import { learnerSession, makeSchool, makePerson, startTestAppliance, tempDataDirs, type TestAppliance, type TestKey } from './helpers/appliance.js';
import { cliFails as fails, cliOk as ok, type CliResult } from './helpers/cli.js';
import { dataDirEnv, onPostgres } from './helpers/postgres.js';

const PASSPHRASE = 'correct horse battery staple';
const makeDataDir = tempDataDirs('campusbridge-kit-');

/** The command line on a data folder (and its database), with CAMPUSBRIDGE_PASSPHRASE set unless `passphrase` is null. */
async function cli(dataDir: string, passphrase: string | null, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const env: NodeJS.ProcessEnv = await dataDirEnv(dataDir);
  if (passphrase !== null) env.CAMPUSBRIDGE_PASSPHRASE = passphrase;
  const code = await runCli(argv, { env, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
}

const keyOf = (dataDir: string) => new FileMasterKeyStore(masterKeyFile(dataDir)).load();

/** A data folder as a first start leaves it: a database and a master key. */
async function startedOnce(): Promise<string> {
  const dataDir = makeDataDir();
  const app = await startTestAppliance({ dataDir });
  await app.stop();
  return dataDir;
}

describe('recovery-kit export and import', () => {
  it('round trip onto a fresh folder: the same key, sealed, and only with the right passphrase', async () => {
    const source = await startedOnce();
    const key = keyOf(source)!;
    const kitFile = path.join(makeDataDir(), 'kit.json');

    expect((await cli(source, null, 'recovery-kit', 'export', '--out', kitFile)).code).toBe(2);
    expect(fails(await cli(source, 'too short', 'recovery-kit', 'export', '--out', kitFile), 'validation_error')).toContain('at least 12 characters');
    expect(fs.existsSync(kitFile)).toBe(false);
    expect(ok(await cli(source, PASSPHRASE, 'recovery-kit', 'export', '--out', kitFile))).toEqual({ file: kitFile });

    // The file names its format and parameters and never holds the key in the clear.
    const text = fs.readFileSync(kitFile, 'utf8');
    const kit = parseRecoveryKit(text);
    expect(kit).toMatchObject({
      format: 'campusbridge-recovery-kit',
      version: 1,
      kdf: { name: 'scrypt', N: 131072, r: 8, p: 1 },
      cipher: { name: 'aes-256-gcm' },
    });
    expect(text).not.toContain(key.toString('base64'));
    expect(text).not.toContain(key.toString('hex'));
    expect(fs.statSync(kitFile).mode & 0o777).toBe(0o600);

    const fresh = makeDataDir();
    expect(fails(await cli(fresh, 'not the passphrase at all', 'recovery-kit', 'import', kitFile), 'validation_error')).toContain('does not open');
    expect(fs.existsSync(masterKeyFile(fresh))).toBe(false);
    expect((await cli(fresh, null, 'recovery-kit', 'import', kitFile)).code).toBe(2);
    expect(fs.existsSync(masterKeyFile(fresh))).toBe(false);

    expect(ok(await cli(fresh, PASSPHRASE, 'recovery-kit', 'import', kitFile))).toEqual({ imported: true });
    expect(keyOf(fresh)!.equals(key)).toBe(true);
    expect(fs.statSync(masterKeyFile(fresh)).mode & 0o777).toBe(0o600);
    // Importing the same key again changes nothing and keeps no copy.
    expect(ok(await cli(fresh, PASSPHRASE, 'recovery-kit', 'import', kitFile))).toEqual({ imported: true });
    expect(fs.readdirSync(fresh).filter((name) => name.startsWith('master.key.'))).toEqual([]);
  });

  it('keeps a different key already in place as a backup, never overwriting it', async () => {
    const source = await startedOnce();
    const kitFile = path.join(makeDataDir(), 'kit.json');
    ok(await cli(source, PASSPHRASE, 'recovery-kit', 'export', '--out', kitFile));

    const target = await startedOnce();
    const ownKey = fs.readFileSync(masterKeyFile(target), 'utf8');
    expect(ok(await cli(target, PASSPHRASE, 'recovery-kit', 'import', kitFile))).toEqual({ imported: true });
    const kept = fs.readdirSync(target).filter((name) => name.startsWith('master.key.before-import-'));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(target, kept[0]!), 'utf8')).toBe(ownKey);
    expect(keyOf(target)!.equals(keyOf(source)!)).toBe(true);
  });

  // A running appliance is told by the lock it holds on the SQLite file, or on PostgreSQL by the
  // connection each server process keeps open under its own application name.
  it('refuses while the appliance runs on the folder', async () => {
    const source = await startedOnce();
    const kitFile = path.join(makeDataDir(), 'kit.json');
    ok(await cli(source, PASSPHRASE, 'recovery-kit', 'export', '--out', kitFile));

    const running = await startTestAppliance();
    try {
      const before = fs.readFileSync(masterKeyFile(running.dataDir), 'utf8');
      expect(fails(await cli(running.dataDir, PASSPHRASE, 'recovery-kit', 'import', kitFile), 'conflict')).toContain('open');
      expect(fs.readFileSync(masterKeyFile(running.dataDir), 'utf8')).toBe(before);
      // Export works while it runs: it only reads the key.
      ok(await cli(running.dataDir, PASSPHRASE, 'recovery-kit', 'export', '--out', path.join(makeDataDir(), 'running.json')));
    } finally {
      await running.close();
    }
  });

  it('refuses what is not a kit or was altered', async () => {
    const source = await startedOnce();
    const kitFile = path.join(makeDataDir(), 'kit.json');
    ok(await cli(source, PASSPHRASE, 'recovery-kit', 'export', '--out', kitFile));

    const target = makeDataDir();
    const elsewhere = makeDataDir();
    const altered = (change: (kit: Record<string, any>) => void) => {
      const kit = JSON.parse(fs.readFileSync(kitFile, 'utf8')) as Record<string, any>;
      change(kit);
      const file = path.join(elsewhere, `altered-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify(kit));
      return file;
    };
    expect(
      fails(
        await cli(
          target,
          PASSPHRASE,
          'recovery-kit',
          'import',
          altered((kit) => (kit.created_at = '2020-01-01T00:00:00.000Z')),
        ),
        'validation_error',
      ),
    ).toContain('does not open');
    expect(
      fails(
        await cli(
          target,
          PASSPHRASE,
          'recovery-kit',
          'import',
          altered((kit) => (kit.kdf.N = 2 ** 30)),
        ),
        'validation_error',
      ),
    ).toContain('out of range');
    expect(
      fails(
        await cli(
          target,
          PASSPHRASE,
          'recovery-kit',
          'import',
          altered((kit) => (kit.version = 2)),
        ),
        'validation_error',
      ),
    ).toContain('version 2');
    const notJson = path.join(elsewhere, 'notes.txt');
    fs.writeFileSync(notJson, 'hello');
    expect(fails(await cli(target, PASSPHRASE, 'recovery-kit', 'import', notJson), 'validation_error')).toContain('not JSON');
    fails(await cli(target, PASSPHRASE, 'recovery-kit', 'import', path.join(elsewhere, 'missing.json')), 'not_found');
    fails(await cli(makeDataDir(), PASSPHRASE, 'recovery-kit', 'export', '--out', path.join(elsewhere, 'kit.json')), 'not_found');
    fails(await cli(source, PASSPHRASE, 'recovery-kit', 'export', '--out', path.join(elsewhere, 'no-such-folder', 'kit.json')), 'not_found');
    expect(fs.existsSync(masterKeyFile(target))).toBe(false);
    await expect(openRecoveryKit(fs.readFileSync(kitFile, 'utf8'), PASSPHRASE)).resolves.toHaveLength(32);
  });
});

/** A signed link opened on `app` as a browser would (no key); the body's bytes, after a 200. */
async function download(app: TestAppliance, url: string): Promise<Buffer> {
  const parsed = new URL(url);
  const res = await fetch(`${app.origin}${parsed.pathname}${parsed.search}`);
  expect(res.status, `${parsed.pathname}: ${res.status}`).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A published coding exam with a starter archive, and `student`'s submission of it with one file. */
async function codingExamWithSubmission(app: TestAppliance, key: TestKey, student: { id: string; login_email: string }) {
  const as = <T extends { set(name: string, value: string): T }>(request: T) => request.set('Authorization', key.auth);
  const data = (res: { status: number; body: { data?: unknown } }, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.data as Record<string, unknown> & { id: string };
  };
  const teacher = await makePerson(app, key, 'faculty', 'Grace Hopper');
  const group = data(await as(app.http.post('/v1/groups')).send({ name: 'Algorithms', faculty_id: teacher.id, student_ids: [student.id] }), 'group');
  const exam = data(
    await as(app.http.post('/v1/exams')).send({
      faculty_id: teacher.id,
      title: 'Sorting',
      app: 'code',
      max_score: 10,
      time_limit_minutes: 60,
      code_spec: { toolchain: 'python-3.12' },
    }),
    'exam',
  );
  const starter = randomBytes(300_000);
  const uploaded = data(await as(app.http.post(`/v1/exams/${exam.id}/files`)).attach('file', starter, 'starter.zip'), 'starter upload');
  data(await as(app.http.patch(`/v1/exams/${exam.id}`)).send({ code_spec: { toolchain: 'python-3.12', starter: uploaded.ref } }), 'code spec');
  data(await as(app.http.post(`/v1/exams/${exam.id}/assignments`)).send({ group_ids: [group.id] }), 'assignment');
  data(await as(app.http.post(`/v1/exams/${exam.id}/publish`)).send({}), 'publish');

  const session = await learnerSession(app, key, student, { mint: { app: 'code' }, exchange: { device: { id: 'device-ada', name: "Ada's laptop" } } });
  const asLearner = <T extends { set(name: string, value: string): T }>(request: T) => request.set('Authorization', `Bearer ${session}`);
  const attempt = data(await asLearner(app.http.post(`/v1/app/exams/${exam.id}/attempts`)).send({}), 'attempt');
  const solution = Buffer.from('def sort(xs):\n    return sorted(xs)\n');
  const file = data(await asLearner(app.http.post(`/v1/app/attempts/${attempt.id}/files`)).attach('file', solution, 'solution.py'), 'solution upload');
  const submission = data(await asLearner(app.http.post(`/v1/app/attempts/${attempt.id}/submit`)).send({ answers: {}, files: [file.ref] }), 'submit');
  return { examId: exam.id, submissionId: submission.id, starter, solution };
}

// A backup is a copy of the SQLite file; PostgreSQL is backed up with its own tools (docs/scale-out.md).
describe.skipIf(onPostgres())('moving to a new computer', () => {
  it('backup + recovery kit → fresh data folder → import + restore → start: the data, its encrypted fields and its uploaded files read back', async () => {
    // The old computer: a school with students whose personal emails are sealed with its key, a
    // coding exam with its starter archive, and a submission with a file.
    const old: TestAppliance = await startTestAppliance();
    const { key } = await makeSchool(old);
    const ada = await makePerson(old, key, 'students', 'Ada Lovelace', { personal_email: 'ada@home.example' });
    await makePerson(old, key, 'students', 'Alan Turing', { personal_email: 'alan@home.example' });
    const { examId, submissionId, starter, solution } = await codingExamWithSubmission(old, key, ada);
    const backupFile = ok<{ file: string; files: number }>(await cli(old.dataDir, null, 'backup')).file;
    const usb = makeDataDir();
    const kitFile = ok<{ file: string }>(await cli(old.dataDir, PASSPHRASE, 'recovery-kit', 'export', '--out', usb)).file;
    fs.copyFileSync(backupFile, path.join(usb, path.basename(backupFile)));
    await old.close();

    // The new computer: installed and started once (its own new key and empty database), then stopped.
    const fresh = await startedOnce();
    ok(await cli(fresh, PASSPHRASE, 'recovery-kit', 'import', kitFile));
    ok(await cli(fresh, null, 'restore', path.join(usb, path.basename(backupFile))));

    const moved = await startTestAppliance({ dataDir: fresh });
    try {
      const found = await moved.http.get('/v1/students').query({ email: 'ada@home.example' }).set('Authorization', key.auth);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.data.items.map((item: { id: string }) => item.id)).toEqual([ada.id]);
      const row = await moved.ctx.db.models.Person.findByPk(ada.id);
      expect(moved.ctx.db.fieldCrypto.decrypt(row!.personal_email_sealed!, 'people.personal_email')).toBe('ada@home.example');

      // Both files download byte for byte from the new computer, through the links it signs.
      const exam = await moved.http.get(`/v1/exams/${examId}`).set('Authorization', key.auth);
      expect(exam.status, JSON.stringify(exam.body)).toBe(200);
      const starterLink = (exam.body.data.files as Array<{ kind: string; url: string }>).find((file) => file.kind === 'starter');
      expect(await download(moved, starterLink!.url)).toEqual(starter);
      const submission = await moved.http.get(`/v1/submissions/${submissionId}`).set('Authorization', key.auth);
      expect(submission.status, JSON.stringify(submission.body)).toBe(200);
      const attachments = submission.body.data.attachments as Array<{ name: string; url: string }>;
      expect(attachments.map((file) => file.name)).toEqual(['solution.py']);
      expect(await download(moved, attachments[0]!.url)).toEqual(solution);
    } finally {
      await moved.close();
    }
  });

  it('without the recovery kit the restored data is there but its encrypted fields do not open', async () => {
    const old = await startTestAppliance();
    const { key } = await makeSchool(old);
    const ada = await makePerson(old, key, 'students', 'Ada Lovelace', { personal_email: 'ada@home.example' });
    const backupFile = ok<{ file: string }>(await cli(old.dataDir, null, 'backup')).file;
    const usb = makeDataDir();
    fs.copyFileSync(backupFile, path.join(usb, 'copy.sqlite'));
    await old.close();

    const fresh = await startedOnce();
    ok(await cli(fresh, null, 'restore', path.join(usb, 'copy.sqlite')));
    const moved = await startTestAppliance({ dataDir: fresh });
    try {
      const found = await moved.http.get('/v1/students').query({ email: 'ada@home.example' }).set('Authorization', key.auth);
      expect(found.body.data.items).toEqual([]);
      const row = await moved.ctx.db.models.Person.findByPk(ada.id);
      expect(() => moved.ctx.db.fieldCrypto.decrypt(row!.personal_email_sealed!, 'people.personal_email')).toThrow();
    } finally {
      await moved.close();
    }
  });
});
