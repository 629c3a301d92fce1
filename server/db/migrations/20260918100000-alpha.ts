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

/**
 * Alpha Learning: curricula and their concepts (an institution's own, or shared by every
 * institution when `institution_id` is null), enrollments, per-concept mastery, the activity log,
 * the points ledger and earned badges.
 */
export const alpha: Migration = {
  name: '20260918100000-alpha',
  async up({ queryInterface: qi, transaction }) {
    await qi.createTable(
      'alpha_curricula',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        // Null: a shared curriculum, visible to every institution.
        institution_id: ref('institutions', 'CASCADE', true),
        name: { type: DataTypes.STRING(200), allowNull: false },
        description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
        status: { type: DataTypes.STRING(16), allowNull: false },
        ...timestamps,
      },
      { transaction },
    );
    await qi.addIndex('alpha_curricula', ['institution_id', 'status'], { transaction });

    await qi.createTable(
      'alpha_concepts',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        curriculum_id: ref('alpha_curricula'),
        name: { type: DataTypes.STRING(200), allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('alpha_concepts', ['curriculum_id', 'position'], { unique: true, transaction });

    await qi.createTable(
      'alpha_enrollments',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        curriculum_id: ref('alpha_curricula', 'RESTRICT'),
        student_id: ref('people'),
        guide_id: ref('people', 'SET NULL', true),
        daily_target_minutes: { type: DataTypes.INTEGER, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        ...timestamps,
      },
      { transaction },
    );
    // One enrollment per student and curriculum, whatever its status: a second POST skips them.
    await qi.addIndex('alpha_enrollments', ['institution_id', 'curriculum_id', 'student_id'], { unique: true, transaction });
    await qi.addIndex('alpha_enrollments', ['institution_id', 'student_id'], { transaction });

    await qi.createTable(
      'alpha_mastery',
      {
        institution_id: ref('institutions'),
        student_id: { ...ref('people'), primaryKey: true },
        concept_id: { ...ref('alpha_concepts', 'RESTRICT'), primaryKey: true },
        curriculum_id: ref('alpha_curricula', 'RESTRICT'),
        mastery: { type: DataTypes.DOUBLE, allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false },
        correct: { type: DataTypes.INTEGER, allowNull: false },
        last_activity_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('alpha_mastery', ['institution_id', 'student_id', 'curriculum_id'], { transaction });

    await qi.createTable(
      'alpha_activities',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        student_id: ref('people'),
        enrollment_id: ref('alpha_enrollments'),
        curriculum_id: ref('alpha_curricula', 'RESTRICT'),
        concept_id: ref('alpha_concepts', 'RESTRICT'),
        correct: { type: DataTypes.BOOLEAN, allowNull: false },
        minutes: { type: DataTypes.INTEGER, allowNull: false },
        // The UTC calendar day of `occurred_at` (YYYY-MM-DD): streaks and daily targets count days.
        day: { type: DataTypes.STRING(10), allowNull: false },
        mastery_after: { type: DataTypes.DOUBLE, allowNull: false },
        occurred_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    await qi.addIndex('alpha_activities', ['institution_id', 'student_id', 'day'], { transaction });
    await qi.addIndex('alpha_activities', ['enrollment_id', 'day'], { transaction });

    await qi.createTable(
      'alpha_points',
      {
        id: { type: DataTypes.STRING(40), primaryKey: true },
        institution_id: ref('institutions'),
        student_id: ref('people'),
        points: { type: DataTypes.INTEGER, allowNull: false },
        note: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
        source: { type: DataTypes.STRING(16), allowNull: false },
        ref: { type: DataTypes.STRING(200), allowNull: false },
        // The student's total right after this row: the answer a replayed award repeats.
        balance_after: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
    // Every point is written once: an award's ref is unique in its institution, and so are the
    // refs the activity rules derive (the activity id, or the enrollment and day of a daily bonus).
    await qi.addIndex('alpha_points', ['institution_id', 'source', 'ref'], { unique: true, transaction });
    await qi.addIndex('alpha_points', ['institution_id', 'student_id', 'created_at'], { transaction });

    await qi.createTable(
      'alpha_badges',
      {
        institution_id: ref('institutions'),
        student_id: { ...ref('people'), primaryKey: true },
        code: { type: DataTypes.STRING(40), primaryKey: true },
        awarded_at: { type: DataTypes.DATE, allowNull: false },
      },
      { transaction },
    );
  },
};
