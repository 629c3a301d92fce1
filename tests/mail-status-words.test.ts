// @tier unit
// The outbox's sentences (ui/src/pages/settings/mail-status.ts): every state of a message, and
// every reason mail is dropped, in words a school's admin reads on the Mail outbox page.
import { describe, expect, it } from 'vitest';
import { MAIL_DROP_REASONS } from '../server/models/mail.js';
import { describeMail, DROP_REASON_TEXT } from '../ui/src/pages/settings/mail-status.js';
import type { OutboxMail } from '../ui/src/pages/settings/settings.js';

const time = (iso: string) => `<${iso}>`;
const mail = (fields: Partial<OutboxMail>): OutboxMail => ({
  id: 'mail_1',
  to: 'a•••@example.org',
  subject: 'Hello',
  kind: 'guardian_invite',
  status: 'queued',
  dropped_reason: null,
  attempts: 0,
  last_error: null,
  next_attempt_at: null,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
  sent_at: null,
  ...fields,
});

describe('the outbox in words', () => {
  it('says why mail waits, and when it is tried next', () => {
    expect(describeMail(mail({}), false, time)).toBe('Waiting: no mail server is set up');
    expect(describeMail(mail({ next_attempt_at: '2026-11-25T10:01:00.000Z' }), true, time)).toBe('Waiting to be sent (next try at <2026-11-25T10:01:00.000Z>)');
    expect(describeMail(mail({ attempts: 2, last_error: 'ECONNREFUSED', next_attempt_at: '2026-11-25T10:01:00.000Z' }), true, time)).toBe(
      'Waiting to be sent (attempt 2 failed: ECONNREFUSED, next try at <2026-11-25T10:01:00.000Z>)',
    );
  });

  it('says when mail was sent, given up on, or dropped and why', () => {
    expect(describeMail(mail({ status: 'sent', sent_at: '2026-11-25T10:00:05.000Z' }), true, time)).toBe('Sent at <2026-11-25T10:00:05.000Z>');
    expect(describeMail(mail({ status: 'failed', attempts: 5, last_error: '550 Mailbox unavailable' }), true, time)).toBe(
      'Not sent: gave up after 5 failed attempts (550 Mailbox unavailable)',
    );
    expect(describeMail(mail({ status: 'dropped', dropped_reason: 'link_expired' }), false, time)).toBe('Not sent: the invitation expired');
    expect(describeMail(mail({ status: 'dropped', dropped_reason: 'exam_closed' }), true, time)).toBe('Not sent: the exam has closed');
  });

  it('has words for every reason the server gives', () => {
    expect(Object.keys(DROP_REASON_TEXT).sort()).toEqual([...MAIL_DROP_REASONS].sort());
  });
});
