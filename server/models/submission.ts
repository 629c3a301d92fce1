import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type SubmissionStatus = 'submitted' | 'graded' | 'resubmission_requested' | 'voided';

export interface SubmissionRow extends Model<InferAttributes<SubmissionRow>, InferCreationAttributes<SubmissionRow>> {
  id: string;
  institution_id: string;
  exam_id: string;
  student_id: string;
  attempt_id: string;
  status: SubmissionStatus;
  answers: unknown;
  /** Stored files (attempt uploads) attached to the submission. */
  file_ids: string[];
  ai_usage: { interactions: number; cost_cents: number } | null;
  score: number | null;
  feedback: string | null;
  graded_by: string | null;
  graded_at: Date | null;
  void_reason: string | null;
  voided_at: Date | null;
  submitted_at: Date;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineSubmission(sequelize: Sequelize) {
  return sequelize.define<SubmissionRow>(
    'Submission',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      exam_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      attempt_id: { type: DataTypes.STRING(40), allowNull: false },
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
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'submissions' },
  );
}
