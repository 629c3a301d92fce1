import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';
import { outboundPostColumns } from './outbound-post.js';

/**
 * An exam's line item in one SIS class (OneRoster 1.2 Gradebook `lineItem`): what is `PUT` before the
 * first result of the class, and again after it changes (its title, dates or maximum).
 */
export interface OneRosterLineItemRow extends Model<InferAttributes<OneRosterLineItemRow>, InferCreationAttributes<OneRosterLineItemRow>> {
  id: string;
  institution_id: string;
  connection_id: string;
  /** Stable per exam and class (`campusbridge-<exam id>-<class hash>`). */
  sourced_id: string;
  exam_id: string;
  class_sourced_id: string;
  /** The lineItem JSON as sent, but `school` (read from the SIS's class when it is sent) and `dateLastModified`. */
  payload: Record<string, unknown>;
  /** When the SIS took the current payload; null: not yet, or changed since. */
  delivered_at: Date | null;
  updated_at: Date;
}

/** `superseded`: a newer grade of the same result was queued before this one was sent; it is never sent. */
export type GradebookPostStatus = 'pending' | 'delivering' | 'succeeded' | 'dead' | 'superseded';

/** A result waiting for, or past, its `PUT` to the SIS's gradebook: a row before it is a request (docs/lms.md). */
export interface OneRosterGradebookPostRow extends Model<InferAttributes<OneRosterGradebookPostRow>, InferCreationAttributes<OneRosterGradebookPostRow>> {
  id: string;
  institution_id: string;
  connection_id: string;
  submission_id: string;
  exam_id: string;
  student_id: string;
  line_item_sourced_id: string;
  /** Stable per line item and student: a regrade `PUT`s the same result with its new score. */
  result_sourced_id: string;
  /** The `result` JSON exactly as sent. */
  payload: Record<string, unknown>;
  status: GradebookPostStatus;
  attempt_count: CreationOptional<number>;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  error: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export const GRADEBOOK_STEPS = ['token', 'category', 'class', 'lineItem', 'result'] as const;
/** Which request of a delivery an attempt ended on: a result needs its category and line item first. */
export type GradebookStep = (typeof GRADEBOOK_STEPS)[number];

export interface OneRosterGradebookAttemptRow extends Model<
  InferAttributes<OneRosterGradebookAttemptRow>,
  InferCreationAttributes<OneRosterGradebookAttemptRow>
> {
  id: string;
  institution_id: string;
  post_id: string;
  at: Date;
  step: GradebookStep;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

// Fresh objects per attribute: Sequelize writes into an attribute's definition (its column name).
const id = () => ({ type: DataTypes.STRING(40), primaryKey: true });
const ref = () => ({ type: DataTypes.STRING(40), allowNull: false });
const sourcedId = () => ({ type: DataTypes.STRING(255), allowNull: false });

export function defineOneRosterLineItem(sequelize: Sequelize) {
  return sequelize.define<OneRosterLineItemRow>(
    'OneRosterLineItem',
    {
      id: id(),
      institution_id: ref(),
      connection_id: ref(),
      sourced_id: sourcedId(),
      exam_id: ref(),
      class_sourced_id: sourcedId(),
      payload: { type: DataTypes.JSON, allowNull: false },
      delivered_at: { type: DataTypes.DATE, allowNull: true },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'oneroster_line_items', timestamps: false },
  );
}

export function defineOneRosterGradebookPost(sequelize: Sequelize) {
  return sequelize.define<OneRosterGradebookPostRow>(
    'OneRosterGradebookPost',
    {
      id: id(),
      institution_id: ref(),
      connection_id: ref(),
      submission_id: ref(),
      exam_id: ref(),
      student_id: ref(),
      line_item_sourced_id: sourcedId(),
      result_sourced_id: sourcedId(),
      payload: { type: DataTypes.JSON, allowNull: false },
      ...outboundPostColumns(),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'oneroster_gradebook_posts' },
  );
}

export function defineOneRosterGradebookAttempt(sequelize: Sequelize) {
  return sequelize.define<OneRosterGradebookAttemptRow>(
    'OneRosterGradebookAttempt',
    {
      id: id(),
      institution_id: ref(),
      post_id: ref(),
      at: { type: DataTypes.DATE, allowNull: false },
      step: { type: DataTypes.STRING(16), allowNull: false },
      response_status: { type: DataTypes.INTEGER, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      error: { type: DataTypes.STRING(200), allowNull: true },
    },
    { tableName: 'oneroster_gradebook_attempts', timestamps: false },
  );
}
