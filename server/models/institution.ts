import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type InstitutionStatus = 'pending' | 'approved' | 'suspended';

export interface IntegrationConfig {
  default_ai_policy: Record<string, unknown>;
  default_proctoring: Record<string, unknown>;
  allowed_toolchains: string[];
  toolchain_mirror: Record<string, unknown> | null;
  lms: Record<string, unknown>;
}

export interface InstitutionRow extends Model<InferAttributes<InstitutionRow>, InferCreationAttributes<InstitutionRow>> {
  id: string;
  name: string;
  status: InstitutionStatus;
  config: IntegrationConfig;
  /** Domain of generated login emails (`<slug>.campusbridge.local`), fixed at creation. */
  email_domain: string | null;
  /** Set on a sandbox: the live institution it belongs to (docs/decisions/sandbox.md). Null on a live institution. */
  sandbox_of: CreationOptional<string | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineInstitution(sequelize: Sequelize) {
  return sequelize.define<InstitutionRow>(
    'Institution',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      name: { type: DataTypes.STRING(200), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      config: { type: DataTypes.JSON, allowNull: false },
      email_domain: { type: DataTypes.STRING(200), allowNull: true, unique: true },
      sandbox_of: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'institutions' },
  );
}
