import os from 'node:os';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { parsePrivateHosts, parsePublicUrl, UNSPECIFIED_HOSTS } from './values.js';

/**
 * The appliance's own settings (docs/api.md#appliance-settings): stored in `app_settings`, changed
 * in the operator's portal or with `cli settings set`, read fresh on every use so a change made by
 * the CLI reaches a running server at once. An environment variable of the same meaning wins.
 */
export const SETTING_NAMES = ['public_url', 'outbound_private_hosts'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/**
 * Names a setting had before, still accepted wherever a name is given (`settings set`, the portal's
 * `PUT /operator/settings/{name}`). `webhook_private_hosts` became `outbound_private_hosts` when
 * requests to LTI platforms and the SIS came to obey it too.
 */
export const SETTING_ALIASES = { webhook_private_hosts: 'outbound_private_hosts' } as const satisfies Record<string, SettingName>;
export const ACCEPTED_SETTING_NAMES = [...SETTING_NAMES, ...(Object.keys(SETTING_ALIASES) as Array<keyof typeof SETTING_ALIASES>)] as const;

/** The setting a name (current or old) stands for; null for a name that is neither. */
export function settingNamed(name: string): SettingName | null {
  if ((SETTING_NAMES as readonly string[]).includes(name)) return name as SettingName;
  return Object.hasOwn(SETTING_ALIASES, name) ? SETTING_ALIASES[name as keyof typeof SETTING_ALIASES] : null;
}
export { parsePrivateHosts, parsePublicUrl };
export type SettingSource = 'env' | 'setting' | 'default';

export interface ResolvedSetting {
  value: string;
  source: SettingSource;
}

export type ApplianceSettings = Record<SettingName, ResolvedSetting>;

/** `settings set <name> default` forgets the stored value. */
export const RESET_VALUE = 'default';

const storedKey = (name: SettingName) => `setting.${name}`;

const PARSERS: Record<SettingName, (raw: string) => string> = { public_url: parsePublicUrl, outbound_private_hosts: parsePrivateHosts };

/**
 * Where the appliance listens, as other computers would reach it: `HOST`, but never `0.0.0.0` or
 * `::` (any address), which no browser can open; then the machine's host name.
 */
export function defaultPublicUrl(config: Pick<Config, 'host' | 'port'>, port: number = config.port): string {
  const host = UNSPECIFIED_HOSTS.has(config.host) ? os.hostname().toLowerCase() : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The environment's value of a setting, or null when the variable is not set. */
function fromEnvironment(config: Config, name: SettingName): string | null {
  return name === 'public_url' ? config.publicUrl : config.outbound.privateHosts;
}

/** Every setting with where its value comes from; `listeningPort` is the port actually bound (PORT=0). */
export async function readApplianceSettings(db: Database, config: Config, listeningPort?: number): Promise<ApplianceSettings> {
  const rows = await db.models.AppSetting.findAll({ where: { key: SETTING_NAMES.map(storedKey) } });
  const stored = new Map(rows.map((row) => [row.key, row.value]));
  const defaults: Record<SettingName, string> = { public_url: defaultPublicUrl(config, listeningPort), outbound_private_hosts: 'off' };
  const resolve = (name: SettingName): ResolvedSetting => {
    const env = fromEnvironment(config, name);
    if (env !== null) return { value: env, source: 'env' };
    const value = stored.get(storedKey(name));
    // A stored value that no longer parses (edited by hand) is ignored rather than trusted.
    if (typeof value === 'string') {
      try {
        return { value: PARSERS[name](value), source: 'setting' };
      } catch {
        /* the default below */
      }
    }
    return { value: defaults[name], source: 'default' };
  };
  return { public_url: resolve('public_url'), outbound_private_hosts: resolve('outbound_private_hosts') };
}

/** The address links use when one is set (the `public_url` setting, or PUBLIC_URL); null while it is the default. */
export async function explicitPublicUrl(db: Database, config: Config): Promise<string | null> {
  const setting = (await readApplianceSettings(db, config)).public_url;
  return setting.source === 'default' ? null : setting.value;
}

/** One setting's value now. */
export async function readApplianceSetting(db: Database, config: Config, name: SettingName, listeningPort?: number): Promise<string> {
  return (await readApplianceSettings(db, config, listeningPort))[name].value;
}

/**
 * Stores a setting (validated: an invalid value is `422 validation_error` naming it), or forgets
 * it with `default`. An environment variable of the same name still wins; the answer says so.
 * Returns the setting's current name (an old name is accepted).
 */
export async function writeApplianceSetting(db: Database, name: string, raw: string): Promise<SettingName> {
  const setting = settingNamed(name);
  if (!setting) {
    throw new AppError('validation_error', `There is no setting ${name}; the settings are ${SETTING_NAMES.join(', ')}.`, {
      details: [{ path: 'name', message: `One of ${SETTING_NAMES.join(', ')}.` }],
    });
  }
  if (raw.trim().toLowerCase() === RESET_VALUE) {
    await db.sequelize.transaction((transaction) => db.models.AppSetting.destroy({ where: { key: storedKey(setting) }, transaction }));
    return setting;
  }
  const value = PARSERS[setting](raw);
  await db.sequelize.transaction((transaction) => db.models.AppSetting.upsert({ key: storedKey(setting), value, updated_at: new Date() }, { transaction }));
  return setting;
}
