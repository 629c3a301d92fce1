import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

const ref = (table: string, onDelete: 'CASCADE' | 'SET NULL' | 'RESTRICT' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.STRING(40),
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

/** Students and faculty, their licenses and device seats, groups, guardians, weekly reports, the mail outbox. */
export const people: Migration = {
  name: '20260915000000-people',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('institutions', 'email_domain', { type: DataTypes.STRING(200), allowNull: true }, { transaction });
    await qi.addIndex('institutions', ['email_domain'], { unique: true, transaction });

    await qi.createTable(
      'people',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        role: { type: DataTypes.STRING(16), allowNull: false },
        login_email: { type: DataTypes.STRING(320), allowNull: false, unique: true },
        full_name: { type: DataTypes.STRING(200), allowNull: false },
        external_id: { type: DataTypes.STRING(100), allowNull: true },
        personal_email_sealed: { type: DataTypes.TEXT, allowNull: true },
        personal_email_index: { type: DataTypes.STRING(64), allowNull: true },
        status: { type: DataTypes.STRING(16), allowNull: false },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('people', ['institution_id', 'role', 'external_id'], { unique: true, transaction });
    await qi.addIndex('people', ['institution_id', 'role', 'status'], { transaction });
    await qi.addIndex('people', ['institution_id', 'personal_email_index'], { transaction });

    await qi.createTable(
      'licenses',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        user_id: ref('people'),
        type: { type: DataTypes.STRING(16), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        starts_at: { type: DataTypes.DATE, allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
        revoke_reason: { type: DataTypes.STRING(500), allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('licenses', ['institution_id', 'user_id'], { transaction });
    await qi.addIndex('licenses', ['status', 'expires_at'], { transaction });

    await qi.createTable(
      'device_seats',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        license_id: ref('licenses'),
        app: { type: DataTypes.STRING(16), allowNull: false },
        device_id: { type: DataTypes.STRING(200), allowNull: false },
        device_name: { type: DataTypes.STRING(200), allowNull: true },
        status: { type: DataTypes.STRING(16), allowNull: false },
        activated_at: { type: DataTypes.DATE, allowNull: false },
        last_seen_at: { type: DataTypes.DATE, allowNull: false },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
      },
      { transaction },
    );
    await qi.addIndex('device_seats', ['institution_id', 'license_id', 'status'], { transaction });

    await qi.createTable(
      'groups',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        name: { type: DataTypes.STRING(200), allowNull: false },
        description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
        faculty_id: ref('people', 'RESTRICT'),
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('groups', ['institution_id', 'faculty_id'], { transaction });

    await qi.createTable(
      'group_members',
      {
        institution_id: ref('institutions'),
        group_id: { ...ref('groups'), primaryKey: true },
        student_id: { ...ref('people'), primaryKey: true },
        added_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('group_members', ['institution_id', 'student_id'], { transaction });

    await qi.createTable(
      'guardian_links',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        student_id: ref('people'),
        guardian_email: { type: DataTypes.STRING(320), allowNull: false },
        guardian_type: { type: DataTypes.STRING(16), allowNull: false },
        guardian_name: { type: DataTypes.STRING(200), allowNull: true },
        guardian_phone: { type: DataTypes.STRING(50), allowNull: true },
        is_primary: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        verified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        invite_token_hash: { type: DataTypes.STRING(64), allowNull: true },
        invite_expires_at: { type: DataTypes.DATE, allowNull: true },
        invited_at: { type: DataTypes.DATE, allowNull: false },
        verified_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('guardian_links', ['student_id', 'guardian_email'], { unique: true, transaction });
    await qi.addIndex('guardian_links', ['invite_token_hash'], { unique: true, transaction });
    await qi.addIndex('guardian_links', ['institution_id', 'verified'], { transaction });

    await qi.createTable(
      'guardian_reports',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        student_id: ref('people'),
        week_start: { type: DataTypes.DATEONLY, allowNull: false },
        summary: { type: DataTypes.JSON, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('guardian_reports', ['student_id', 'week_start'], { unique: true, transaction });
    await qi.addIndex('guardian_reports', ['institution_id', 'created_at'], { transaction });

    await qi.createTable(
      'mail_outbox',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions', 'CASCADE', true),
        to_sealed: { type: DataTypes.TEXT, allowNull: false },
        to_masked: { type: DataTypes.STRING(320), allowNull: false },
        subject: { type: DataTypes.STRING(300), allowNull: false },
        text_body: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.STRING(50), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        last_error: { type: DataTypes.STRING(500), allowNull: true },
        sent_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('mail_outbox', ['status', 'created_at'], { transaction });

    await qi.createTable(
      'app_settings',
      {
        key: { type: DataTypes.STRING(100), primaryKey: true },
        value: { type: DataTypes.JSON, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
  },
};
