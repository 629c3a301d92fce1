// @tier integration
// @databases sqlite, postgres
// Outgoing mail: the outbox, the SMTP settings and the mailer, against a real SMTP server on
// 127.0.0.1 (smtp-server). Nothing here connects anywhere but 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeMailError, MAX_MAIL_ATTEMPTS } from '../server/mail/mailer.js';
import { maskEmail } from '../server/mail/outbox.js';
import { clearSmtpSettings, getSmtpSettings, setSmtpSettings } from '../server/mail/smtp-settings.js';
import type { MailOutboxRow } from '../server/models/mail.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';
import { runCliCaptured } from './helpers/cli.js';
import { closedPort } from './helpers/net.js';
import { writeApplianceSetting } from '../server/settings/appliance-settings.js';
import { startSmtpServer } from './helpers/smtp.js';
import { waitFor } from './helpers/wait.js';

const FROM = 'Riverside High <noreply@riverside.example>';

/** Quoted-printable soft line breaks undone, so links can be searched in the raw message. */
const decodeQp = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

describe('mail', () => {
  let app: TestAppliance;
  let inst: TestInstitution;
  let key: TestKey;
  const servers: Array<{ close: () => Promise<void> }> = [];

  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());
  afterEach(async () => {
    await clearSmtpSettings(app.ctx.db);
    // Every test starts from an empty outbox, so each only sees its own mail.
    await app.ctx.db.models.MailOutbox.destroy({ where: {} });
    while (servers.length) await servers.pop()!.close();
  });

  async function inviteGuardian(guardianEmail = 'maria@example.org'): Promise<{ linkId: string; studentId: string }> {
    inst = await makeInstitution(app);
    key = await makeKey(app, inst);
    const student = await app.http
      .post('/v1/students')
      .set('Authorization', key.auth)
      .send({ full_name: 'Ada Lovelace', personal_email: 'ada.home@family.example' });
    expect(student.status).toBe(200);
    const link = await app.http
      .post('/v1/guardians')
      .set('Authorization', key.auth)
      .send({ student_id: student.body.data.id, guardian_email: guardianEmail, guardian_type: 'mother' });
    expect(link.status).toBe(200);
    return { linkId: link.body.data.id, studentId: student.body.data.id };
  }

  const rows = (): Promise<MailOutboxRow[]> => app.ctx.db.models.MailOutbox.findAll({ order: [['created_at', 'ASC']] });

  it('without SMTP configured, mail waits as queued and no attempt is counted', async () => {
    await inviteGuardian();
    const result = await app.scheduler.runNow('send-mail');
    expect(result).toEqual({ configured: false, sent: 0, retrying: 0, failed: 0, dropped: 0 });
    const [row] = await rows();
    expect(row).toMatchObject({ status: 'queued', attempts: 0, last_error: null, sent_at: null });
  });

  it('with SMTP configured, an invitation is delivered promptly with its accept link and the row becomes sent', async () => {
    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, secure: false, from: FROM });

    await inviteGuardian('Maria.Guardian@Example.org');
    const message = await waitFor(async () => smtp.received[0], 'the message');
    expect(message.to).toEqual(['maria.guardian@example.org']);
    expect(message.from).toBe('noreply@riverside.example');
    const body = decodeQp(message.raw);
    expect(body).toMatch(new RegExp(`${app.origin}/guardian/accept\\?token=[A-Za-z0-9]{32}`));
    expect(body).toMatch(/^Subject: .*confirm/im);
    expect(body).toMatch(/^Auto-Submitted: auto-generated/im);
    expect(body).not.toContain('ada.home@family.example');

    const row = await waitFor(async () => (await rows()).find((r) => r.status === 'sent'), 'the row to be sent');
    expect(row.attempts).toBe(0);
    expect(row.sent_at).toBeInstanceOf(Date);
    expect(row.last_error).toBeNull();

    // The link in the mail works.
    const token = /token=([A-Za-z0-9]{32})/.exec(body)![1]!;
    expect((await app.http.get('/guardian/accept').query({ token })).status).toBe(200);
    expect(app.logText()).not.toContain('maria.guardian@example.org');
  });

  it('mail that waited for a server goes out once SMTP is configured', async () => {
    await inviteGuardian();
    expect((await rows())[0]!.status).toBe('queued');
    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await waitFor(async () => smtp.received.length === 1, 'the message');
    await waitFor(async () => (await rows())[0]!.status === 'sent', 'the row to be sent');
  });

  it('an invitation that waited goes out with the address set since, not the one it was queued with', async () => {
    // Queued while links default to this computer's address (no mail server yet)…
    await inviteGuardian();
    expect((await rows())[0]).toMatchObject({ status: 'queued', link_base: app.origin });
    // …then the operator sets the address other computers use, and a mail server.
    await writeApplianceSetting(app.ctx.db, 'public_url', 'http://campusbridge.riverside.lan:4780');
    try {
      const smtp = await startSmtpServer();
      servers.push(smtp);
      await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
      await app.scheduler.runNow('send-mail');
      const body = decodeQp((await waitFor(async () => smtp.received[0], 'the message')).raw);
      expect(body).toMatch(/http:\/\/campusbridge\.riverside\.lan:4780\/guardian\/accept\?token=[A-Za-z0-9]{32}/);
      expect(body).not.toContain(app.origin);
    } finally {
      await writeApplianceSetting(app.ctx.db, 'public_url', 'default');
    }
  });

  it('a failing SMTP server counts attempts (row stays queued) and gives up as failed after 5', async () => {
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: await closedPort(), from: FROM });
    await inviteGuardian('unlucky.parent@example.org');

    // The after-commit send is the first attempt.
    const first = await waitFor(async () => (await rows()).find((r) => r.attempts === 1), 'the first attempt');
    expect(first.status).toBe('queued');
    expect(first.last_error).toMatch(/ECONNREFUSED/);
    expect(first.sent_at).toBeNull();

    // Each run of the job is one more attempt (the every-minute schedule could add one in between,
    // so the count is checked to grow rather than to equal the loop index).
    let attempts = 1;
    for (let run = 0; attempts < MAX_MAIL_ATTEMPTS; run += 1) {
      expect(run).toBeLessThan(MAX_MAIL_ATTEMPTS - 1);
      const result = await app.scheduler.runNow('send-mail');
      expect(result).toMatchObject({ configured: true, sent: 0 });
      const [row] = await rows();
      expect(row!.attempts).toBeGreaterThan(attempts);
      attempts = row!.attempts;
      expect(row!.status).toBe(attempts < MAX_MAIL_ATTEMPTS ? 'queued' : 'failed');
      expect(row!.last_error).toMatch(/ECONNREFUSED/);
    }
    expect(attempts).toBe(MAX_MAIL_ATTEMPTS);
    // A failed row is left alone afterwards.
    expect(await app.scheduler.runNow('send-mail')).toMatchObject({ sent: 0, retrying: 0, failed: 0 });
    expect((await rows())[0]!.attempts).toBe(MAX_MAIL_ATTEMPTS);
    expect(app.logText()).not.toContain('unlucky.parent@example.org');
  });

  it('a server refusing the recipient: last_error and logs carry no address', async () => {
    const smtp = await startSmtpServer({ rejectRecipients: true });
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await inviteGuardian('refused.parent@example.org');
    const row = await waitFor(async () => (await rows()).find((r) => r.attempts === 1), 'the first attempt');
    expect(row.status).toBe('queued');
    expect(row.last_error).toMatch(/550/);
    expect(row.last_error).not.toMatch(/refused\.parent|example\.org|@/);
    expect(app.logText()).not.toContain('refused.parent');
  });

  it('describeMailError and maskEmail drop addresses', () => {
    expect(describeMailError(Object.assign(new Error('Mailbox <a.b@x.example> unavailable; from c@d.example'), { code: 'EENVELOPE', responseCode: 550 }))).toBe(
      'EENVELOPE 550 Mailbox [address] unavailable; from [address]',
    );
    expect(maskEmail('alice@example.org')).toBe('a•••@example.org');
    expect(maskEmail('x@y.example')).toBe('x•••@y.example');
  });

  describe('SMTP settings', () => {
    const cli = (...argv: string[]) => runCliCaptured(app.dataDir, ...argv);
    const PASSWORD = 'Sup3r-Secret-SMTP-pass';

    it('`smtp set`/`show`/`clear` never print the password; it is stored sealed', async () => {
      const set = await cli('smtp', 'set', '--host', '127.0.0.1', '--port', '2525', '--user', 'mailer', '--password', PASSWORD, '--from', FROM);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).not.toContain(PASSWORD);
      const shown = JSON.parse(set.stdout);
      expect(shown).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false, user: 'mailer', from: FROM, password_set: true });
      expect(shown).not.toHaveProperty('password');

      const show = await cli('smtp', 'show');
      expect(show.code).toBe(0);
      expect(show.stdout).not.toContain(PASSWORD);
      expect(JSON.parse(show.stdout)).toMatchObject({ password_set: true, user: 'mailer' });

      const row = await app.ctx.db.models.AppSetting.findByPk('smtp');
      expect(JSON.stringify(row!.value)).not.toContain(PASSWORD);
      expect(await getSmtpSettings(app.ctx.db)).toMatchObject({ password_set: true });

      // Without --password the same user keeps the stored password; a new user drops it.
      const keep = await cli('smtp', 'set', '--host', '127.0.0.1', '--port', '2526', '--secure', '--user', 'mailer', '--from', FROM);
      expect(JSON.parse(keep.stdout)).toMatchObject({ port: 2526, secure: true, password_set: true });
      const other = await cli('smtp', 'set', '--host', '127.0.0.1', '--port', '2526', '--user', 'someone', '--from', FROM);
      expect(JSON.parse(other.stdout)).toMatchObject({ user: 'someone', password_set: false });

      const clear = await cli('smtp', 'clear');
      expect(clear.code).toBe(0);
      expect(JSON.parse(clear.stdout)).toBeNull();
      expect(JSON.parse((await cli('smtp', 'show')).stdout)).toBeNull();
      expect(app.logText()).not.toContain(PASSWORD);
    });

    it('refuses invalid settings with validation_error (exit 1) and bad usage with exit 2', async () => {
      const cases = [
        ['--host', '127.0.0.1', '--port', 'abc', '--from', FROM],
        ['--host', '127.0.0.1', '--port', '70000', '--from', FROM],
        ['--host', 'bad host', '--port', '25', '--from', FROM],
        ['--host', '127.0.0.1', '--port', '25', '--from', 'not an address'],
        ['--host', '127.0.0.1', '--port', '25', '--password', 'x', '--from', FROM],
      ];
      for (const args of cases) {
        const res = await cli('smtp', 'set', ...args);
        expect(res.code, args.join(' ')).toBe(1);
        expect(res.stderr).toMatch(/validation_error/);
        expect(res.stderr).not.toContain('x@');
      }
      expect((await cli('smtp', 'set', '--host', '127.0.0.1')).code).toBe(2);
      expect(await getSmtpSettings(app.ctx.db)).toBeNull();
    });

    it('setSmtpSettings validates and accepts a plain from address', async () => {
      await expect(setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: 25, from: 'noreply@school.example', extra: 1 } as never)).rejects.toMatchObject({
        code: 'validation_error',
      });
      const saved = await setSmtpSettings(app.ctx.db, { host: 'smtp.school.example', port: 587, from: 'noreply@school.example' });
      expect(saved).toMatchObject({ host: 'smtp.school.example', port: 587, secure: false, user: null, password_set: false });
    });
  });
});
