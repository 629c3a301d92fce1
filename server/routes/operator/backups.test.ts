// @tier integration
// @databases sqlite, postgres
// Backups in the operator's portal, on real appliances: list, back up now, download, restore a
// listed backup (staged, applied by the next start, with a before-restore copy), the in-process
// restart of `npm start` (dist/server/main.js), the recovery kit download, and the daily job's
// week of copies.
import fs from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { openRecoveryKit } from '../../crypto/recovery-kit.js';
import { FileMasterKeyStore, masterKeyFile } from '../../crypto/master-key.js';
import { backupFileName, dailyBackup } from '../../db/backup.js';
import { dailyBackupJob } from '../../jobs/daily-backup.js';
import { startTestAppliance, tempDataDirs, type TestAppliance } from '../../../tests/helpers/appliance.js';
import { killBundles, startBundle } from '../../../tests/helpers/bundle.js';
import { expectError, ok, portalRequests, setUpPortal, signedInMember, signIn } from '../../../tests/helpers/portal.js';
import { onPostgres } from '../../../tests/helpers/postgres.js';
import { waitFor } from '../../../tests/helpers/wait.js';

const OPERATOR = { institution: 'Northgate School', admin_email: 'operator@northgate.test', admin_password: 'correct horse battery' };
const makeDataDir = tempDataDirs('campusbridge-portal-backup-');
/** A backup is a copy of the SQLite file; PostgreSQL is backed up with its own tools (docs/scale-out.md). */
const itBacksUpSqlite = it.skipIf(onPostgres());
afterAll(killBundles);

interface BackupItem {
  name: string;
  created_at: string;
  size_bytes: number;
  reason: string;
}
interface BackupList {
  items: BackupItem[];
  folder: string;
  pending_restore: { source: string; staged_at: string } | null;
  restart_available: boolean;
}

const operatorApi = (signed: { agent: supertest.Agent; csrf: string }) =>
  portalRequests(
    () => signed,
    () => '/portal/api/operator',
  );
const institutionNames = async (op: ReturnType<typeof operatorApi>) =>
  ok<Array<{ name: string }>>(await op.get('/institutions'))
    .map((row) => row.name)
    .sort();

