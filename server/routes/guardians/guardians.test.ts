// @tier integration
// @databases sqlite, postgres
// Guardians: links, invitations (mail with a one-time acceptance link), the acceptance page,
// weekly reports (command, CLI, API) and the privacy rules around student and guardian emails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWeeklyReports, reportedWeek } from '../../commands/people/guardian-reports.js';
import { newId } from '../../ids.js';
import type { MailOutboxRow } from '../../models/mail.js';
import type { Scope } from '../../policies/scopes.js';
import {
  makeInstitution,
  makeKey,
  outboxText,
  startTestAppliance,
  type TestAppliance,
  type TestInstitution,
  type TestKey,
} from '../../../tests/helpers/appliance.js';
import { runCliCaptured } from '../../../tests/helpers/cli.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const LINK_FIELDS = [
  'guardian_email',
  'guardian_name',
  'guardian_phone',
  'guardian_type',
  'id',
  'invited_at',
  'is_primary',
  'student_id',
  'verified',
  'verified_at',
];
const TOKEN_IN_LINK = /\/guardian\/accept\?token=([A-Za-z0-9]{32})/;

interface Student {
  id: string;
  login_email: string;
  full_name: string;
}

interface Link {
  id: string;
  student_id: string;
  guardian_email: string;
  guardian_type: string;
  guardian_name: string | null;
  guardian_phone: string | null;
  is_primary: boolean;
  verified: boolean;
  invited_at: string;
  verified_at: string | null;
}

