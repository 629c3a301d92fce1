import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * The address a mail's links were made with (public_url when it was queued), so mail
 * that waits (no mail server yet, a retry) goes out with the address set since.
 */
export const mailLinkBase: Migration = {
  name: '20261205010000-mail-link-base',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('mail_outbox', 'link_base', { type: DataTypes.STRING(2000), allowNull: true }, { transaction });
  },
};
