import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Mail that tells the truth: a queued message says what it is about (`about_kind`,
 * `about_id`, and the version of it the message was written for), so the sender drops mail that
 * has gone stale instead of sending it; `dropped_reason` says why. Existing rows are about
 * nothing (null), and mail dropped for an expired link (`expired`) becomes `dropped`.
 */
export const mailSubjects: Migration = {
  name: '20261126030000-mail-subjects',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('mail_outbox', 'about_kind', { type: DataTypes.STRING(32), allowNull: true }, { transaction });
    await qi.addColumn('mail_outbox', 'about_id', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
    await qi.addColumn('mail_outbox', 'about_version', { type: DataTypes.STRING(64), allowNull: true }, { transaction });
    await qi.addColumn('mail_outbox', 'dropped_reason', { type: DataTypes.STRING(32), allowNull: true }, { transaction });
    await qi.bulkUpdate('mail_outbox', { status: 'dropped', dropped_reason: 'link_expired' }, { status: 'expired' }, { transaction });
  },
};
