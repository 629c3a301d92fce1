import type { OutboxPage } from '../commands/institutions/outbox.js';
import { nextRetryAt } from '../mail/mailer.js';
import type { MailOutboxRow } from '../models/mail.js';
import { iso } from './common.js';

/**
 * Only what a person needs to see that mail went out: never the sealed recipient, never the body
 * (guardian and developer invitations carry sign-in tokens).
 */
function presentOutboxMail(row: MailOutboxRow, nextAttemptAt: Date | null) {
  return {
    id: row.id,
    to: row.to_masked,
    subject: row.subject,
    kind: row.kind,
    status: row.status,
    dropped_reason: row.status === 'dropped' ? row.dropped_reason : null,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === 'queued' ? iso(nextAttemptAt) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    sent_at: iso(row.sent_at),
  };
}

/** A page of the outbox; queued mail shows the sender's next pick-up, when a mail server is set up. */
export function presentOutboxPage({ rows, nextCursor, mailServer }: OutboxPage) {
  const nextAttemptAt = mailServer ? nextRetryAt() : null;
  return {
    mail_server_configured: mailServer,
    items: rows.map((row) => presentOutboxMail(row, nextAttemptAt)),
    next_cursor: nextCursor,
  };
}
