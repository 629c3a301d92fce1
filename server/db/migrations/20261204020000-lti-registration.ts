import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * Provisioning at launch (docs/lms.md#provisioning-at-launch): a platform may create the
 * student (Learner) or faculty member (Instructor) an LTI launch names when no one matches. Off
 * unless the school turns it on for that platform.
 */
export const ltiRegistration: Migration = {
  name: '20261204020000-lti-registration',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('lti_platforms', 'provision_users', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false }, { transaction });
  },
};
