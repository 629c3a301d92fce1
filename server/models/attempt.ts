import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface AttemptRow extends Model<InferAttributes<AttemptRow>, InferCreationAttributes<AttemptRow>> {
  id: string;
  institution_id: string;
  exam_id: string;
  student_id: string;
  started_at: Date;
  /** From the exam's time limit; null when it has none. */
  expires_at: Date | null;
  submitted_at: Date | null;
  /** When the hidden-tests key was released to the student. */
  hidden_released_at: Date | null;
  /** AI usage recorded by `POST /app/ai/usage` (policy-checked, paid); a submission copies it. */
  ai_interactions: CreationOptional<number>;
  ai_cost_cents: CreationOptional<number>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface ProctoringEventRow extends Model<InferAttributes<ProctoringEventRow>, InferCreationAttributes<ProctoringEventRow>> {
  id: string;
  institution_id: string;
  attempt_id: string;
  /** `focus_lost`, `recorder_error`, … */
  type: string;
  at: Date;
  detail: unknown;
  created_at: Date;
}

export function defineAttempt(sequelize: Sequelize) {
  return sequelize.define<AttemptRow>(
    'Attempt',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      exam_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      started_at: { type: DataTypes.DATE, allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: true },
      submitted_at: { type: DataTypes.DATE, allowNull: true },
      hidden_released_at: { type: DataTypes.DATE, allowNull: true },
      ai_interactions: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ai_cost_cents: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'attempts' },
  );
}

export function defineProctoringEvent(sequelize: Sequelize) {
  return sequelize.define<ProctoringEventRow>(
    'ProctoringEvent',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      attempt_id: { type: DataTypes.STRING(40), allowNull: false },
      type: { type: DataTypes.STRING(50), allowNull: false },
      at: { type: DataTypes.DATE, allowNull: false },
      detail: { type: DataTypes.JSON, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'proctoring_events', timestamps: false },
  );
}
