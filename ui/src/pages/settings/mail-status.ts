import type { MailDropReason, MailStatus, OutboxMail } from './settings';

/** Why mail was not sent, as the end of "Not sent: …". */
export const DROP_REASON_TEXT: Record<MailDropReason, string> = {
  link_expired: 'the invitation expired',
  link_replaced: 'a newer invitation replaced it',
  invitation_revoked: 'the invitation was withdrawn',
  invitation_accepted: 'the invitation was already accepted',
  guardian_removed: 'the guardian is no longer linked to the student',
  exam_closed: 'the exam has closed',
  exam_deleted: 'the exam was deleted',
};

/** The status filter's names. */
export const STATUS_LABEL: Record<MailStatus, string> = { queued: 'Waiting', sent: 'Sent', failed: 'Failed', dropped: 'Not sent' };

export const STATUS_COLOR: Record<MailStatus, string> = { queued: 'yellow', sent: 'teal', failed: 'red', dropped: 'gray' };

/**
 * One message's state in words: waiting for a mail server, waiting for its next try (and why the
 * last one failed), sent, given up on, or dropped because it went stale. `time` formats a
 * timestamp for the reader (the page passes the locale's date and time).
 */
export function describeMail(mail: OutboxMail, mailServerConfigured: boolean, time: (iso: string) => string): string {
  switch (mail.status) {
    case 'sent':
      return mail.sent_at ? `Sent at ${time(mail.sent_at)}` : 'Sent';
    case 'dropped':
      return `Not sent: ${mail.dropped_reason ? DROP_REASON_TEXT[mail.dropped_reason] : 'it was no longer current'}`;
    case 'failed':
      return `Not sent: gave up after ${mail.attempts} failed ${mail.attempts === 1 ? 'attempt' : 'attempts'}${mail.last_error ? ` (${mail.last_error})` : ''}`;
    case 'queued': {
      if (!mailServerConfigured) return 'Waiting: no mail server is set up';
      const next = mail.next_attempt_at ? `next try at ${time(mail.next_attempt_at)}` : null;
      if (mail.attempts === 0) return next ? `Waiting to be sent (${next})` : 'Waiting to be sent';
      const failure = `attempt ${mail.attempts} failed${mail.last_error ? `: ${mail.last_error}` : ''}`;
      return `Waiting to be sent (${[failure, next].filter(Boolean).join(', ')})`;
    }
  }
}
