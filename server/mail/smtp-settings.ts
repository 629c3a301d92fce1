import type { Transaction } from 'sequelize';
import type { Database } from '../db/index.js';
import { parseInput } from '../validation/parse.js';
import { z } from '../validation/zod.js';

/** The app_settings key holding the appliance's outgoing mail server. */
const SMTP_SETTING_KEY = 'smtp';
/** Encryption context of the stored SMTP password; the same string must be used to seal and open it. */
const SMTP_PASSWORD = 'app_settings.smtp.password';

/** `noreply@school.example` or `Riverside High <noreply@school.example>`. */
function fromAddressOf(value: string): string {
  const bracketed = /<([^<>]+)>\s*$/.exec(value);
  return (bracketed?.[1] ?? value).trim();
}

export const smtpSettingsInput = z.strictObject({
  host: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9.:[\]-]+$/, 'A host name or IP address.'),
  port: z.number().int().min(1).max(65535),
  /** true: TLS from the first byte (port 465); false: plain, upgraded with STARTTLS when the server offers it. */
  secure: z.boolean().default(false),
  user: z.string().min(1).max(320).nullable().optional(),
  /** Absent: keep the stored password of the same user (a form that leaves it blank); null: remove it. */
  password: z.string().min(1).max(500).nullable().optional(),
  from: z
    .string()
    .trim()
    .min(3)
    .max(320)
    .refine((value) => z.email().safeParse(fromAddressOf(value)).success, 'An address such as "noreply@school.example" or "School <noreply@school.example>".'),
});

export type SmtpSettingsInput = z.input<typeof smtpSettingsInput>;

/** As stored in app_settings: the password only sealed. */
interface StoredSmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password_sealed: string | null;
  from: string;
}

/** What callers (CLI, portal) may see: never the password, only whether one is set. */
export interface SmtpSettingsView {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  from: string;
  password_set: boolean;
  updated_at: string;
}

/** What the mailer needs to connect: the password opened. Never leaves the mail layer. */
export interface SmtpConnectionSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
  from: string;
}

async function readStored(db: Database, transaction: Transaction | null = null): Promise<{ stored: StoredSmtpSettings; updatedAt: Date } | null> {
  const row = await db.models.AppSetting.findByPk(SMTP_SETTING_KEY, { transaction });
  if (!row) return null;
  return { stored: row.value as StoredSmtpSettings, updatedAt: row.updated_at };
}

/** The configured mail server without its password, or null when none is configured. */
export async function getSmtpSettings(db: Database): Promise<SmtpSettingsView | null> {
  const found = await readStored(db);
  if (!found) return null;
  const { stored, updatedAt } = found;
  return {
    host: stored.host,
    port: stored.port,
    secure: stored.secure,
    user: stored.user,
    from: stored.from,
    password_set: stored.password_sealed !== null,
    updated_at: updatedAt.toISOString(),
  };
}

/**
 * Saves the mail server (replacing the previous one) and nudges the mailer, so mail that waited
 * for a server goes out at once in a running appliance. A password needs a user; a new or no
 * user drops the stored password.
 */
export async function setSmtpSettings(db: Database, input: SmtpSettingsInput): Promise<SmtpSettingsView> {
  const parsed = parseInput(
    smtpSettingsInput.refine((value) => !value.password || value.user, { path: ['password'], message: 'A password needs a user.' }),
    input,
  );
  const user = parsed.user ?? null;
  await db.sequelize.transaction(async (transaction) => {
    let passwordSealed: string | null = null;
    if (user !== null) {
      if (parsed.password) passwordSealed = db.fieldCrypto.encrypt(parsed.password, SMTP_PASSWORD);
      else if (parsed.password === undefined) {
        const previous = (await readStored(db, transaction))?.stored;
        if (previous?.user === user) passwordSealed = previous.password_sealed;
      }
    }
    const value: StoredSmtpSettings = { host: parsed.host, port: parsed.port, secure: parsed.secure, user, password_sealed: passwordSealed, from: parsed.from };
    await db.models.AppSetting.upsert({ key: SMTP_SETTING_KEY, value, updated_at: new Date() }, { transaction });
  });
  for (const listener of db.mailQueuedListeners) listener();
  const view = await getSmtpSettings(db);
  if (!view) throw new Error('SMTP settings vanished after saving');
  return view;
}

/** Removes the mail server; mail then waits in the outbox until one is configured again. */
export async function clearSmtpSettings(db: Database): Promise<void> {
  await db.sequelize.transaction((transaction) => db.models.AppSetting.destroy({ where: { key: SMTP_SETTING_KEY }, transaction }));
}

/** For the mailer only: the settings with the password opened, or null when none are configured. */
export async function loadSmtpConnection(db: Database): Promise<SmtpConnectionSettings | null> {
  const found = await readStored(db);
  if (!found) return null;
  const { stored } = found;
  return {
    host: stored.host,
    port: stored.port,
    secure: stored.secure,
    user: stored.user,
    password: stored.password_sealed ? db.fieldCrypto.decrypt(stored.password_sealed, SMTP_PASSWORD) : null,
    from: stored.from,
  };
}
