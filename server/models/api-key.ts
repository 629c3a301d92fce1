import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface ApiKeyRow extends Model<InferAttributes<ApiKeyRow>, InferCreationAttributes<ApiKeyRow>> {
  id: string;
  institution_id: string;
  name: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  prefix: string;
  last4: string;
  scopes: string[];
  rate_limit_per_min: number;
  status: 'active' | 'revoked';
  created_by: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineApiKey(sequelize: Sequelize) {
  return sequelize.define<ApiKeyRow>(
    'ApiKey',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      prefix: { type: DataTypes.STRING(16), allowNull: false },
      last4: { type: DataTypes.STRING(4), allowNull: false },
      scopes: { type: DataTypes.JSON, allowNull: false },
      rate_limit_per_min: { type: DataTypes.INTEGER, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      created_by: { type: DataTypes.STRING(40), allowNull: true },
      last_used_at: { type: DataTypes.DATE, allowNull: true },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'api_keys' },
  );
}
