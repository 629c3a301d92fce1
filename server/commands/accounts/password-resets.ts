import { Op } from 'sequelize';
import { hashToken } from '../../crypto/tokens.js';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { newId, randomToken } from '../../ids.js';
import { maskEmail, sealRecipient } from '../../mail/outbox.js';
import { getSmtpSettings } from '../../mail/smtp-settings.js';
import { MAIL_BODY } from '../../models/mail.js';
import { normalizeEmail } from '../../validation/people.js';
import { hashNewPassword, replacePassword } from './accounts.js';

/** A "forgot password" link works for one hour, once (docs/decisions/accounts-and-passwords.md). */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** One mail a minute per account at most, so the form cannot be used to flood someone's inbox. */
const RESEND_INTERVAL_MS = 60 * 1000;
const TOKEN_LENGTH = 40;
const TOKEN_PATTERN = /^[A-Za-z0-9]{40}$/;

export const passwordResetUrl = (portalUrl: string, token: string) => `${portalUrl}/#/reset-password?token=${token}`;

const invalidLink = () => new AppError('unauthorized', 'This link is not valid: it was used, replaced by a newer one, or has expired. Ask for a new one.');

/** Whether "forgot password" can work: only with a mail server to send the link. */
export async function passwordResetAvailable(db: Database): Promise<boolean> {
  return (await getSmtpSettings(db)) !== null;
}

/**
 * "Forgot password": when `email` is an active account, a single-use link valid one hour is mailed
 * (an earlier unused link stops working). The caller's answer is the same whether or not the
 * account exists, so the form cannot be used to find out who has one; and it does not wait for the
 * mail to be queued (`queued`), so its timing does not tell either: a known address used to be
 * answered 2.5 ms later than an unknown one. Without a mail server this is a `409 conflict`: the
 * sign-in page says to ask the operator instead.
 */
export async function requestPasswordReset(db: Database, input: { email: string; portalUrl: string }, now = new Date()): Promise<{ queued: Promise<void> }> {
  if (!(await passwordResetAvailable(db))) {
    throw new AppError('conflict', 'No mail server is set up on this appliance; ask its operator to reset your password.');
  }
  return { queued: queuePasswordReset(db, input, now) };
}

async function queuePasswordReset(db: Database, input: { email: string; portalUrl: string }, now: Date): Promise<void> {
  const email = normalizeEmail(input.email);
  const account = await db.models.PortalAccount.findOne({ where: { email } });
  if (!account || account.status !== 'active') return;
  const token = randomToken(TOKEN_LENGTH);
  const queued = await db.sequelize.transaction(async (transaction) => {
    const { PasswordReset, MailOutbox } = db.models;
    const recent = await PasswordReset.count({
      where: { account_id: account.id, used_at: null, created_at: { [Op.gt]: new Date(now.getTime() - RESEND_INTERVAL_MS) } },
      transaction,
    });
    if (recent > 0) return false;
    await PasswordReset.destroy({ where: { account_id: account.id, used_at: null }, transaction });
    const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
    await PasswordReset.create(
      { id: newId('pwr'), account_id: account.id, token_hash: hashToken(token), expires_at: expiresAt, used_at: null, created_at: now },
      { transaction },
    );
    // Appliance-level mail (no institution), like the operator's test message.
    await MailOutbox.create(
      {
        id: newId('mail'),
        institution_id: null,
        to_sealed: sealRecipient(db, email),
        to_masked: maskEmail(email),
        subject: 'Set a new CampusBridge password',
        body_sealed: db.fieldCrypto.encrypt(
          [
            'Hello,',
            '',
            'Someone asked to set a new password for your CampusBridge portal account. Open this link',
            'within one hour to choose it (the link works once):',
            '',
            passwordResetUrl(input.portalUrl, token),
            '',
            'If it was not you, ignore this message: your password stays as it is.',
          ].join('\n'),
          MAIL_BODY,
        ),
        expires_at: expiresAt,
        kind: 'password_reset',
        status: 'queued',
        last_error: null,
        sent_at: null,
      },
      { transaction },
    );
    return true;
  });
  if (queued) for (const listener of db.mailQueuedListeners) listener();
}

/** Uses a "forgot password" link: the new password is set, every session of the account ends, the link is spent. */
export async function completePasswordReset(db: Database, input: { token: string; password: string }, now = new Date()): Promise<{ email: string }> {
  if (!TOKEN_PATTERN.test(input.token)) throw invalidLink();
  const { PasswordReset, PortalAccount } = db.models;
  const found = await PasswordReset.findOne({ where: { token_hash: hashToken(input.token) } });
  if (!found || found.used_at || found.expires_at.getTime() <= now.getTime()) throw invalidLink();
  const account = await PortalAccount.findByPk(found.account_id);
  if (!account || account.status !== 'active') throw invalidLink();
  const hash = await hashNewPassword(input.password);
  await db.sequelize.transaction(async (transaction) => {
    // Spent first, conditionally: of two uses racing, only one changes the password.
    const [spent] = await PasswordReset.update({ used_at: now }, { where: { id: found.id, used_at: null }, transaction });
    if (spent !== 1) throw invalidLink();
    await replacePassword(db, account, hash, transaction);
  });
  return { email: account.email };
}
