import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * `GET /v1/students?group_id=` lists a group's members oldest first, by the students'
 * own `created_at`. With that order only in `people`, every request read every member to sort
 * them (a group of 1,000 could not keep 200 requests a second). A membership now carries its
 * student's creation time, which never changes, and an index in the list's order, so a page is
 * read from the index and the total counted on it (docs/decisions/list-indexes.md).
 */
export const groupMemberOrder: Migration = {
  name: '20261128010000-group-member-order',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('group_members', 'student_created_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
    await qi.sequelize.query(
      'UPDATE group_members SET student_created_at = (SELECT people.created_at FROM people WHERE people.id = group_members.student_id)',
      { transaction },
    );
    await qi.addIndex('group_members', ['institution_id', 'group_id', 'student_created_at', 'student_id'], { transaction });
  },
};
