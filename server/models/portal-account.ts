import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface PortalAccountRow extends Model<InferAttributes<PortalAccountRow>, InferCreationAttributes<PortalAccountRow>> {
  id: string;
  email: string;
  password_hash: string | null;
  is_operator: boolean;
  status: 'active' | 'suspended';
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A person who signs in to the portal: the appliance operator, institution admins and developers. */
export function definePortalAccount(sequelize: Sequelize) {
  return sequelize.define<PortalAccountRow>(
    'PortalAccount',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      email: { type: DataTypes.STRING(320), allowNull: false, unique: true },
      password_hash: { type: DataTypes.STRING(300), allowNull: true },
      is_operator: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'portal_accounts' },
  );
}
