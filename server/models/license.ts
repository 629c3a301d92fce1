import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type LicenseType = 'student' | 'faculty';
export type LicenseStatus = 'active' | 'expired' | 'revoked';

export interface LicenseRow extends Model<InferAttributes<LicenseRow>, InferCreationAttributes<LicenseRow>> {
  id: string;
  institution_id: string;
  user_id: string;
  type: LicenseType;
  /** Stored state; an `active` row whose expiry has passed is presented as `expired`. */
  status: LicenseStatus;
  starts_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineLicense(sequelize: Sequelize) {
  return sequelize.define<LicenseRow>(
    'License',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      user_id: { type: DataTypes.STRING(40), allowNull: false },
      type: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      starts_at: { type: DataTypes.DATE, allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      revoke_reason: { type: DataTypes.STRING(500), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'licenses' },
  );
}
