import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Weekly guardian reports go out as HTML with a plain-text part. The HTML is sealed
 * like the text (`html_sealed`, null for text-only mail and once sent or dropped). Existing rows
 * are text-only.
 */
export const mailHtml: Migration = {
  name: '20261130200000-mail-html',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('mail_outbox', 'html_sealed', { type: DataTypes.TEXT, allowNull: true }, { transaction });
  },
};
