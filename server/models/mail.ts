import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** Encryption contexts of outbox recipients and bodies; the same string must be used to seal and open them. */
export const MAIL_RECIPIENT = 'mail_outbox.to';
export const MAIL_BODY = 'mail_outbox.body';

/** `expired`: dropped unsent, as what it offered (an invitation link) had ended. */
export const MAIL_STATUSES = ['queued', 'sent', 'failed', 'expired'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export interface MailOutboxRow extends Model<InferAttributes<MailOutboxRow>, InferCreationAttributes<MailOutboxRow>> {
  id: string;
  /** Null for appliance-level mail (portal invitations of the operator). */
  institution_id: string | null;
  /** Recipient, encrypted: it may be a student's personal email. */
  to_sealed: string;
  /** What the portal shows: `a•••@example.org`. */
  to_masked: string;
  subject: string;
  /** The text, sealed with the master key; null once sent or dropped. */
  body_sealed: string | null;
  /** Past this, a waiting message is dropped (`expired`) instead of sent. */
  expires_at: Date | null;
  kind: string;
  status: MailStatus;
  attempts: CreationOptional<number>;
  last_error: string | null;
  sent_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface AppSettingRow extends Model<InferAttributes<AppSettingRow>, InferCreationAttributes<AppSettingRow>> {
  key: string;
  value: unknown;
  updated_at: Date;
}

/** Mail is a row before it is a message: written in the change's transaction, sent after commit. */
export function defineMailOutbox(sequelize: Sequelize) {
  return sequelize.define<MailOutboxRow>(
    'MailOutbox',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: true },
      to_sealed: { type: DataTypes.TEXT, allowNull: false },
      to_masked: { type: DataTypes.STRING(320), allowNull: false },
      subject: { type: DataTypes.STRING(300), allowNull: false },
      body_sealed: { type: DataTypes.TEXT, allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: true },
      kind: { type: DataTypes.STRING(50), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      last_error: { type: DataTypes.STRING(500), allowNull: true },
      sent_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'mail_outbox' },
  );
}

/** Appliance-wide settings (SMTP among them), one JSON value per key. */
export function defineAppSetting(sequelize: Sequelize) {
  return sequelize.define<AppSettingRow>(
    'AppSetting',
    {
      key: { type: DataTypes.STRING(100), primaryKey: true },
      value: { type: DataTypes.JSON, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'app_settings', timestamps: false },
  );
}
