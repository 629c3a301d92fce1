import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type LearnerApp = 'learning' | 'code';

/** A single-use launch token minted by POST /sso/tokens; only its SHA-256 is stored. */
export interface LaunchTokenRow extends Model<InferAttributes<LaunchTokenRow>, InferCreationAttributes<LaunchTokenRow>> {
  id: string;
  institution_id: string;
  token_hash: string;
  user_id: string;
  app: LearnerApp;
  redirect: string | null;
  /** Minted by an LMS instructor's launch only: the session it opens may grade this exam and nothing else. */
  grading_exam_id: CreationOptional<string | null>;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

/** A learner session (`cb_sess_…`), the result of exchanging a launch token; only its SHA-256 is stored. */
export interface LearnerSessionRow extends Model<InferAttributes<LearnerSessionRow>, InferCreationAttributes<LearnerSessionRow>> {
  id: string;
  institution_id: string;
  token_hash: string;
  user_id: string;
  app: LearnerApp;
  seat_id: string | null;
  /** Set on a session an LMS instructor's launch opened: it may only read and grade this exam's submissions. */
  grading_exam_id: CreationOptional<string | null>;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

export function defineLaunchToken(sequelize: Sequelize) {
  return sequelize.define<LaunchTokenRow>(
    'LaunchToken',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      user_id: { type: DataTypes.STRING(40), allowNull: false },
      app: { type: DataTypes.STRING(16), allowNull: false },
      redirect: { type: DataTypes.STRING(300), allowNull: true },
      grading_exam_id: { type: DataTypes.STRING(40), allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'launch_tokens', timestamps: false },
  );
}

export function defineLearnerSession(sequelize: Sequelize) {
  return sequelize.define<LearnerSessionRow>(
    'LearnerSession',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      user_id: { type: DataTypes.STRING(40), allowNull: false },
      app: { type: DataTypes.STRING(16), allowNull: false },
      seat_id: { type: DataTypes.STRING(40), allowNull: true },
      grading_exam_id: { type: DataTypes.STRING(40), allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'learner_sessions', timestamps: false },
  );
}
