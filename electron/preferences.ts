import fs from 'node:fs';
import path from 'node:path';

/**
 * Who can reach the desktop appliance: `local` listens on 127.0.0.1 (this computer only), `campus`
 * on 0.0.0.0 (this computer and the campus network: an LMS on another machine, students' devices).
 */
export type NetworkMode = 'local' | 'campus';

export interface ShellPreferences {
  network: NetworkMode;
}

export const PREFERENCES_FILE = 'desktop-preferences.json';

export const hostFor = (mode: NetworkMode): string => (mode === 'campus' ? '0.0.0.0' : '127.0.0.1');

/** The shell's own settings, kept in the data folder beside the database; absent or unreadable means none chosen. */
export function readPreferences(dataDir: string): Partial<ShellPreferences> {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, PREFERENCES_FILE), 'utf8')) as Record<string, unknown>;
    return parsed.network === 'local' || parsed.network === 'campus' ? { network: parsed.network } : {};
  } catch {
    return {};
  }
}

/** Written to a temporary file first, then renamed, so a crash never leaves half a file. */
export function writePreferences(dataDir: string, preferences: ShellPreferences): void {
  const file = path.join(dataDir, PREFERENCES_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(preferences, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * The address the embedded server listens on: the mode chosen in the tray wins; without one, the
 * HOST environment variable, else this computer only.
 */
export function networkModeOf(preferences: Partial<ShellPreferences>, envHost: string | undefined): NetworkMode {
  if (preferences.network) return preferences.network;
  return envHost === '0.0.0.0' || envHost === '::' ? 'campus' : 'local';
}
