import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const ref = (table: string) => ({ type: DataTypes.STRING(40), allowNull: false, references: { model: table, key: 'id' }, onDelete: 'CASCADE' as const });

/**
 * OneRoster 1.2 Gradebook write-back (docs/lms.md#gradebook-write-back-grades-to-the-sis,
 * docs/decisions/oneroster-gradebook.md).
 * The connection's opt-in (off by default); each exam's line item per SIS class, with when the SIS
 * took it; and the result posts, a durable queue like the AGS score posts, with their attempts.
 */
export const onerosterGradebook: Migration = {
  name: '20261208010000-oneroster-gradebook',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('oneroster_connections', 'gradebook_writeback', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false }, { transaction });

    await qi.createTable(
      'oneroster_line_items',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        connection_id: ref('oneroster_connections'),
        sourced_id: { type: DataTypes.STRING(255), allowNull: false },
        exam_id: { type: DataTypes.STRING(40), allowNull: false },
        class_sourced_id: { type: DataTypes.STRING(255), allowNull: false },
        payload: { type: DataTypes.JSON, allowNull: false },
        delivered_at: { type: DataTypes.DATE, allowNull: true },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('oneroster_line_items', ['connection_id', 'sourced_id'], { unique: true, transaction });

    await qi.createTable(
      'oneroster_gradebook_posts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        connection_id: ref('oneroster_connections'),
        submission_id: { type: DataTypes.STRING(40), allowNull: false },
        exam_id: { type: DataTypes.STRING(40), allowNull: false },
        student_id: { type: DataTypes.STRING(40), allowNull: false },
        line_item_sourced_id: { type: DataTypes.STRING(255), allowNull: false },
        result_sourced_id: { type: DataTypes.STRING(255), allowNull: false },
        payload: { type: DataTypes.JSON, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempt_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        next_attempt_at: { type: DataTypes.DATE, allowNull: true },
        last_attempt_at: { type: DataTypes.DATE, allowNull: true },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        error: { type: DataTypes.STRING(200), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('oneroster_gradebook_posts', ['status', 'next_attempt_at'], { transaction });
    await qi.addIndex('oneroster_gradebook_posts', ['institution_id', 'created_at'], { transaction });
    await qi.addIndex('oneroster_gradebook_posts', ['institution_id', 'submission_id'], { transaction });
    await qi.addIndex('oneroster_gradebook_posts', ['connection_id', 'result_sourced_id'], { transaction });

    await qi.createTable(
      'oneroster_gradebook_attempts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        post_id: ref('oneroster_gradebook_posts'),
        at: { type: DataTypes.DATE, allowNull: false },
        step: { type: DataTypes.STRING(16), allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true },
        error: { type: DataTypes.STRING(200), allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('oneroster_gradebook_attempts', ['post_id', 'at'], { transaction });
  },
};
