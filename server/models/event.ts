import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface EventRow extends Model<InferAttributes<EventRow>, InferCreationAttributes<EventRow>> {
  id: string;
  institution_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/** How long an event is kept (the daily prune-events job); its webhook deliveries are kept as long. */
export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The creation time before which events and deliveries are pruned. */
export const retentionCutoff = (now: number) => new Date(now - RETENTION_DAYS * DAY_MS);

/** An event's stored values, as the poll reads them (no model instance). */
export type EventRecord = InferAttributes<EventRow>;

/** One entry of an institution's event stream; written in the transaction of the change it records. */
export function defineEvent(sequelize: Sequelize) {
  return sequelize.define<EventRow>(
    'Event',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      type: { type: DataTypes.STRING(100), allowNull: false },
      data: { type: DataTypes.JSON, allowNull: false },
      // Set by emit(), never by the clock hook: it must be strictly increasing per institution.
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'events', timestamps: false },
  );
}
