import type { Database } from '../db/index.js';
import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import type { MailOutboxRow } from '../models/mail.js';

/** Encryption context of outbox recipients; the same string must be used to seal and open them. */
const MAIL_RECIPIENT = 'mail_outbox.to';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for (`guardian_invite`, `guardian_report`, …); shown in the portal's outbox. */
  kind: string;
}

/** `a•••@example.org`: enough for a person to recognise the recipient, useless to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

export function sealRecipient(db: Database, to: string): string {
  return db.fieldCrypto.encrypt(to, MAIL_RECIPIENT);
}

export function openRecipient(db: Database, row: Pick<MailOutboxRow, 'to_sealed'>): string {
  return db.fieldCrypto.decrypt(row.to_sealed, MAIL_RECIPIENT);
}

/**
 * Writes the mail as an outbox row in the caller's transaction (so it exists exactly when the
 * change that caused it does) and, once that transaction commits, tells the mailer to send.
 * The recipient is stored encrypted: it may be a personal address.
 */
export async function queueMail(tx: TenantTx, mail: OutgoingMail): Promise<MailOutboxRow> {
  const to = mail.to.trim().toLowerCase();
  const row = await tx.mailOutbox.create({
    id: newId('mail'),
    to_sealed: sealRecipient(tx.db, to),
    to_masked: maskEmail(to),
    subject: mail.subject.slice(0, 300),
    text_body: mail.text,
    kind: mail.kind,
    status: 'queued',
    last_error: null,
    sent_at: null,
  });
  const listeners = tx.db.mailQueuedListeners;
  if (listeners.size > 0) {
    tx.tx.afterCommit(() => {
      for (const listener of listeners) listener();
    });
  }
  return row;
}
