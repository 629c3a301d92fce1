import { DataTypes, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** A signed-in portal account (cookie `cb_portal`); only hashes of its token and CSRF token are stored. */
export interface PortalSessionRow extends Model<InferAttributes<PortalSessionRow>, InferCreationAttributes<PortalSessionRow>> {
  id: string;
  account_id: string;
  token_hash: string;
  csrf_token_hash: string;
  /** Absolute end of the session; the idle end is `last_seen_at` + the idle timeout. */
  expires_at: Date;
  last_seen_at: Date;
  created_at: Date;
}

export function definePortalSession(sequelize: Sequelize) {
  return sequelize.define<PortalSessionRow>(
    'PortalSession',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      account_id: { type: DataTypes.STRING(40), allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      csrf_token_hash: { type: DataTypes.STRING(64), allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      last_seen_at: { type: DataTypes.DATE, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'portal_sessions', timestamps: false },
  );
}
