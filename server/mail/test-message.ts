import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { MAIL_BODY, type MailStatus } from '../models/mail.js';
import { sendQueuedMail } from './mailer.js';
import { maskEmail, sealRecipient } from './outbox.js';
import { getSmtpSettings } from './smtp-settings.js';

export interface TestMessageResult {
  mail_id: string;
  /** Masked, as the outbox shows recipients. */
  to: string;
  /** `sent`: the server accepted it; `failed`: it refused or could not be reached (see `error`); `queued`: older mail is still ahead of it. */
  status: MailStatus;
  error: string | null;
}

/**
 * Sends one message through the real path: an appliance-level outbox row (no institution) sent by
 * the mailer with the saved settings, so a test that passes means invitations will go out too.
 * A failed test is not retried: the operator is waiting for this answer, not for a message that
 * turns up minutes later.
 */
export async function sendTestMessage(db: Database, logger: Logger, portalUrl: string, to: string): Promise<TestMessageResult> {
  if (!(await getSmtpSettings(db))) throw new AppError('conflict', 'No mail server is configured yet; save the settings first.');
  const address = to.trim().toLowerCase();
  const row = await db.sequelize.transaction((transaction) =>
    db.models.MailOutbox.create(
      {
        id: newId('mail'),
        institution_id: null,
        to_sealed: sealRecipient(db, address),
        to_masked: maskEmail(address),
        subject: 'CampusBridge test message',
        body_sealed: db.fieldCrypto.encrypt(
          [
            'Hello,',
            '',
            `This is a test message from the CampusBridge appliance at ${portalUrl}.`,
            'Its mail server settings work: invitations and reports will reach their recipients.',
          ].join('\n'),
          MAIL_BODY,
        ),
        expires_at: null,
        kind: 'smtp_test',
        status: 'queued',
        last_error: null,
        sent_at: null,
      },
      { transaction },
    ),
  );
  await sendQueuedMail(db, logger, { retries: false });
  await row.reload();
  if (row.status === 'queued' && row.attempts > 0) {
    await db.sequelize.transaction((transaction) =>
      db.models.MailOutbox.update({ status: 'failed' }, { where: { id: row.id, status: 'queued' }, transaction }),
    );
    await row.reload();
  }
  return { mail_id: row.id, to: row.to_masked, status: row.status, error: row.last_error };
}
