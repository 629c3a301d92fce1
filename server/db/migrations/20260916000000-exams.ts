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

/** Exams and their files and keys, launch tokens and learner sessions, attempts, proctoring, submissions. */
export const exams: Migration = {
  name: '20260916000000-exams',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'exams',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        faculty_id: ref('people', 'RESTRICT'),
        title: { type: DataTypes.STRING(300), allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        exam_type: { type: DataTypes.STRING(16), allowNull: false },
        app: { type: DataTypes.STRING(16), allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        max_score: { type: DataTypes.DOUBLE, allowNull: true },
        due_date: { type: DataTypes.DATE, allowNull: true },
        time_limit_minutes: { type: DataTypes.INTEGER, allowNull: true },
        proctoring: { type: DataTypes.JSON, allowNull: false },
        ai_policy: { type: DataTypes.JSON, allowNull: false },
        code_spec: { type: DataTypes.JSON, allowNull: true },
        published_at: { type: DataTypes.DATE, allowNull: true },
        closed_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('exams', ['institution_id', 'status'], { transaction });
    await qi.addIndex('exams', ['institution_id', 'faculty_id'], { transaction });
    await qi.addIndex('exams', ['institution_id', 'updated_at'], { transaction });

    await qi.createTable(
      'exam_assignments',
      {
        institution_id: ref('institutions'),
        exam_id: { ...ref('exams'), primaryKey: true },
        group_id: { ...ref('groups'), primaryKey: true },
        assigned_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('exam_assignments', ['institution_id', 'group_id'], { transaction });

    // Uploaded files: exam files (starter, sample tests, hidden tests) and attempt files.
    await qi.createTable(
      'stored_files',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        owner_type: { type: DataTypes.STRING(16), allowNull: false },
        owner_id: { type: DataTypes.STRING(40), allowNull: false },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: false },
        content_type: { type: DataTypes.STRING(100), allowNull: false },
        size: { type: DataTypes.BIGINT, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: false },
        storage_path: { type: DataTypes.STRING(500), allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('stored_files', ['institution_id', 'owner_type', 'owner_id'], { transaction });

    await qi.createTable(
      'exam_secrets',
      {
        exam_id: { ...ref('exams'), primaryKey: true },
        institution_id: ref('institutions'),
        key_sealed: { type: DataTypes.TEXT, allowNull: false },
        ...timestamps,
      },
      { transaction },
    );

    await qi.createTable(
      'launch_tokens',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        user_id: ref('people'),
        app: { type: DataTypes.STRING(16), allowNull: false },
        redirect: { type: DataTypes.STRING(300), allowNull: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        used_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('launch_tokens', ['expires_at'], { transaction });

    await qi.createTable(
      'learner_sessions',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        user_id: ref('people'),
        app: { type: DataTypes.STRING(16), allowNull: false },
        seat_id: ref('device_seats', 'SET NULL', true),
        expires_at: { type: DataTypes.DATE, allowNull: false },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('learner_sessions', ['institution_id', 'user_id'], { transaction });

    await qi.createTable(
      'attempts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        exam_id: ref('exams'),
        student_id: ref('people'),
        started_at: { type: DataTypes.DATE, allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: true },
        submitted_at: { type: DataTypes.DATE, allowNull: true },
        hidden_released_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('attempts', ['institution_id', 'exam_id', 'student_id'], { transaction });

    await qi.createTable(
      'proctoring_events',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        attempt_id: ref('attempts'),
        type: { type: DataTypes.STRING(50), allowNull: false },
        at: { type: DataTypes.DATE, allowNull: false },
        detail: { type: DataTypes.JSON, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('proctoring_events', ['institution_id', 'attempt_id', 'at'], { transaction });

    await qi.createTable(
      'submissions',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        exam_id: ref('exams'),
        student_id: ref('people'),
        attempt_id: ref('attempts'),
        status: { type: DataTypes.STRING(32), allowNull: false },
        answers: { type: DataTypes.JSON, allowNull: true },
        file_ids: { type: DataTypes.JSON, allowNull: false },
        ai_usage: { type: DataTypes.JSON, allowNull: true },
        score: { type: DataTypes.DOUBLE, allowNull: true },
        feedback: { type: DataTypes.TEXT, allowNull: true },
        graded_by: { type: DataTypes.STRING(200), allowNull: true },
        graded_at: { type: DataTypes.DATE, allowNull: true },
        void_reason: { type: DataTypes.STRING(500), allowNull: true },
        voided_at: { type: DataTypes.DATE, allowNull: true },
        submitted_at: { type: DataTypes.DATE, allowNull: false },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('submissions', ['institution_id', 'exam_id', 'student_id'], { transaction });
    await qi.addIndex('submissions', ['institution_id', 'submitted_at'], { transaction });
    await qi.addIndex('submissions', ['attempt_id'], { transaction });
  },
};
