import { DataTypes, QueryTypes } from 'sequelize';
import { MAIL_BODY } from '../../models/mail.js';
import type { Migration } from '../migrate.js';

/**
 * Mail bodies hold live links (invitations), so they are no longer kept in clear. The
 * body is sealed with the master key until the message is sent, then erased; `expires_at` lets
 * a message whose link has expired be dropped instead of sent.
 */
export const sealedMail: Migration = {
  name: '20261125000000-sealed-mail',
  async up({ queryInterface: qi, transaction, fieldCrypto }) {
    await qi.addColumn('mail_outbox', 'body_sealed', { type: DataTypes.TEXT, allowNull: true }, { transaction });
    await qi.addColumn('mail_outbox', 'expires_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
    const waiting = await qi.sequelize.query<{ id: string; text_body: string }>(`SELECT id, text_body FROM mail_outbox WHERE status = 'queued'`, {
      type: QueryTypes.SELECT,
      transaction,
    });
    for (const row of waiting) {
      await qi.sequelize.query('UPDATE mail_outbox SET body_sealed = ? WHERE id = ?', {
        replacements: [fieldCrypto.encrypt(row.text_body, MAIL_BODY), row.id],
        transaction,
      });
    }
    // SQLite 3.35+ and PostgreSQL drop a column in place (Sequelize's SQLite removeColumn rebuilds the table).
    await qi.sequelize.query('ALTER TABLE mail_outbox DROP COLUMN text_body', { transaction });
  },
};
