import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

/** Encryption contexts of outbox recipients and bodies; the same string must be used to seal and open them. */
export const MAIL_RECIPIENT = 'mail_outbox.to';
export const MAIL_BODY = 'mail_outbox.body';
export const MAIL_HTML = 'mail_outbox.html';

/** `dropped`: never sent, because it had gone stale while waiting (`dropped_reason` says how). */
export const MAIL_STATUSES = ['queued', 'sent', 'failed', 'dropped'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * What a waiting message can be about, so the sender can tell whether it still holds: a portal
 * invitation (`invitations`), a guardian's invitation or a verified guardian (`guardian_links`),
 * an exam (`exams`). See server/mail/staleness.ts and docs/decisions/guardians-and-mail.md.
 */
export const MAIL_ABOUT_KINDS = ['invitation', 'guardian_invitation', 'guardian_link', 'exam'] as const;
export type MailAboutKind = (typeof MAIL_ABOUT_KINDS)[number];

/** Why a message was dropped unsent. */
export const MAIL_DROP_REASONS = [
  'link_expired',
  'link_replaced',
  'invitation_revoked',
  'invitation_accepted',
  'guardian_removed',
  'exam_closed',
  'exam_deleted',
] as const;
export type MailDropReason = (typeof MAIL_DROP_REASONS)[number];

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
  /** The HTML part, sealed like the text; null for text-only mail, and once sent or dropped. */
  html_sealed: CreationOptional<string | null>;
  /** Past this, a waiting message is dropped (`link_expired`) instead of sent. */
  expires_at: Date | null;
  /** The address its links start with, as it was when queued; the sender puts the current one in its place. */
  link_base: CreationOptional<string | null>;
  kind: string;
  status: MailStatus;
  /** What the message is about (null: nothing that can go stale, such as a test message). */
  about_kind: CreationOptional<MailAboutKind | null>;
  about_id: CreationOptional<string | null>;
  /** Which version of it the message was written for (a fingerprint of an invitation's token), or null. */
  about_version: CreationOptional<string | null>;
  /** Set with status `dropped`. */
  dropped_reason: CreationOptional<MailDropReason | null>;
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
      html_sealed: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
      link_base: { type: DataTypes.STRING(2000), allowNull: true, defaultValue: null },
      expires_at: { type: DataTypes.DATE, allowNull: true },
      kind: { type: DataTypes.STRING(50), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      about_kind: { type: DataTypes.STRING(32), allowNull: true, defaultValue: null },
      about_id: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
      about_version: { type: DataTypes.STRING(64), allowNull: true, defaultValue: null },
      dropped_reason: { type: DataTypes.STRING(32), allowNull: true, defaultValue: null },
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