describe('Portal: backups and restore', () => {
  itBacksUpSqlite('backs up now, lists and downloads; a restore chosen in the portal is applied by the next start', async () => {
    const dataDir = makeDataDir();
    let app: TestAppliance = await startTestAppliance({ dataDir });
    const op = operatorApi(await setUpPortal(app, OPERATOR));
    ok(await op.post('/institutions', { name: 'Before the backup' }));

    // Daily copies (the job may catch up at start) are left out of what this test counts.
    const notDaily = (list: BackupList) => list.items.filter((item) => item.reason !== 'daily');
    const empty = ok<BackupList>(await op.get('/backups'));
    expect(notDaily(empty)).toEqual([]);
    expect(empty).toMatchObject({ pending_restore: null, restart_available: false, folder: path.join(dataDir, 'backups') });
    const made = ok<BackupItem>(await op.post('/backups'));
    expect(made).toMatchObject({ name: expect.stringMatching(/^campusbridge-\d{8}T\d{6}\.\d{3}Z-manual\.sqlite$/), reason: 'manual' });
    expect(made.size_bytes).toBe(fs.statSync(path.join(dataDir, 'backups', made.name)).size);
    expect(notDaily(ok<BackupList>(await op.get('/backups')))).toEqual([made]);

    const download = await op
      .get(`/backups/${made.name}/download`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/vnd.sqlite3');
    expect(download.headers['content-disposition']).toContain(`filename="${made.name}"`);
    expect((download.body as Buffer).equals(fs.readFileSync(path.join(dataDir, 'backups', made.name)))).toBe(true);

    // Changed after the backup, then the backup chosen: nothing changes until the next start.
    ok(await op.post('/institutions', { name: 'After the backup' }));
    const chosen = ok<{ pending_restore: BackupList['pending_restore']; restarting: boolean }>(
      await op.post(`/backups/${made.name}/restore`, { restart: true }),
    );
    expect(chosen).toMatchObject({ pending_restore: { source: made.name }, restarting: false });
    expect(ok<BackupList>(await op.get('/backups')).pending_restore).toEqual(chosen.pending_restore);
    expect(await institutionNames(op)).toEqual(['After the backup', 'Before the backup', 'Northgate School']);
    expectError(await op.post('/restart'), 409, 'conflict');

    await app.stop();
    app = await startTestAppliance({ dataDir });
    try {
      const again = operatorApi(await signIn(app, OPERATOR.admin_email, OPERATOR.admin_password));
      expect(await institutionNames(again)).toEqual(['Before the backup', 'Northgate School']);
      const after = ok<BackupList>(await again.get('/backups'));
      expect(after.pending_restore).toBeNull();
      expect(
        notDaily(after)
          .map((item) => item.reason)
          .sort(),
      ).toEqual(['before-restore', 'manual']);
      expect(app.logText()).toContain('pending restore restored');
    } finally {
      await app.close();
    }
  });

  itBacksUpSqlite('refuses what is not a listed, intact backup, and anyone but the operator', async () => {
    const app = await startTestAppliance();
    try {
      const operator = await setUpPortal(app, OPERATOR);
      const op = operatorApi(operator);
      expectError(await op.get('/backups/campusbridge-nope.sqlite/download'), 404, 'not_found');
      expectError(await op.post('/backups/campusbridge-nope.sqlite/restore', {}), 404, 'not_found');
      expectError(await op.get(`/backups/${encodeURIComponent('../campusbridge.sqlite')}/download`), 422, 'validation_error');
      expectError(await op.post(`/backups/${encodeURIComponent('../campusbridge.sqlite')}/restore`, {}), 422, 'validation_error');
      expectError(await op.post('/backups/campusbridge-nope.sqlite/restore', { restart: 'yes' }), 422, 'validation_error');

      // A file put in the folder by hand is listed ("other"), and verified before it is chosen.
      fs.mkdirSync(path.join(app.dataDir, 'backups'), { recursive: true });
      fs.writeFileSync(path.join(app.dataDir, 'backups', 'from-a-usb-stick.sqlite'), 'not a database'.repeat(100));
      expect(ok<BackupList>(await op.get('/backups')).items.filter((item) => item.reason === 'other')).toMatchObject([{ name: 'from-a-usb-stick.sqlite' }]);
      expectError(await op.post('/backups/from-a-usb-stick.sqlite/restore', {}), 422, 'validation_error');
      expect(ok<BackupList>(await op.get('/backups')).pending_restore).toBeNull();

      // Cancelling a choice.
      const made = ok<BackupItem>(await op.post('/backups'));
      ok(await op.post(`/backups/${made.name}/restore`, {}));
      expect(ok(await op.del('/pending-restore'))).toEqual({ cancelled: true });
      expect(ok<BackupList>(await op.get('/backups')).pending_restore).toBeNull();

      const admin = await signedInMember(app, operator.institutionId, 'admin');
      const asAdmin = operatorApi(admin);
      expectError(await asAdmin.get('/backups'), 403, 'forbidden');
      expectError(await asAdmin.post('/backups'), 403, 'forbidden');
      expectError(await asAdmin.get(`/backups/${made.name}/download`), 403, 'forbidden');
      expectError(await supertest(app.origin).get('/portal/api/operator/backups'), 401, 'unauthorized');
      // Writes need the CSRF token.
      expect((await operator.agent.post('/portal/api/operator/backups').send({})).status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('downloads a recovery kit sealed with the passphrase typed in', async () => {
    const app = await startTestAppliance();
    try {
      const op = operatorApi(await setUpPortal(app, OPERATOR));
      expectError(await op.post('/recovery-kit', { passphrase: 'short' }), 422, 'validation_error');
      const kit = ok<{ file_name: string; content: string }>(await op.post('/recovery-kit', { passphrase: 'a long enough passphrase' }));
      expect(kit.file_name).toMatch(/^campusbridge-recovery-kit-\d{8}T\d{6}Z\.json$/);
      const key = await openRecoveryKit(kit.content, 'a long enough passphrase');
      expect(key.equals(new FileMasterKeyStore(masterKeyFile(app.dataDir)).load()!)).toBe(true);
      await expect(openRecoveryKit(kit.content, 'another long passphrase')).rejects.toThrow('does not open');
    } finally {
      await app.close();
    }
  });

  itBacksUpSqlite('npm start restarts itself on request, applying the restore, on the same port', async () => {
    const dataDir = makeDataDir();
    const server = await startBundle(dataDir);
    try {
      const agent = supertest.agent(server.origin);
      const session = ok<{ csrf_token: string }>(await agent.post('/portal/api/setup').send(OPERATOR));
      const op = operatorApi({ agent, csrf: session.csrf_token });
      ok(await op.post('/institutions', { name: 'Before the backup' }));
      const list = ok<BackupList>(await op.get('/backups'));
      expect(list.restart_available).toBe(true);
      const made = ok<BackupItem>(await op.post('/backups'));
      ok(await op.post('/institutions', { name: 'After the backup' }));

      const chosen = ok<{ restarting: boolean }>(await op.post(`/backups/${made.name}/restore`, { restart: true }));
      expect(chosen.restarting).toBe(true);
      await waitFor(() => (server.stdout().match(/listening on/g) ?? []).length === 2 || undefined, 'the second start line', {
        timeoutMs: 20_000,
        intervalMs: 50,
        context: server.output,
      });
      expect(server.stdout().match(/listening on (\S+)/g)).toEqual([`listening on ${server.origin}`, `listening on ${server.origin}`]);
      // The session was in the backup, so the same browser is still signed in.
      expect(await institutionNames(op)).toEqual(['Before the backup', 'Northgate School']);
      expect(ok<BackupList>(await op.get('/backups')).pending_restore).toBeNull();
      // And a plain restart works too.
      expect(ok(await op.post('/restart'))).toEqual({ restarting: true });
      await waitFor(() => (server.stdout().match(/listening on/g) ?? []).length === 3 || undefined, 'the third start line', {
        timeoutMs: 20_000,
        intervalMs: 50,
        context: server.output,
      });
      expect(await institutionNames(op)).toEqual(['Before the backup', 'Northgate School']);
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await server.kill();
    }
  });
});

describe('daily backups', () => {
  it.runIf(onPostgres())('on PostgreSQL, the daily job copies nothing and says why instead of failing', async () => {
    const app = await startTestAppliance();
    try {
      expect(await dailyBackupJob.run(app.ctx)).toEqual({ skipped: expect.stringContaining('pg_dump') });
      expect(fs.existsSync(path.join(app.dataDir, 'backups'))).toBe(false);
    } finally {
      await app.close();
    }
  });

  itBacksUpSqlite('keeps the seven newest daily copies and never touches another kind', async () => {
    const app = await startTestAppliance();
    try {
      const dir = path.join(app.dataDir, 'backups');
      fs.mkdirSync(dir, { recursive: true });
      const others = [
        backupFileName('manual', new Date('2026-01-01T00:00:00Z')),
        backupFileName('before-restore', new Date('2026-01-02T00:00:00Z')),
        backupFileName('before-20260101000000-x', new Date('2026-01-03T00:00:00Z')),
        'by-hand.sqlite',
      ];
      for (const name of others) fs.writeFileSync(path.join(dir, name), 'x');
      const days = Array.from({ length: 9 }, (_, day) => new Date(Date.UTC(2026, 0, 10 + day, 2, 40)));
      for (const at of days) await dailyBackup({ databaseFile: app.ctx.config.databaseFile, uploadsDir: path.join(app.dataDir, 'uploads') }, at);
      const daily = fs.readdirSync(dir).filter((name) => name.endsWith('-daily.sqlite'));
      expect(daily.sort()).toEqual(days.slice(2).map((at) => backupFileName('daily', at)));
      for (const name of others) expect(fs.existsSync(path.join(dir, name))).toBe(true);

      const result = await dailyBackupJob.run(app.ctx);
      expect(result).toMatchObject({ file: expect.stringMatching(/-daily\.sqlite$/), removed: 1 });
      expect(fs.readdirSync(dir).filter((name) => name.endsWith('-daily.sqlite'))).toHaveLength(7);
      expect(fs.existsSync(path.join(dir, backupFileName('daily', days[2]!)))).toBe(false);
    } finally {
      await app.close();
    }
  });
});
