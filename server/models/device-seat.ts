import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface DeviceSeatRow extends Model<InferAttributes<DeviceSeatRow>, InferCreationAttributes<DeviceSeatRow>> {
  id: string;
  institution_id: string;
  license_id: string;
  app: 'learning' | 'code';
  device_id: string;
  device_name: string | null;
  status: 'active' | 'revoked';
  activated_at: Date;
  last_seen_at: Date;
  revoked_at: Date | null;
}

/** A device activated on a license (at most 3 active per license, across apps). */
export function defineDeviceSeat(sequelize: Sequelize) {
  return sequelize.define<DeviceSeatRow>(
    'DeviceSeat',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      license_id: { type: DataTypes.STRING(40), allowNull: false },
      app: { type: DataTypes.STRING(16), allowNull: false },
      device_id: { type: DataTypes.STRING(200), allowNull: false },
      device_name: { type: DataTypes.STRING(200), allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      activated_at: { type: DataTypes.DATE, allowNull: false },
      last_seen_at: { type: DataTypes.DATE, allowNull: false },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'device_seats', timestamps: false },
  );
}
