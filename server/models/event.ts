import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface EventRow extends Model<InferAttributes<EventRow>, InferCreationAttributes<EventRow>> {
  id: string;
  institution_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

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
