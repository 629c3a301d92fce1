import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const ref = (table: string, onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.STRING(40),
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

/**
 * The appliance as an LTI 1.3 tool (docs/lms.md#lti-13, docs/decisions/lti.md).
 * Platforms an institution registered; the tool's signing keys (appliance-wide, sealed); resource
 * links tied to exams; LMS subjects tied to people; login states (server-side, single-use, so no
 * third-party cookie is needed); and AGS score posts, a durable queue like webhook deliveries.
 */
export const lti: Migration = {
  name: '20261204000000-lti',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'lti_platforms',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        name: { type: DataTypes.STRING(200), allowNull: false, defaultValue: '' },
        issuer: { type: DataTypes.STRING(2048), allowNull: false },
        client_id: { type: DataTypes.STRING(255), allowNull: false },
        deployment_ids: { type: DataTypes.JSON, allowNull: false },
        auth_url: { type: DataTypes.STRING(2048), allowNull: false },
        token_url: { type: DataTypes.STRING(2048), allowNull: false },
        jwks_url: { type: DataTypes.STRING(2048), allowNull: true },
        public_key_pem: { type: DataTypes.TEXT, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // A launch names only issuer and client id: together they find one platform on the whole appliance.
    await qi.addIndex('lti_platforms', ['issuer', 'client_id'], { unique: true, name: 'lti_platforms_issuer_client', transaction });
    await qi.addIndex('lti_platforms', ['institution_id', 'created_at'], { transaction });

    await qi.createTable(
      'lti_tool_keys',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        kid: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        private_key_sealed: { type: DataTypes.TEXT, allowNull: false },
        public_jwk: { type: DataTypes.JSON, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
        /** When it stopped signing (a newer key took over); null for the signing key. */
        retired_at: { type: DataTypes.DATE, allowNull: true },
        /** When it leaves the key set: platforms that cached it have had the grace period to refetch. */
        drop_at: { type: DataTypes.DATE, allowNull: true },
      },
      { transaction },
    );

    await qi.createTable(
      'lti_resource_links',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        platform_id: ref('lti_platforms'),
        resource_link_id: { type: DataTypes.STRING(255), allowNull: false },
        exam_id: ref('exams', 'SET NULL', true),
        title: { type: DataTypes.STRING(500), allowNull: true },
        context_id: { type: DataTypes.STRING(255), allowNull: true },
        line_item_url: { type: DataTypes.STRING(2048), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('lti_resource_links', ['platform_id', 'resource_link_id'], { unique: true, name: 'lti_resource_links_platform_link', transaction });
    await qi.addIndex('lti_resource_links', ['institution_id', 'exam_id'], { transaction });

    await qi.createTable(
      'lti_subjects',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        platform_id: ref('lti_platforms'),
        subject: { type: DataTypes.STRING(255), allowNull: false },
        person_id: ref('people'),
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('lti_subjects', ['platform_id', 'subject'], { unique: true, name: 'lti_subjects_platform_subject', transaction });
    await qi.addIndex('lti_subjects', ['institution_id', 'person_id'], { transaction });

    await qi.createTable(
      'lti_login_states',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        platform_id: ref('lti_platforms'),
        state_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        nonce: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        used_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('lti_login_states', ['expires_at'], { transaction });

    await qi.createTable(
      'lti_score_posts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        platform_id: ref('lti_platforms'),
        submission_id: { type: DataTypes.STRING(40), allowNull: false },
        line_item_url: { type: DataTypes.STRING(2048), allowNull: false },
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
    await qi.addIndex('lti_score_posts', ['status', 'next_attempt_at'], { transaction });
    await qi.addIndex('lti_score_posts', ['institution_id', 'created_at'], { transaction });

    await qi.createTable(
      'lti_score_attempts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        score_post_id: ref('lti_score_posts'),
        at: { type: DataTypes.DATE, allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true },
        error: { type: DataTypes.STRING(200), allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('lti_score_attempts', ['score_post_id', 'at'], { transaction });
  },
};
