import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type ExamStatus = 'draft' | 'published' | 'closed';
export type ExamType = 'exam' | 'homework' | 'assignment' | 'quiz' | 'project';
export type ExamApp = 'learning' | 'code';

export interface ExamRow extends Model<InferAttributes<ExamRow>, InferCreationAttributes<ExamRow>> {
  id: string;
  institution_id: string;
  /** The owning teacher (a faculty person id). */
  faculty_id: string;
  title: string;
  description: string;
  exam_type: ExamType;
  app: ExamApp;
  status: ExamStatus;
  max_score: number | null;
  due_date: Date | null;
  time_limit_minutes: number | null;
  proctoring: Record<string, unknown>;
  ai_policy: Record<string, unknown>;
  code_spec: Record<string, unknown> | null;
  published_at: Date | null;
  closed_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface ExamAssignmentRow extends Model<InferAttributes<ExamAssignmentRow>, InferCreationAttributes<ExamAssignmentRow>> {
  institution_id: string;
  exam_id: string;
  group_id: string;
  assigned_at: Date;
}

/** The hidden-tests key of a coding exam, sealed under the master key (never in clear in the database). */
export interface ExamSecretRow extends Model<InferAttributes<ExamSecretRow>, InferCreationAttributes<ExamSecretRow>> {
  exam_id: string;
  institution_id: string;
  key_sealed: string;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineExam(sequelize: Sequelize) {
  return sequelize.define<ExamRow>(
    'Exam',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      faculty_id: { type: DataTypes.STRING(40), allowNull: false },
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
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'exams' },
  );
}

export function defineExamAssignment(sequelize: Sequelize) {
  return sequelize.define<ExamAssignmentRow>(
    'ExamAssignment',
    {
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      exam_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      group_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      assigned_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'exam_assignments', timestamps: false },
  );
}

export function defineExamSecret(sequelize: Sequelize) {
  return sequelize.define<ExamSecretRow>(
    'ExamSecret',
    {
      exam_id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      key_sealed: { type: DataTypes.TEXT, allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'exam_secrets' },
  );
}
