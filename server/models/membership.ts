import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type MembershipRole = 'admin' | 'developer';

export interface MembershipRow extends Model<InferAttributes<MembershipRow>, InferCreationAttributes<MembershipRow>> {
  id: string;
  institution_id: string;
  account_id: string;
  role: MembershipRole;
  status: 'active' | 'suspended';
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A portal account's role in one institution. */
export function defineMembership(sequelize: Sequelize) {
  return sequelize.define<MembershipRow>(
    'Membership',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      account_id: { type: DataTypes.STRING(40), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'memberships' },
  );
}
