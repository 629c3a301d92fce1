import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * LTI Names and Role Provisioning Services 2.0 (docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms).
 * - `lti_resource_links.memberships_url`, `.context_title`: the context's memberships URL and title
 *   from an instructor's launch; `.members_group_id`: the group the class list keeps (no foreign
 *   key: a group deleted since is noticed by the next sync, which chooses or makes another).
 * - `lti_nrps_runs`: every class list sync with its outcome and counts, removed with its link.
 */
export const ltiNrps: Migration = {
  name: '20261208000000-lti-nrps',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('lti_resource_links', 'memberships_url', { type: DataTypes.STRING(2048), allowNull: true }, { transaction });
    await qi.addColumn('lti_resource_links', 'context_title', { type: DataTypes.STRING(500), allowNull: true }, { transaction });
    await qi.addColumn('lti_resource_links', 'members_group_id', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
    await qi.createTable(
      'lti_nrps_runs',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: { type: DataTypes.STRING(40), allowNull: false, references: { model: 'institutions', key: 'id' }, onDelete: 'CASCADE' },
        resource_link_id: { type: DataTypes.STRING(40), allowNull: false, references: { model: 'lti_resource_links', key: 'id' }, onDelete: 'CASCADE' },
        trigger: { type: DataTypes.STRING(16), allowNull: false },
        dry_run: { type: DataTypes.BOOLEAN, allowNull: false },
        outcome: { type: DataTypes.STRING(16), allowNull: false },
        counts: { type: DataTypes.JSON, allowNull: true },
        reason: { type: DataTypes.STRING(1000), allowNull: true },
        group_id: { type: DataTypes.STRING(40), allowNull: true },
        started_at: { type: DataTypes.DATE, allowNull: false },
        heartbeat_at: { type: DataTypes.DATE, allowNull: true },
        finished_at: { type: DataTypes.DATE, allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('lti_nrps_runs', ['institution_id', 'resource_link_id', 'started_at'], { transaction });
  },
};
