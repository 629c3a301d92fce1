import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export const KEY_ENVIRONMENTS = ['live', 'sandbox'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

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
  /** `sandbox` keys open the institution's sandbox (`cb_test_…`); the key row stays the live institution's. */
  environment: CreationOptional<KeyEnvironment>;
  created_by: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** After this instant the key answers like an unknown key; null: no expiry. */
  expires_at: CreationOptional<Date | null>;
  /** The address of the request that last wrote `last_used_at`, as Express sees it (`req.ip`: the client's behind a `TRUST_PROXY` proxy). */
  last_used_ip: CreationOptional<string | null>;
  /** The key made by rolling this one; set once, so a key is rolled at most once. */
  replaced_by: CreationOptional<string | null>;
  /** The key this one was rolled from. */
  replaces: CreationOptional<string | null>;
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
      environment: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'live' },
      created_by: { type: DataTypes.STRING(40), allowNull: true },
      last_used_at: { type: DataTypes.DATE, allowNull: true },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: true },
      last_used_ip: { type: DataTypes.STRING(45), allowNull: true },
      replaced_by: { type: DataTypes.STRING(40), allowNull: true },
      replaces: { type: DataTypes.STRING(40), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'api_keys' },
  );
}
