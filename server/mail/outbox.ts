import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import type { TenantTx } from '../db/tenant.js';
import { newId } from '../ids.js';
import { MAIL_BODY, MAIL_HTML, MAIL_RECIPIENT, type MailOutboxRow } from '../models/mail.js';
import { aboutVersion, dropStaleMail, type MailAbout } from './staleness.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** An HTML part beside the text, saying the same; every interpolated value must be escaped (escapeHtml). */
  html?: string | null;
  /** What the mail is for (`guardian_invite`, `guardian_report`, …); shown in the portal's outbox. */
  kind: string;
  /** When what the mail offers ends (an invitation link): after that it is dropped, never sent. */
  expiresAt?: Date | null;
  /**
   * What the mail is about (an invitation, a guardian link, an exam): while it waits, the sender
   * checks that it still holds and drops it otherwise (server/mail/staleness.ts). Queue it after
   * the change that made the mail's link, in the same transaction: the link's version is recorded.
   */
  about?: MailAbout | null;
  /**
   * The address the mail's links were made with (`public_url`): should it change while the mail
   * waits, the sender puts the new one in its place, so no mail goes out with an address the
   * operator has since corrected.
   */
  linkBase?: string | null;
}

/** `text` with every link that starts with `from` starting with `to` instead. */
export function rebaseLinks(text: string, from: string, to: string): string {
  return from === to ? text : text.split(`${from}/`).join(`${to}/`);
}

/** `a•••@example.org`: enough for a person to recognise the recipient, useless to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

/** Anything that seals: the Database, or a Tenant (its `fieldCrypto`). */
type Sealer = Pick<Database, 'fieldCrypto'>;

export function sealRecipient(db: Sealer, to: string): string {
  return db.fieldCrypto.encrypt(to, MAIL_RECIPIENT);
}

export function openRecipient(db: Sealer, row: Pick<MailOutboxRow, 'to_sealed'>): string {
  return db.fieldCrypto.decrypt(row.to_sealed, MAIL_RECIPIENT);
}

/** The text of a mail still waiting to be sent; null once sent or dropped (the body is erased then). */
export function openBody(db: Sealer, row: Pick<MailOutboxRow, 'body_sealed'>): string | null {
  return row.body_sealed === null ? null : db.fieldCrypto.decrypt(row.body_sealed, MAIL_BODY);
}

/** The HTML part of a mail still waiting to be sent; null for text-only mail, and once sent or dropped. */
export function openHtml(db: Sealer, row: Pick<MailOutboxRow, 'html_sealed'>): string | null {
  return row.html_sealed ? db.fieldCrypto.decrypt(row.html_sealed, MAIL_HTML) : null;
}

/**
 * Writes the mail as an outbox row in the caller's transaction (so it exists exactly when the
 * change that caused it does) and, once that transaction commits, tells the mailer to send.
 * Recipient and body are sealed with the master key: the recipient may be a personal address,
 * the body a live invitation link. The body is erased once the message is sent or dropped.
 */
export async function queueMail(tx: TenantTx, mail: OutgoingMail): Promise<MailOutboxRow> {
  const to = mail.to.trim().toLowerCase();
  const about = mail.about ?? null;
  const row = await tx.mailOutbox.create({
    id: newId('mail'),
    to_sealed: sealRecipient(tx, to),
    to_masked: maskEmail(to),
    subject: mail.subject.slice(0, 300),
    body_sealed: tx.fieldCrypto.encrypt(mail.text, MAIL_BODY),
    html_sealed: mail.html ? tx.fieldCrypto.encrypt(mail.html, MAIL_HTML) : null,
    expires_at: mail.expiresAt ?? null,
    link_base: mail.linkBase ?? null,
    kind: mail.kind,
    status: 'queued',
    about_kind: about?.kind ?? null,
    about_id: about?.id ?? null,
    about_version: about ? await aboutVersion(tx, about) : null,
    dropped_reason: null,
    last_error: null,
    sent_at: null,
  });
  tx.afterCommitMail();
  return row;
}

/** Sent, dropped and failed mail is listed in the portal this long, then deleted. */
export const MAIL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Keeps nothing replayable and nothing stale: waiting mail that has gone stale (its link expired,
 * its invitation accepted or replaced, its exam closed) is dropped with its reason, body erased;
 * mail given up on loses its body (it is never retried); settled mail older than the retention
 * period is deleted.
 */
export async function pruneMail(db: Database, now = new Date()): Promise<{ dropped: number; erased: number; deleted: number }> {
  const dropped = await dropStaleMail(db, now);
  const { MailOutbox } = db.models;
  return db.sequelize.transaction(async (transaction) => {
    const [erased] = await MailOutbox.update(
      { body_sealed: null, html_sealed: null },
      { where: { status: { [Op.ne]: 'queued' }, [Op.or]: [{ body_sealed: { [Op.ne]: null } }, { html_sealed: { [Op.ne]: null } }] }, transaction },
    );
    const deleted = await MailOutbox.destroy({
      where: { status: { [Op.ne]: 'queued' }, created_at: { [Op.lt]: new Date(now.getTime() - MAIL_RETENTION_MS) } },
      transaction,
    });
    return { dropped, erased, deleted };
  });
}
