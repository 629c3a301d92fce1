import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** A "forgot password" link: only the SHA-256 of its token is stored; single-use, valid one hour. */
export interface PasswordResetRow extends Model<InferAttributes<PasswordResetRow>, InferCreationAttributes<PasswordResetRow>> {
  id: string;
  account_id: string;
  token_hash: string;
  expires_at: Date;
  /** When the link set a new password; null while unused. */
  used_at: Date | null;
  created_at: Date;
}

export function definePasswordReset(sequelize: Sequelize) {
  return sequelize.define<PasswordResetRow>(
    'PasswordReset',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      account_id: { type: DataTypes.STRING(40), allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'password_resets', timestamps: false },
  );
}
