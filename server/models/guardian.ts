import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export type GuardianType = 'father' | 'mother' | 'guardian';

export interface GuardianLinkRow extends Model<InferAttributes<GuardianLinkRow>, InferCreationAttributes<GuardianLinkRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  guardian_email: string;
  guardian_type: GuardianType;
  guardian_name: string | null;
  guardian_phone: string | null;
  is_primary: boolean;
  verified: boolean;
  /** SHA-256 of the current invitation token; a resend replaces it, voiding the old link. */
  invite_token_hash: string | null;
  invite_expires_at: Date | null;
  invited_at: Date;
  verified_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface GuardianReportRow extends Model<InferAttributes<GuardianReportRow>, InferCreationAttributes<GuardianReportRow>> {
  id: string;
  institution_id: string;
  student_id: string;
  /** Monday of the reported week, `YYYY-MM-DD`. */
  week_start: string;
  summary: Record<string, unknown>;
  created_at: Date;
}

export function defineGuardianLink(sequelize: Sequelize) {
  return sequelize.define<GuardianLinkRow>(
    'GuardianLink',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      guardian_email: { type: DataTypes.STRING(320), allowNull: false },
      guardian_type: { type: DataTypes.STRING(16), allowNull: false },
      guardian_name: { type: DataTypes.STRING(200), allowNull: true },
      guardian_phone: { type: DataTypes.STRING(50), allowNull: true },
      is_primary: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      verified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      invite_token_hash: { type: DataTypes.STRING(64), allowNull: true },
      invite_expires_at: { type: DataTypes.DATE, allowNull: true },
      invited_at: { type: DataTypes.DATE, allowNull: false },
      verified_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'guardian_links' },
  );
}

export function defineGuardianReport(sequelize: Sequelize) {
  return sequelize.define<GuardianReportRow>(
    'GuardianReport',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      student_id: { type: DataTypes.STRING(40), allowNull: false },
      week_start: { type: DataTypes.DATEONLY, allowNull: false },
      summary: { type: DataTypes.JSON, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'guardian_reports', timestamps: false },
  );
}