describe('Guardians', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  async function setup(scopes: Array<Scope | 'all'> = ['all']): Promise<{ inst: TestInstitution; key: TestKey }> {
    const inst = await makeInstitution(app, { name: `School ${Math.random().toString(36).slice(2, 8)}` });
    return { inst, key: await makeKey(app, inst, { scopes }) };
  }

  const send = (method: 'get' | 'post' | 'delete', path: string, key: TestKey) => app.http[method](path).set('Authorization', key.auth);
  const post = (key: TestKey, path: string, body: unknown) => send('post', path, key).set('Content-Type', 'application/json').send(JSON.stringify(body));

  async function makeStudent(key: TestKey, body: Record<string, unknown> = {}): Promise<Student> {
    const res = await post(key, '/v1/students', { full_name: 'Ada Lovelace', ...body });
    expect(res.status).toBe(200);
    return res.body.data as Student;
  }

  async function invite(key: TestKey, body: Record<string, unknown>): Promise<Link> {
    const res = await post(key, '/v1/guardians', { guardian_type: 'mother', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Link;
  }

  /** Mail rows of one institution, oldest first. */
  function outbox(inst: TestInstitution, kind?: string): Promise<MailOutboxRow[]> {
    return app.ctx.db.models.MailOutbox.findAll({
      where: { institution_id: inst.id, ...(kind ? { kind } : {}) },
      order: [
        ['created_at', 'ASC'],
        ['id', 'ASC'],
      ],
    });
  }

  /** The token of the newest invitation mail to a guardian (recipients are sealed; the masked form and order tell them apart). */
  async function latestToken(inst: TestInstitution): Promise<string> {
    const mails = await outbox(inst, 'guardian_invite');
    const match = TOKEN_IN_LINK.exec(outboxText(app, mails.at(-1)));
    expect(match).not.toBeNull();
    return match![1]!;
  }

  /** The Confirm button of the link's page: a form post to the link's own address. */
  const accept = (token: string) => app.http.post('/guardian/accept').query({ token }).type('form').send('');

  async function events(key: TestKey, type?: string) {
    const res = await send('get', '/v1/events', key).query({ limit: 200, ...(type ? { type } : {}) });
    expect(res.status).toBe(200);
    return res.body.data.items as Array<{ id: string; type: string; data: Record<string, unknown> }>;
  }

  describe('POST /v1/guardians', () => {
    it('creates an unverified link with exactly the documented fields', async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const res = await post(key, '/v1/guardians', {
        student_id: student.id,
        guardian_email: 'Maria.Lovelace@Example.ORG',
        guardian_type: 'mother',
        guardian_name: 'Maria Lovelace',
        guardian_phone: '+44 20 7946 0018',
      });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      const link = res.body.data as Link;
      expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
      expect(link.id).toMatch(/^gdn_/);
      expect(link).toMatchObject({
        student_id: student.id,
        guardian_email: 'maria.lovelace@example.org',
        guardian_type: 'mother',
        guardian_name: 'Maria Lovelace',
        guardian_phone: '+44 20 7946 0018',
        is_primary: false,
        verified: false,
        verified_at: null,
      });
      expect(link.invited_at).toMatch(ISO_MS);
    });

    it('accepts the login email as student_id and defaults optional fields', async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const link = await invite(key, { student_id: student.login_email.toUpperCase(), guardian_email: 'dad@example.org', guardian_type: 'father' });
      expect(link).toMatchObject({ student_id: student.id, guardian_type: 'father', guardian_name: null, guardian_phone: null, is_primary: false });
    });

    it('queues an invitation mail with a one-time acceptance link and emits guardian.invited with ids only', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key, { full_name: 'Ada Lovelace' });
      const link = await invite(key, { student_id: student.id, guardian_email: 'maria@example.org', guardian_name: 'Maria' });

      const [mail, ...others] = await outbox(inst);
      expect(others).toHaveLength(0);
      expect(mail).toMatchObject({ kind: 'guardian_invite', status: 'queued', attempts: 0, to_masked: 'm•••@example.org', last_error: null });
      expect(mail!.to_sealed).not.toContain('maria');
      expect(outboxText(app, mail!)).toContain(`${app.origin}/guardian/accept?token=`);
      expect(outboxText(app, mail!)).toContain('Ada Lovelace');
      expect(outboxText(app, mail!)).toContain('Hello Maria,');

      // Only the SHA-256 of the token is stored, and it expires in 7 days.
      const row = await app.ctx.db.models.GuardianLink.findByPk(link.id);
      const token = await latestToken(inst);
      expect(row!.invite_token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row!.invite_token_hash).not.toContain(token);
      expect(Math.abs(row!.invite_expires_at!.getTime() - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);

      const invited = await events(key, 'guardian.invited');
      expect(invited).toHaveLength(1);
      expect(invited[0]!.data).toEqual({ guardian_id: link.id, student_id: student.id });
    });

    it('same student and guardian email twice is 409 already_added (case-insensitive); another student is fine', async () => {
      const { key } = await setup();
      const a = await makeStudent(key);
      const b = await makeStudent(key, { full_name: 'Alan Turing' });
      await invite(key, { student_id: a.id, guardian_email: 'parent@example.org' });
      const again = await post(key, '/v1/guardians', { student_id: a.login_email, guardian_email: 'PARENT@example.org', guardian_type: 'father' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, error: 'already_added' });
      await invite(key, { student_id: b.id, guardian_email: 'parent@example.org' });
    });

    it('an unknown student is 404 not_found (faculty ids included)', async () => {
      const { key } = await setup();
      const faculty = await post(key, '/v1/faculty', { full_name: 'Grace Hopper' });
      for (const ref of ['stu_doesnotexist', 'nobody@nowhere.campusbridge.local', faculty.body.data.id, faculty.body.data.login_email]) {
        const res = await post(key, '/v1/guardians', { student_id: ref, guardian_email: 'x@example.org', guardian_type: 'guardian' });
        expect(res.status, ref).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
    });

    it('refuses bad input with 422 validation_error', async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const good = { student_id: student.id, guardian_email: 'ok@example.org', guardian_type: 'guardian' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, verified: true }, 'verified'],
        [{ ...good, invite_token_hash: 'x' }, 'invite_token_hash'],
        [{ ...good, guardian_type: 'uncle' }, 'guardian_type'],
        [{ ...good, guardian_email: 'not-an-email' }, 'guardian_email'],
        [{ ...good, guardian_phone: '1'.repeat(51) }, 'guardian_phone'],
        [{ ...good, is_primary: 'yes' }, 'is_primary'],
        [{ guardian_email: 'ok@example.org', guardian_type: 'guardian' }, 'student_id'],
        [{ student_id: student.id, guardian_type: 'guardian' }, 'guardian_email'],
        [{ student_id: student.id, guardian_email: 'ok@example.org' }, 'guardian_type'],
      ];
      for (const [body, field] of cases) {
        const res = await post(key, '/v1/guardians', body);
        expect(res.status, field).toBe(422);
        expect(res.body.error).toBe('validation_error');
        expect(
          res.body.details.map((d: { path: string }) => d.path),
          field,
        ).toContain(field);
      }
      const list = await send('get', '/v1/guardians', key);
      expect(list.body.data.total).toBe(0);
    });

    it('is_primary: making one primary un-primaries the student’s others, and only theirs', async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const other = await makeStudent(key, { full_name: 'Alan Turing' });
      const otherPrimary = await invite(key, { student_id: other.id, guardian_email: 'o@example.org', is_primary: true });
      const first = await invite(key, { student_id: student.id, guardian_email: 'one@example.org', is_primary: true });
      expect(first.is_primary).toBe(true);
      const second = await invite(key, { student_id: student.id, guardian_email: 'two@example.org', is_primary: true, guardian_type: 'father' });
      expect(second.is_primary).toBe(true);
      const third = await invite(key, { student_id: student.id, guardian_email: 'three@example.org', guardian_type: 'guardian' });
      expect(third.is_primary).toBe(false);

      const res = await send('get', `/v1/students/${student.id}/guardians`, key);
      const primaries = (res.body.data.items as Link[]).filter((link) => link.is_primary).map((link) => link.id);
      expect(primaries).toEqual([second.id]);
      const others = await send('get', `/v1/students/${other.id}/guardians`, key);
      expect(others.body.data.items.map((link: Link) => [link.id, link.is_primary])).toEqual([[otherPrimary.id, true]]);
    });

    it('needs guardians:write; guardians:read is not enough', async () => {
      const { key } = await setup(['guardians:read', 'students:write']);
      const student = await makeStudent(key);
      const res = await post(key, '/v1/guardians', { student_id: student.id, guardian_email: 'x@example.org', guardian_type: 'mother' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', missing: ['guardians:write'] });
    });
  });

  describe('GET /v1/guardians', () => {
    it('lists oldest first, pages, and filters by student_id (id or login email) and verified', async () => {
      const { inst, key } = await setup();
      const a = await makeStudent(key);
      const b = await makeStudent(key, { full_name: 'Alan Turing' });
      const a1 = await invite(key, { student_id: a.id, guardian_email: 'a1@example.org' });
      const a2 = await invite(key, { student_id: a.id, guardian_email: 'a2@example.org', guardian_type: 'father' });
      expect((await accept(await latestToken(inst))).status).toBe(200); // a2 verified
      const b1 = await invite(key, { student_id: b.id, guardian_email: 'b1@example.org' });

      const all = await send('get', '/v1/guardians', key);
      expect(all.status).toBe(200);
      expect(all.body.data).toMatchObject({ page: 1, limit: 50, total: 3, totalPages: 1 });
      expect(all.body.data.items.map((link: Link) => link.id)).toEqual([a1.id, a2.id, b1.id]);
      for (const link of all.body.data.items) expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);

      const ids = async (query: Record<string, string | number>) => {
        const res = await send('get', '/v1/guardians', key).query(query);
        expect(res.status, JSON.stringify(query)).toBe(200);
        return res.body.data.items.map((link: Link) => link.id);
      };
      expect(await ids({ student_id: a.id })).toEqual([a1.id, a2.id]);
      expect(await ids({ student_id: a.login_email })).toEqual([a1.id, a2.id]);
      expect(await ids({ student_id: b.id })).toEqual([b1.id]);
      expect(await ids({ student_id: 'stu_unknown' })).toEqual([]);
      expect(await ids({ student_id: 'nobody@x.campusbridge.local' })).toEqual([]);
      expect(await ids({ verified: 'true' })).toEqual([a2.id]);
      expect(await ids({ verified: 'false' })).toEqual([a1.id, b1.id]);
      expect(await ids({ verified: 'false', student_id: a.id })).toEqual([a1.id]);

      const page2 = await send('get', '/v1/guardians', key).query({ page: 2, limit: 2 });
      expect(page2.body.data).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(page2.body.data.items.map((link: Link) => link.id)).toEqual([b1.id]);
    });

    it('refuses bad filters with 422', async () => {
      const { key } = await setup(['guardians:read']);
      for (const query of [{ verified: 'yes' }, { verified: '1' }, { limit: 0 }, { limit: 201 }, { page: 0 }, { student: 'x' }]) {
        const res = await send('get', '/v1/guardians', key).query(query);
        expect(res.status, JSON.stringify(query)).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
    });
  });

  describe('GET /v1/students/{id}/guardians', () => {
    it("lists one student's links by id or login email; unknown is 404", async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const other = await makeStudent(key, { full_name: 'Alan Turing' });
      const l1 = await invite(key, { student_id: student.id, guardian_email: 'g1@example.org' });
      const l2 = await invite(key, { student_id: student.id, guardian_email: 'g2@example.org', guardian_type: 'father' });
      await invite(key, { student_id: other.id, guardian_email: 'g3@example.org' });

      for (const ref of [student.id, student.login_email]) {
        const res = await send('get', `/v1/students/${encodeURIComponent(ref)}/guardians`, key);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body.data)).toEqual(['items']);
        expect(res.body.data.items.map((link: Link) => link.id)).toEqual([l1.id, l2.id]);
      }
      const none = await makeStudent(key, { full_name: 'Nobody Linked' });
      expect((await send('get', `/v1/students/${none.id}/guardians`, key)).body.data).toEqual({ items: [] });
      const missing = await send('get', '/v1/students/stu_unknown/guardians', key);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('not_found');
    });

    it('needs guardians:read (students:read is not enough)', async () => {
      const { key } = await setup(['students:write']);
      const student = await makeStudent(key);
      const res = await send('get', `/v1/students/${student.id}/guardians`, key);
      expect(res.status).toBe(403);
      expect(res.body.missing).toEqual(['guardians:read']);
    });
  });

  describe('acceptance page /guardian/accept', () => {
    it('opening the link shows a Confirm button and confirms nothing: a mail scanner that fetches it uses nothing up', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key, { full_name: 'Ashworth-Smythe, Tom' });
      const link = await invite(key, { student_id: student.id, guardian_email: 'scanned@example.org', guardian_type: 'mother' });
      const token = await latestToken(inst);
      for (let visit = 0; visit < 2; visit += 1) {
        const page = await app.http.get('/guardian/accept').query({ token });
        expect(page.status).toBe(200);
        expect(page.text).toContain("Confirm you are Tom's guardian");
        expect(page.text).toMatch(/<form method="post">\s*<button type="submit">Confirm<\/button>/);
        // The page never repeats the token: the form posts to the address the link opened.
        expect(page.text).not.toContain(token);
      }
      expect((await app.ctx.db.models.GuardianLink.findByPk(link.id))!.verified).toBe(false);
      expect(await events(key, 'guardian.verified')).toHaveLength(0);
      // The invitation reads the name in order and speaks of the button.
      const mail = outboxText(app, (await app.ctx.db.models.MailOutbox.findAll({ where: { institution_id: inst.id, kind: 'guardian_invite' } }))[0]!);
      expect(mail).toContain("has listed you as Tom Ashworth-Smythe's mother.");
      expect(mail).toContain('press Confirm');
      expect((await accept(token)).status).toBe(200);
      expect((await app.ctx.db.models.GuardianLink.findByPk(link.id))!.verified).toBe(true);
    });

    it('verifies the link once, emits guardian.verified, and shows a self-contained page', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key, { full_name: 'Ada King Lovelace' });
      const link = await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
      const token = await latestToken(inst);

      const res = await accept(token);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.text).toContain('Ada');
      expect(res.text).not.toContain('Lovelace'); // first name only
      expect(res.text).not.toMatch(/<script|src=|href=|@import|url\(/i);

      const after = await send('get', '/v1/guardians', key);
      const verified = after.body.data.items[0] as Link;
      expect(verified).toMatchObject({ id: link.id, verified: true });
      expect(verified.verified_at).toMatch(ISO_MS);
      const row = await app.ctx.db.models.GuardianLink.findByPk(link.id);
      expect(row!.invite_token_hash).toBeNull();

      const verifiedEvents = await events(key, 'guardian.verified');
      expect(verifiedEvents.map((event) => event.data)).toEqual([{ guardian_id: link.id, student_id: student.id }]);

      // Second visit: the token is used up.
      const second = await accept(token);
      expect(second.status).toBe(400);
      expect(second.headers['content-type']).toMatch(/^text\/html/);
      expect(second.text).toMatch(/invalid or has expired/);
      expect(second.text).toMatch(/resend/);
      expect(await events(key, 'guardian.verified')).toHaveLength(1);
    });

    it('unknown, malformed or missing tokens give the 400 page', async () => {
      for (const path of [
        '/guardian/accept',
        '/guardian/accept?token=',
        '/guardian/accept?token=abc',
        `/guardian/accept?token=${'A'.repeat(32)}`,
        '/guardian/accept?token=a&token=b',
      ]) {
        for (const res of [await app.http.get(path), await app.http.post(path).type('form').send('')]) {
          expect(res.status, path).toBe(400);
          expect(res.headers['content-type']).toMatch(/^text\/html/);
          expect(res.text).toMatch(/invalid or has expired/);
        }
      }
    });

    it('a HEAD request (link preview) does not use up the token', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key);
      await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
      const token = await latestToken(inst);
      const head = await app.http.head('/guardian/accept').query({ token });
      expect(head.status).toBe(200);
      expect((await accept(token)).status).toBe(200);
    });

    it('an expired token gives the 400 page and verifies nothing', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key);
      const link = await invite(key, { student_id: student.id, guardian_email: 'late@example.org' });
      const token = await latestToken(inst);
      await app.ctx.db.models.GuardianLink.update({ invite_expires_at: new Date(Date.now() - 1000) }, { where: { id: link.id } });
      const res = await accept(token);
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/invalid or has expired/);
      const row = await app.ctx.db.models.GuardianLink.findByPk(link.id);
      expect(row!.verified).toBe(false);
      expect(await events(key, 'guardian.verified')).toHaveLength(0);
    });

    it('escapes the names it shows', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key, { full_name: '<img/src=x>"Bobby" Tables' });
      await invite(key, { student_id: student.id, guardian_email: 'x@example.org' });
      const res = await accept(await latestToken(inst));
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<img');
      expect(res.text).toContain('&lt;img/src=x&gt;&quot;Bobby&quot;');
    });
  });

  describe('POST /v1/guardians/{id}/resend', () => {
    it('issues a new link and voids the old one; expiry is reset', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key);
      const link = await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
      const oldToken = await latestToken(inst);
      await app.ctx.db.models.GuardianLink.update({ invite_expires_at: new Date(Date.now() + DAY_MS) }, { where: { id: link.id } });

      const res = await post(key, `/v1/guardians/${link.id}/resend`, {});
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(LINK_FIELDS);
      expect(res.body.data).toMatchObject({ id: link.id, verified: false });
      expect(Date.parse(res.body.data.invited_at)).toBeGreaterThanOrEqual(Date.parse(link.invited_at));

      const mails = await outbox(inst, 'guardian_invite');
      expect(mails).toHaveLength(2);
      const newToken = await latestToken(inst);
      expect(newToken).not.toBe(oldToken);
      const row = await app.ctx.db.models.GuardianLink.findByPk(link.id);
      expect(Math.abs(row!.invite_expires_at!.getTime() - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);
      expect((await events(key, 'guardian.invited')).map((event) => event.data.guardian_id)).toEqual([link.id, link.id]);

      const old = await accept(oldToken);
      expect(old.status).toBe(400);
      expect(old.text).toMatch(/invalid or has expired/);
      expect((await accept(newToken)).status).toBe(200);
    });

    it('a verified link is 409 already_verified; unknown is 404; a body is refused', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key);
      const link = await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
      const withBody = await post(key, `/v1/guardians/${link.id}/resend`, { force: true });
      expect(withBody.status).toBe(422);
      expect((await accept(await latestToken(inst))).status).toBe(200);
      const res = await post(key, `/v1/guardians/${link.id}/resend`, {});
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('already_verified');
      expect(await outbox(inst, 'guardian_invite')).toHaveLength(1);
      const missing = await post(key, '/v1/guardians/gdn_unknown/resend', {});
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('not_found');
    });
  });

  describe('DELETE /v1/guardians/{id}', () => {
    it('removes the link (its pending invitation stops working); twice is 404', async () => {
      const { inst, key } = await setup();
      const student = await makeStudent(key);
      const link = await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
      const token = await latestToken(inst);
      const res = await send('delete', `/v1/guardians/${link.id}`, key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: link.id, deleted: true });
      expect((await send('get', '/v1/guardians', key)).body.data.total).toBe(0);
      expect((await accept(token)).status).toBe(400);
      const again = await send('delete', `/v1/guardians/${link.id}`, key);
      expect(again.status).toBe(404);
      expect(again.body.error).toBe('not_found');
      // The same guardian can be added again afterwards.
      await invite(key, { student_id: student.id, guardian_email: 'maria@example.org' });
    });
  });

  describe('weekly reports', () => {
    /** A student with one verified and one unverified guardian, in a group. */
    async function reportFixture() {
      const { inst, key } = await setup();
      const student = await makeStudent(key, { full_name: 'Ada Lovelace' });
      const teacher = await post(key, '/v1/faculty', { full_name: 'Grace Hopper' });
      await inst.tenant.inTransaction(async (tx) => {
        const group = await tx.groups.create({ id: newId('grp'), name: 'Year 10 Maths', description: '', faculty_id: teacher.body.data.id });
        const person = (await tx.people.findById(student.id))!;
        await tx.groupMembers.create({ group_id: group.id, student_id: student.id, added_at: new Date(), student_created_at: person.created_at });
      });
      await invite(key, { student_id: student.id, guardian_email: 'verified@example.org' });
      expect((await accept(await latestToken(inst))).status).toBe(200);
      await invite(key, { student_id: student.id, guardian_email: 'pending@example.org', guardian_type: 'father' });
      // A student whose only guardian never accepted gets no report.
      const unverified = await makeStudent(key, { full_name: 'Alan Turing' });
      await invite(key, { student_id: unverified.id, guardian_email: 'alan.parent@example.org' });
      return { inst, key, student, unverified };
    }

    it('reportedWeek: the Monday-to-Sunday UTC week before now’s week', () => {
      expect(reportedWeek(new Date('2026-09-16T12:00:00Z'))).toMatchObject({ start: '2026-09-07', end: '2026-09-13' });
      expect(reportedWeek(new Date('2026-09-14T00:00:00Z'))).toMatchObject({ start: '2026-09-07', end: '2026-09-13' });
      expect(reportedWeek(new Date('2026-09-13T23:59:59Z'))).toMatchObject({ start: '2026-08-31', end: '2026-09-06' });
      const week = reportedWeek(new Date('2026-01-01T08:00:00Z')); // a Thursday
      expect(week).toMatchObject({ start: '2025-12-22', end: '2025-12-28' });
      expect(week.from.toISOString()).toBe('2025-12-22T00:00:00.000Z');
      expect(week.to.toISOString()).toBe('2025-12-29T00:00:00.000Z');
    });

    it('generateWeeklyReports: one report per student with a verified guardian, mail to verified guardians only, idempotent', async () => {
      const { inst, key, student } = await reportFixture();
      // A week from now, "the week that ended most recently" is this week, which holds the fixture's events.
      const now = new Date(Date.now() + 7 * DAY_MS);
      const week = reportedWeek(now);

      expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now })).toEqual({ generated: 1 });
      expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now })).toEqual({ generated: 0 });
      await generateWeeklyReports(app.ctx.db, { now }); // every institution: this one has its report already

      const res = await send('get', '/v1/guardians/reports', key);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: 1, page: 1, limit: 50, totalPages: 1 });
      const report = res.body.data.items[0];
      expect(Object.keys(report).sort()).toEqual(['created_at', 'id', 'student_id', 'summary', 'week_start']);
      expect(report.id).toMatch(/^rpt_/);
      expect(report.student_id).toBe(student.id);
      expect(report.week_start).toBe(week.start);
      expect(new Date(`${report.week_start}T00:00:00Z`).getUTCDay()).toBe(1);
      expect(report.created_at).toMatch(ISO_MS);
      expect(report.summary).toMatchObject({
        student: { full_name: 'Ada Lovelace', status: 'active' },
        week: { start: week.start, end: week.end },
        license: { status: 'active' },
        groups: ['Year 10 Maths'],
        activity: { events: 4, by_type: { 'guardian.invited': 2, 'guardian.verified': 1, 'student.created': 1 } },
      });
      expect(report.summary.license.expires_at).toMatch(ISO_MS);

      const mails = await outbox(inst, 'guardian_report');
      expect(mails).toHaveLength(1);
      expect(mails[0]!.to_masked).toBe('v•••@example.org');
      expect(outboxText(app, mails[0]!)).toContain('Ada Lovelace');
      expect(outboxText(app, mails[0]!)).toContain('Year 10 Maths');
      expect(mails[0]!.subject).toContain(week.start);
    });

    it('GET /v1/students/{id}/guardian-report-preview: next Monday’s mail as it stands, to the verified guardians, nothing stored or sent', async () => {
      const { inst, key, student, unverified } = await reportFixture();
      const mailsBefore = (await outbox(inst, 'guardian_report')).length;
      const res = await send('get', `/v1/students/${encodeURIComponent(student.login_email.toUpperCase())}/guardian-report-preview`, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const preview = res.body.data;
      expect(Object.keys(preview).sort()).toEqual(['html', 'recipients', 'subject', 'text', 'week_start']);
      // The week under way: next Monday's report, not last week's.
      expect(preview.week_start).toBe(reportedWeek(new Date(Date.now() + 7 * DAY_MS)).start);
      expect(preview.text).not.toContain('Made on');
      // Only the guardian who confirmed: the pending invitation would receive nothing.
      expect(preview.recipients).toEqual(['verified@example.org']);
      expect(preview.subject).toBe(`${inst.name}: weekly report for Ada (week of ${preview.week_start})`);
      expect(preview.text).toContain('Weekly report for Ada Lovelace');
      expect(preview.text).toContain('Groups: Year 10 Maths');
      expect(preview.html).toContain('<h1');
      expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now: new Date(Date.now() + 7 * DAY_MS) })).toEqual({ generated: 1 });
      expect((await outbox(inst, 'guardian_report')).length).toBe(mailsBefore + 1);
      expect((await send('get', '/v1/guardians/reports', key).query({ student_id: student.id })).body.data.total).toBe(1);

      // A student with no confirmed guardian has a preview and nobody to send it to; an unknown one is a 404.
      const none = await send('get', `/v1/students/${unverified.id}/guardian-report-preview`, key);
      expect(none.body.data.recipients).toEqual([]);
      const missing = await send('get', '/v1/students/stu_doesNotExist/guardian-report-preview', key);
      expect([missing.status, missing.body.error]).toEqual([404, 'not_found']);
      // A key without guardians:read may not read it.
      const studentsOnly = await makeKey(app, inst, { scopes: ['students:read'] });
      const refused = await send('get', `/v1/students/${student.id}/guardian-report-preview`, studentsOnly);
      expect([refused.status, refused.body.error]).toEqual([403, 'insufficient_scope']);
    });

    it('CLI `reports generate` makes last week’s reports and prints {generated: n}', async () => {
      const { inst, key, student } = await reportFixture();
      const cli = (...argv: string[]) => runCliCaptured(app, ...argv);
      const first = await cli('reports', 'generate', '--institution', inst.id);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ generated: 1 });
      const again = await cli('reports', 'generate', '--institution', inst.id);
      expect(JSON.parse(again.stdout)).toEqual({ generated: 0 });
      const everyone = await cli('reports', 'generate');
      expect(everyone.code).toBe(0);
      expect(JSON.parse(everyone.stdout).generated).toBeGreaterThanOrEqual(0);

      const unknown = await cli('reports', 'generate', '--institution', 'inst_unknown');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/not_found/);

      const res = await send('get', '/v1/guardians/reports', key).query({ student_id: student.id });
      expect(res.body.data.items.map((report: { week_start: string }) => report.week_start)).toEqual([reportedWeek(new Date()).start]);
    });

    it('GET /v1/guardians/reports filters by student_id (id or login email) and since; other weeks are new reports', async () => {
      const { inst, key, student } = await reportFixture();
      const other = await makeStudent(key, { full_name: 'Mary Somerville' });
      await invite(key, { student_id: other.id, guardian_email: 'mary.parent@example.org' });
      expect((await accept(await latestToken(inst))).status).toBe(200);

      const weekOne = new Date(Date.now() + 7 * DAY_MS);
      expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now: weekOne })).toEqual({ generated: 2 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const between = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const weekTwo = new Date(Date.now() + 14 * DAY_MS);
      expect(await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now: weekTwo })).toEqual({ generated: 2 });

      const list = async (query: Record<string, string | number>) => {
        const res = await send('get', '/v1/guardians/reports', key).query(query);
        expect(res.status, JSON.stringify(query)).toBe(200);
        return res.body.data;
      };
      expect((await list({})).total).toBe(4);
      const mine = await list({ student_id: student.id });
      expect(mine.items.map((r: { week_start: string }) => r.week_start)).toEqual([reportedWeek(weekOne).start, reportedWeek(weekTwo).start]);
      expect((await list({ student_id: student.login_email })).total).toBe(2);
      expect((await list({ student_id: 'stu_unknown' })).total).toBe(0);
      const recent = await list({ since: between });
      expect(recent.total).toBe(2);
      expect(new Set(recent.items.map((r: { week_start: string }) => r.week_start))).toEqual(new Set([reportedWeek(weekTwo).start]));
      expect((await list({ since: between, student_id: other.id })).total).toBe(1);
      expect((await list({ limit: 1, page: 3 })).items).toHaveLength(1);

      for (const query of [{ since: 'yesterday' }, { since: '2026-13-01T00:00:00Z' }, { limit: 500 }, { week: '2026-09-07' }]) {
        const res = await send('get', '/v1/guardians/reports', key).query(query);
        expect(res.status, JSON.stringify(query)).toBe(422);
      }
    });
  });

  describe('hostile input', () => {
    it('NUL characters in ids, filters and names are 422, never 500', async () => {
      const { key } = await setup();
      const student = await makeStudent(key);
      const responses = [
        await send('get', '/v1/guardians', key).query({ student_id: 'stu_\u0000x' }),
        await send('get', '/v1/guardians', key).query({ student_id: 'a\u0000b@x.example' }),
        await send('get', '/v1/guardians/reports', key).query({ student_id: 'stu_\u0000x' }),
        await post(key, '/v1/guardians', { student_id: 'stu_\u0000', guardian_email: 'x@example.org', guardian_type: 'mother' }),
        await post(key, '/v1/guardians', { student_id: student.id, guardian_email: 'x@example.org', guardian_type: 'mother', guardian_name: 'a\u0000b' }),
        await post(key, '/v1/guardians/gdn_%00/resend', {}),
        await send('delete', '/v1/guardians/gdn_%00', key),
        await send('get', '/v1/students/stu_%00/guardians', key),
      ];
      for (const res of responses) {
        expect(res.status, res.text).toBe(422);
        expect(res.body.error).toBe('validation_error');
      }
      expect((await app.http.get('/guardian/accept?token=%00')).status).toBe(400);
    });
  });

  describe('tenancy', () => {
    it("another institution's guardian links, students and reports are 404 or invisible", async () => {
      const a = await setup();
      const b = await setup();
      const bStudent = await makeStudent(b.key);
      const bLink = await invite(b.key, { student_id: bStudent.id, guardian_email: 'b.parent@example.org' });
      expect((await accept(await latestToken(b.inst))).status).toBe(200);
      const bPending = await invite(b.key, { student_id: bStudent.id, guardian_email: 'b.other@example.org', guardian_type: 'father' });
      await generateWeeklyReports(app.ctx.db, { institutionId: b.inst.id, now: new Date(Date.now() + 7 * DAY_MS) });

      for (const id of [bLink.id, bPending.id]) {
        const resend = await post(a.key, `/v1/guardians/${id}/resend`, {});
        expect(resend.status).toBe(404);
        expect(resend.body.error).toBe('not_found');
        const del = await send('delete', `/v1/guardians/${id}`, a.key);
        expect(del.status).toBe(404);
        expect(del.body.error).toBe('not_found');
      }
      for (const ref of [bStudent.id, bStudent.login_email]) {
        const create = await post(a.key, '/v1/guardians', { student_id: ref, guardian_email: 'sneaky@example.org', guardian_type: 'guardian' });
        expect(create.status).toBe(404);
        expect(create.body.error).toBe('not_found');
        const studentGuardians = await send('get', `/v1/students/${encodeURIComponent(ref)}/guardians`, a.key);
        expect(studentGuardians.status).toBe(404);
        const filtered = await send('get', '/v1/guardians', a.key).query({ student_id: ref });
        expect(filtered.body.data.total).toBe(0);
        const reports = await send('get', '/v1/guardians/reports', a.key).query({ student_id: ref });
        expect(reports.body.data.total).toBe(0);
      }
      expect((await send('get', '/v1/guardians', a.key)).body.data.total).toBe(0);
      expect((await send('get', '/v1/guardians/reports', a.key)).body.data.total).toBe(0);
      // B's data is untouched.
      expect((await send('get', '/v1/guardians', b.key)).body.data.total).toBe(2);
      expect((await send('get', '/v1/guardians/reports', b.key)).body.data.total).toBe(1);
      expect(await outbox(a.inst)).toHaveLength(0);
    });
  });

  describe('privacy', () => {
    it('the personal email appears in no response, event, log or mail; guardian emails in no event or log', async () => {
      const personal = 'ada.private.home@family-mail.example';
      const guardianEmail = 'maria.guardian@parents.example';
      const { inst, key } = await setup();
      const bodies: string[] = [];
      const record = <T extends { text: string }>(res: T) => {
        bodies.push(res.text);
        return res;
      };

      const created = record(await post(key, '/v1/students', { full_name: 'Ada Lovelace', personal_email: personal }));
      const student = created.body.data as Student;
      const link = record(
        await post(key, '/v1/guardians', { student_id: student.id, guardian_email: guardianEmail, guardian_type: 'mother', is_primary: true }),
      );
      record(await post(key, `/v1/guardians/${link.body.data.id}/resend`, {}));
      record(await send('get', '/v1/guardians', key));
      record(await send('get', '/v1/guardians', key).query({ student_id: student.login_email, verified: 'false' }));
      record(await send('get', `/v1/students/${student.id}/guardians`, key));
      record(await accept(await latestToken(inst)));
      record(await accept(await latestToken(inst)));
      await generateWeeklyReports(app.ctx.db, { institutionId: inst.id, now: new Date(Date.now() + 7 * DAY_MS) });
      record(await send('get', '/v1/guardians/reports', key));
      const second = record(await post(key, '/v1/guardians', { student_id: student.id, guardian_email: 'second@parents.example', guardian_type: 'father' }));
      record(await post(key, '/v1/guardians', { student_id: student.id, guardian_email: guardianEmail, guardian_type: 'mother' })); // 409
      record(await send('delete', `/v1/guardians/${second.body.data.id}`, key));

      for (const body of bodies) expect(body.toLowerCase()).not.toContain(personal);

      const allEvents = JSON.stringify(await events(key));
      expect(allEvents).toContain('guardian.verified');
      for (const secret of [personal, guardianEmail, 'second@parents.example']) {
        expect(allEvents).not.toContain(secret);
        expect(app.logText()).not.toContain(secret);
      }
      const stored = await app.ctx.db.models.Event.findAll({ where: { institution_id: inst.id } });
      expect(JSON.stringify(stored.map((event) => event.data))).not.toContain('@');

      const mails = await outbox(inst);
      expect(mails.map((mail) => mail.kind).sort()).toEqual(['guardian_invite', 'guardian_invite', 'guardian_invite', 'guardian_report']);
      for (const mail of mails) {
        const plaintext = [mail.to_masked, mail.subject, outboxText(app, mail), mail.kind, mail.last_error ?? ''].join('\n').toLowerCase();
        expect(plaintext).not.toContain(personal);
        expect(plaintext).not.toContain('ada.private');
        expect(plaintext).not.toContain(guardianEmail);
        expect(mail.to_sealed).not.toContain('@');
      }
    });
  });
});
