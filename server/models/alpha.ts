import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type CurriculumStatus = 'draft' | 'published';
export type EnrollmentStatus = 'active' | 'paused' | 'completed';
export type PointsSource = 'activity' | 'award';
/** What each one means is in BADGES (commands/alpha/rules.ts). */
export type BadgeCode = 'first_activity' | 'streak_3' | 'streak_7' | 'mastery_0_8';

/**
 * A curriculum. Not tenant-owned: `institution_id` null means shared by every institution, so it is
 * read through `Tenant.alphaCurricula` (VisibleCurricula in db/visible-curricula.ts), never through a ScopedRepo.
 */
export interface AlphaCurriculumRow extends Model<InferAttributes<AlphaCurriculumRow>, InferCreationAttributes<AlphaCurriculumRow>> {
  id: string;
  institution_id: string | null;
  name: string;
  description: string;
  status: CurriculumStatus;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A concept of a curriculum, in the curriculum's order. */
export interface AlphaConceptRow extends Model<InferAttributes<AlphaConceptRow>, InferCreationAttributes<AlphaConceptRow>> {
  id: string;
  curriculum_id: string;
  name: string;
  position: number;
}

export interface AlphaEnrollmentRow extends Model<InferAttributes<AlphaEnrollmentRow>, InferCreationAttributes<AlphaEnrollmentRow>> {
  id: string;
  institution_id: string;
  curriculum_id: string;
  student_id: string;
  /** A faculty person id, or null. */
  guide_id: string | null;
  daily_target_minutes: number;
  status: EnrollmentStatus;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** One student's mastery of one concept; absent until the first activity on it. */
export interface AlphaMasteryRow extends Model<InferAttributes<AlphaMasteryRow>, InferCreationAttributes<AlphaMasteryRow>> {
  institution_id: string;
  student_id: string;
  concept_id: string;
  curriculum_id: string;
  /** 0..1, an exponential moving average of correctness (see commands/alpha/rules.ts). */
  mastery: number;
  attempts: number;
  correct: number;
  last_activity_at: Date;
}

/** One practice activity reported by the learner app. */
export interface AlphaActivityRow extends Model<InferAttributes<AlphaActivityRow>, InferCreationAttributes<AlphaActivityRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  enrollment_id: string;
  curriculum_id: string;
  concept_id: string;
  correct: boolean;
  minutes: number;
  /** UTC calendar day of `occurred_at`, `YYYY-MM-DD`. */
  day: string;
  mastery_after: number;
  occurred_at: Date;
}

/** A row of the points ledger; a student's total is the sum of their rows. Rows are never changed. */
export interface AlphaPointsRow extends Model<InferAttributes<AlphaPointsRow>, InferCreationAttributes<AlphaPointsRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  points: number;
  note: string;
  source: PointsSource;
  /** Awards: the client's idempotency ref. Activity: the activity id, or `daily_target:<enrollment>:<day>`. */
  ref: string;
  balance_after: number;
  created_at: Date;
}

export interface AlphaBadgeRow extends Model<InferAttributes<AlphaBadgeRow>, InferCreationAttributes<AlphaBadgeRow>> {
  institution_id: string;
  student_id: string;
  code: BadgeCode;
  awarded_at: Date;
}

export function defineAlphaCurriculum(sequelize: Sequelize) {
  return sequelize.define<AlphaCurriculumRow>(
    'AlphaCurriculum',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: true },
      name: { type: DataTypes.STRING(200), allowNull: false },
      description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
      status: { type: DataTypes.STRING(16), allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'alpha_curricula' },
  );
}

export function defineAlphaConcept(sequelize: Sequelize) {
  return sequelize.define<AlphaConceptRow>(
    'AlphaConcept',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      curriculum_id: { type: DataTypes.STRING(40), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false },
    },
    { tableName: 'alpha_concepts', timestamps: false },
  );
}

export function defineAlphaEnrollment(sequelize: Sequelize) {
  return sequelize.define<AlphaEnrollmentRow>(
    'AlphaEnrollment',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      curriculum_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      guide_id: { type: DataTypes.STRING(40), allowNull: true },
      daily_target_minutes: { type: DataTypes.INTEGER, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'alpha_enrollments' },
  );
}

export function defineAlphaMastery(sequelize: Sequelize) {
  return sequelize.define<AlphaMasteryRow>(
    'AlphaMastery',
    {
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      concept_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      curriculum_id: { type: DataTypes.STRING(40), allowNull: false },
      mastery: { type: DataTypes.DOUBLE, allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false },
      correct: { type: DataTypes.INTEGER, allowNull: false },
      last_activity_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'alpha_mastery', timestamps: false },
  );
}

export function defineAlphaActivity(sequelize: Sequelize) {
  return sequelize.define<AlphaActivityRow>(
    'AlphaActivity',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      enrollment_id: { type: DataTypes.STRING(40), allowNull: false },
      curriculum_id: { type: DataTypes.STRING(40), allowNull: false },
      concept_id: { type: DataTypes.STRING(40), allowNull: false },
      correct: { type: DataTypes.BOOLEAN, allowNull: false },
      minutes: { type: DataTypes.INTEGER, allowNull: false },
      day: { type: DataTypes.STRING(10), allowNull: false },
      mastery_after: { type: DataTypes.DOUBLE, allowNull: false },
      occurred_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'alpha_activities', timestamps: false },
  );
}

export function defineAlphaPoints(sequelize: Sequelize) {
  return sequelize.define<AlphaPointsRow>(
    'AlphaPoints',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      points: { type: DataTypes.INTEGER, allowNull: false },
      note: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
      source: { type: DataTypes.STRING(16), allowNull: false },
      ref: { type: DataTypes.STRING(200), allowNull: false },
      balance_after: { type: DataTypes.INTEGER, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'alpha_points', timestamps: false },
  );
}

export function defineAlphaBadge(sequelize: Sequelize) {
  return sequelize.define<AlphaBadgeRow>(
    'AlphaBadge',
    {
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      code: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      awarded_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'alpha_badges', timestamps: false },
  );
}
