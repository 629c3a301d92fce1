import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import { outboundPostColumns } from './outbound-post.js';
import { id, ref } from './lti.js';

export type ScorePostStatus = 'pending' | 'delivering' | 'succeeded' | 'dead';

/** An AGS score waiting for, or past, its POST to the platform's line item: a row before it is a request. */
export interface LtiScorePostRow extends Model<InferAttributes<LtiScorePostRow>, InferCreationAttributes<LtiScorePostRow>> {
  id: string;
  institution_id: string;
  platform_id: string;
  submission_id: string;
  line_item_url: string;
  /** The score JSON exactly as sent (application/vnd.ims.lis.v1.score+json). */
  payload: Record<string, unknown>;
  status: ScorePostStatus;
  attempt_count: CreationOptional<number>;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  error: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface LtiScoreAttemptRow extends Model<InferAttributes<LtiScoreAttemptRow>, InferCreationAttributes<LtiScoreAttemptRow>> {
  id: string;
  institution_id: string;
  score_post_id: string;
  at: Date;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export function defineLtiScorePost(sequelize: Sequelize) {
  return sequelize.define<LtiScorePostRow>(
    'LtiScorePost',
    {
      id: id(),
      institution_id: ref(),
      platform_id: ref(),
      submission_id: ref(),
      line_item_url: { type: DataTypes.STRING(2048), allowNull: false },
      payload: { type: DataTypes.JSON, allowNull: false },
      ...outboundPostColumns(),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'lti_score_posts' },
  );
}

export function defineLtiScoreAttempt(sequelize: Sequelize) {
  return sequelize.define<LtiScoreAttemptRow>(
    'LtiScoreAttempt',
    {
      id: id(),
      institution_id: ref(),
      score_post_id: ref(),
      at: { type: DataTypes.DATE, allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      error: { type: DataTypes.STRING(200), allowNull: true },
    },
    { tableName: 'lti_score_attempts', timestamps: false },
  );
}
