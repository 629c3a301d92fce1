// @tier integration
// @databases sqlite, postgres
// Mail that tells the truth (docs/decisions/guardians-and-mail.md): mail that waited for a mail server and has gone stale (an
// expired, replaced, accepted or withdrawn invitation, a closed or deleted exam) is dropped with
// its reason instead of sent, and the portal's outbox says where each message stands. Real
// appliance, real SMTP server, both on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../server/crypto/tokens.js';
import { newId } from '../server/ids.js';
import { queueMail } from '../server/mail/outbox.js';
import { clearSmtpSettings, setSmtpSettings } from '../server/mail/smtp-settings.js';
import type { MailOutboxRow } from '../server/models/mail.js';
import { makeSchool, outboxText, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';
import { closedPort } from './helpers/net.js';
import { institutionApi, ok, signedInMember } from './helpers/portal.js';
import { startSmtpServer } from './helpers/smtp.js';
import { waitFor } from './helpers/wait.js';

const FROM = 'Riverside High <noreply@riverside.example>';
const TOKEN_IN_LINK = /\/guardian\/accept\?token=([A-Za-z0-9]{32})/;
const HOUR_MS = 60 * 60 * 1000;

interface OutboxItem {
  id: string;
  to: string;
  kind: string;
  status: string;
  dropped_reason: string | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  sent_at: string | null;
}

describe('stale mail', () => {
  let app: TestAppliance;
  const servers: Array<{ close: () => Promise<void> }> = [];

  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());
  afterEach(async () => {
    await clearSmtpSettings(app.ctx.db);
    await app.ctx.db.models.MailOutbox.destroy({ where: {} });
    while (servers.length) await servers.pop()!.close();
  });

  const send = (key: TestKey, method: 'post' | 'delete', path: string, body?: unknown) => {
    const request = app.http[method](`/v1${path}`).set('Authorization', key.auth);
    return body === undefined ? request : request.send(body as object);
  };
  async function created<T = { id: string }>(key: TestKey, path: string, body: unknown): Promise<T> {
    const res = await send(key, 'post', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as T;
  }

  const mailOf = async (inst: TestInstitution, where: Partial<Pick<MailOutboxRow, 'kind' | 'about_id'>> = {}) =>
    app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: inst.id, ...where }, order: [['created_at', 'ASC']] });

  /** Only the row's recipient is sealed; the test knows whom each message was for by its masked address. */
  const byRecipient = (rows: OutboxItem[]) => Object.fromEntries(rows.map((row) => [row.to, row]));

  async function outboxAsAdmin(inst: TestInstitution): Promise<{ mail_server_configured: boolean; items: OutboxItem[] }> {
    const admin = await signedInMember(app, inst.id, 'admin');
    return ok(await admin.agent.get(`${institutionApi(inst.id)}/outbox`).query({ limit: 200 }));
  }

  /** A school with a teacher, a group of students (each with a personal email) and a way to invite guardians. */
  async function school() {
    const { inst, key } = await makeSchool(app);
    const teacher = await created(key, '/faculty', { full_name: 'Alan Turing' });
    const ada = await created(key, '/students', { full_name: 'Ada Lovelace', personal_email: 'ada.home@family.example' });
    const group = await created(key, '/groups', { name: 'Year 10', faculty_id: teacher.id, student_ids: [ada.id] });
    const invite = (email: string) => created(key, '/guardians', { student_id: ada.id, guardian_email: email, guardian_type: 'mother' });
    const exam = (title: string) => created(key, '/exams', { faculty_id: teacher.id, title, publish: true, group_ids: [group.id] });
    return { inst, key, invite, exam };
  }

  it('drops what went stale while no mail server was set, with its reason, and sends the rest once one is', async () => {
    const s = await school();
    // Exam notices (before any guardian is verified, so students only): one exam closes, one is deleted, one stays open.
    const closed = await s.exam('Closed quiz');
    expect((await send(s.key, 'post', `/exams/${closed.id}/close`)).status).toBe(200);
    const deleted = await s.exam('Deleted quiz');
    expect((await send(s.key, 'delete', `/exams/${deleted.id}`)).status).toBe(200);
    const open = await s.exam('Open quiz');
    // Guardian invitations: one expires, one is resent (its first link dies), one is accepted, one withdrawn, one stays good.
    const expiring = await s.invite('expiring@parents.example');
    await app.ctx.db.models.GuardianLink.update({ invite_expires_at: new Date(Date.now() - HOUR_MS) }, { where: { id: expiring.id } });
    await app.ctx.db.models.MailOutbox.update({ expires_at: new Date(Date.now() - HOUR_MS) }, { where: { about_id: expiring.id } });
    const resent = await s.invite('resent@parents.example');
    await created(s.key, `/guardians/${resent.id}/resend`, {});
    const accepted = await s.invite('accepted@parents.example');
    const [acceptedMail] = await mailOf(s.inst, { about_id: accepted.id });
    const token = TOKEN_IN_LINK.exec(outboxText(app, acceptedMail))![1]!;
    expect((await app.http.post('/guardian/accept').query({ token })).status).toBe(200);
    const withdrawn = await s.invite('withdrawn@parents.example');
    expect((await send(s.key, 'delete', `/guardians/${withdrawn.id}`)).status).toBe(200);
    await s.invite('fresh@parents.example');

    const before = await mailOf(s.inst);
    expect(before).toHaveLength(9);

    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await waitFor(async () => (await mailOf(s.inst)).every((row) => row.status !== 'queued'), 'every message settled');

    // Only what is still true went out: the good invitation, the resent link and the open exam's notice.
    const delivered = smtp.received.flatMap((message) => message.to).sort();
    expect(delivered).toEqual(['ada.home@family.example', 'fresh@parents.example', 'resent@parents.example']);
    const resentMessage = smtp.received.find((message) => message.to.includes('resent@parents.example'))!;
    const resentToken = TOKEN_IN_LINK.exec(resentMessage.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1]!;
    expect((await app.http.post('/guardian/accept').query({ token: resentToken })).status).toBe(200);
    expect(smtp.received.some((message) => message.raw.includes('Closed quiz') || message.raw.includes('Deleted quiz'))).toBe(false);

    const rows = await mailOf(s.inst);
    const reasonOf = (id: string, status = 'dropped') => rows.filter((row) => row.about_id === id && row.status === status).map((row) => row.dropped_reason);
    expect(reasonOf(expiring.id)).toEqual(['link_expired']);
    expect(reasonOf(resent.id)).toEqual(['link_replaced']);
    expect(reasonOf(resent.id, 'sent')).toEqual([null]);
    expect(reasonOf(accepted.id)).toEqual(['invitation_accepted']);
    expect(reasonOf(withdrawn.id)).toEqual(['invitation_revoked']);
    expect(reasonOf(closed.id)).toEqual(['exam_closed']);
    expect(reasonOf(deleted.id)).toEqual(['exam_deleted']);
    expect(reasonOf(open.id, 'sent')).toEqual([null]);
    // Nothing dropped keeps its body (an invitation's link).
    for (const row of rows) expect(row.body_sealed).toBeNull();

    // The outbox says the same, per message.
    const outbox = await outboxAsAdmin(s.inst);
    expect(outbox.mail_server_configured).toBe(true);
    const shown = byRecipient(outbox.items.filter((item) => item.kind === 'guardian_invite' && item.status === 'dropped'));
    expect(shown['e•••@parents.example']).toMatchObject({ status: 'dropped', dropped_reason: 'link_expired', next_attempt_at: null, sent_at: null });
    expect(shown['a•••@parents.example']).toMatchObject({ dropped_reason: 'invitation_accepted' });
    expect(shown['w•••@parents.example']).toMatchObject({ dropped_reason: 'invitation_revoked' });
    const notices = outbox.items.filter((item) => item.kind === 'exam_assigned');
    expect(notices.map((item) => [item.status, item.dropped_reason])).toEqual([
      ['sent', null],
      ['dropped', 'exam_deleted'],
      ['dropped', 'exam_closed'],
    ]);
    expect(notices[0]!.sent_at).toEqual(expect.any(String));
  });

  it('portal invitations are judged on the invitation row: accepted, replaced, withdrawn or expired is dropped', async () => {
    const { inst } = await makeSchool(app);
    // As server/commands/accounts/invitations.ts does: the link is made, then the mail is queued about the invitation.
    const invite = (email: string) =>
      inst.tenant.inTransaction(async (tx) => {
        const invitation = await tx.invitations.create({
          id: newId('inv'),
          email,
          role: 'developer',
          status: 'pending',
          token_hash: hashToken(newId('tok')),
          expires_at: new Date(Date.now() + 7 * 24 * HOUR_MS),
          invited_by: null,
          sent_at: new Date(),
          accepted_at: null,
          accepted_by: null,
        });
        await queueMail(tx, {
          to: email,
          subject: 'You are invited',
          text: 'Open the link',
          kind: 'developer_invite',
          expiresAt: invitation.expires_at,
          about: { kind: 'invitation', id: invitation.id },
        });
        return invitation;
      });
    const accepted = await invite('accepted@dev.example');
    await accepted.update({ status: 'accepted', token_hash: null, accepted_at: new Date() });
    const replaced = await invite('replaced@dev.example');
    await replaced.update({ token_hash: hashToken('a newer link') });
    const withdrawn = await invite('withdrawn@dev.example');
    await withdrawn.destroy();
    // The invitation's own expiry counts even when the message's is later.
    const expired = await invite('expired@dev.example');
    await expired.update({ expires_at: new Date(Date.now() - 1000) });
    await invite('fresh@dev.example');

    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await waitFor(async () => (await mailOf(inst)).every((row) => row.status !== 'queued'), 'every message settled');

    expect(smtp.received.flatMap((message) => message.to)).toEqual(['fresh@dev.example']);
    const reasons = Object.fromEntries((await mailOf(inst)).map((row) => [row.to_masked, row.dropped_reason]));
    expect(reasons).toEqual({
      'a•••@dev.example': 'invitation_accepted',
      'r•••@dev.example': 'link_replaced',
      'w•••@dev.example': 'invitation_revoked',
      'e•••@dev.example': 'link_expired',
      'f•••@dev.example': null,
    });
  });

  it('while no mail server is set, the send-mail job drops stale mail and the outbox says the rest waits for a server', async () => {
    const s = await school();
    const closed = await s.exam('Closed quiz');
    const open = await s.exam('Open quiz');
    await s.invite('waiting@parents.example');
    expect((await send(s.key, 'post', `/exams/${closed.id}/close`)).status).toBe(200);

    const result = await app.scheduler.runNow('send-mail');
    expect(result).toMatchObject({ configured: false, sent: 0 });
    const rows = await mailOf(s.inst);
    expect(rows.find((row) => row.about_id === closed.id)).toMatchObject({ status: 'dropped', dropped_reason: 'exam_closed', body_sealed: null });
    expect(rows.find((row) => row.about_id === open.id)).toMatchObject({ status: 'queued', dropped_reason: null });

    const outbox = await outboxAsAdmin(s.inst);
    expect(outbox.mail_server_configured).toBe(false);
    const waiting = outbox.items.filter((item) => item.status === 'queued');
    expect(waiting).toHaveLength(2);
    for (const item of waiting) expect(item).toMatchObject({ attempts: 0, next_attempt_at: null, dropped_reason: null });
    const admin = await signedInMember(app, s.inst.id, 'admin');
    const dropped = ok<{ items: OutboxItem[] }>(await admin.agent.get(`${institutionApi(s.inst.id)}/outbox`).query({ status: 'dropped' }));
    expect(dropped.items.map((item) => [item.kind, item.dropped_reason])).toEqual([['exam_assigned', 'exam_closed']]);
    // The old status name is gone: a clear 422, not an empty list.
    expect((await admin.agent.get(`${institutionApi(s.inst.id)}/outbox`).query({ status: 'expired' })).status).toBe(422);

    // The prune job does the same for anything the sender has not picked up.
    expect((await send(s.key, 'post', `/exams/${open.id}/close`)).status).toBe(200);
    await app.scheduler.runNow('prune-mail');
    expect((await mailOf(s.inst, { about_id: open.id }))[0]).toMatchObject({ status: 'dropped', dropped_reason: 'exam_closed' });
  });

  it('a failing server: the outbox gives the attempts, the error and the next try', async () => {
    const s = await school();
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: await closedPort(), from: FROM });
    await s.invite('unlucky@parents.example');
    await waitFor(async () => (await mailOf(s.inst))[0]?.attempts === 1, 'the first attempt');

    const outbox = await outboxAsAdmin(s.inst);
    expect(outbox.mail_server_configured).toBe(true);
    const [item] = outbox.items;
    expect(item).toMatchObject({ status: 'queued', last_error: expect.stringMatching(/ECONNREFUSED/), dropped_reason: null });
    expect(item!.attempts).toBeGreaterThanOrEqual(1);
    // The send-mail job runs at the start of every minute.
    const next = Date.parse(item!.next_attempt_at!);
    expect(next % 60_000).toBe(0);
    expect(next).toBeGreaterThan(Date.now() - 5_000);
    expect(next - Date.now()).toBeLessThanOrEqual(60_000);
  });

  it('a weekly report is not mailed to a guardian who was unlinked meanwhile', async () => {
    const s = await school();
    const link = await s.invite('report@parents.example');
    const [invitation] = await mailOf(s.inst, { about_id: link.id });
    expect((await app.http.post('/guardian/accept').query({ token: TOKEN_IN_LINK.exec(outboxText(app, invitation))![1]! })).status).toBe(200);
    await app.scheduler.runNow('guardian-reports');
    const [report] = await mailOf(s.inst, { kind: 'guardian_report' });
    expect(report).toMatchObject({ status: 'queued', about_kind: 'guardian_link', about_id: link.id });

    expect((await send(s.key, 'delete', `/guardians/${link.id}`)).status).toBe(200);
    const smtp = await startSmtpServer();
    servers.push(smtp);
    await setSmtpSettings(app.ctx.db, { host: '127.0.0.1', port: smtp.port, from: FROM });
    await waitFor(async () => (await mailOf(s.inst, { kind: 'guardian_report' }))[0]?.status !== 'queued', 'the report settled');
    expect((await mailOf(s.inst, { kind: 'guardian_report' }))[0]).toMatchObject({ status: 'dropped', dropped_reason: 'guardian_removed' });
    expect(smtp.received.flatMap((message) => message.to)).not.toContain('report@parents.example');
  });
});
