import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShellApp } from './electron-api.js';

/** Started at login, the app stays in the tray until someone opens the portal. */
export const HIDDEN_ARG = '--hidden';

export interface LoginItem {
  isEnabled(): boolean;
  setEnabled(enabled: boolean): void;
}

/** Windows and macOS: Electron registers the app itself. */
export function electronLoginItem(app: ShellApp): LoginItem {
  // Windows matches the registered entry by its arguments, so the query repeats them.
  const args = [HIDDEN_ARG];
  return {
    isEnabled: () => app.getLoginItemSettings({ args }).openAtLogin,
    setEnabled: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, args }),
  };
}

/** Quotes one Exec argument as the Desktop Entry specification asks. */
export function desktopExecArgument(arg: string): string {
  const quoted = /^[\w@+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
  // The entry's string escaping applies on top of the Exec quoting; % starts a field code.
  return quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%');
}

/**
 * Linux, where Electron has no login-item API: an XDG autostart entry. `executable` is what to
 * run (`$APPIMAGE` for an AppImage, whose mount point changes on every start).
 */
export function xdgAutostartLoginItem(options: { configHome: string; executable: string; name: string; fileName: string }): LoginItem {
  const file = path.join(options.configHome, 'autostart', options.fileName);
  return {
    isEnabled: () => fs.existsSync(file),
    setEnabled: (enabled) => {
      if (!enabled) {
        fs.rmSync(file, { force: true });
        return;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const entry = [
        '[Desktop Entry]',
        'Type=Application',
        `Name=${options.name}`,
        `Exec=${[options.executable, HIDDEN_ARG].map(desktopExecArgument).join(' ')}`,
        'Terminal=false',
        'X-GNOME-Autostart-enabled=true',
        '',
      ].join('\n');
      fs.writeFileSync(file, entry);
    },
  };
}

export function loginItemFor(app: ShellApp, platform: NodeJS.Platform, env: NodeJS.ProcessEnv, execPath: string): LoginItem {
  if (platform === 'win32' || platform === 'darwin') return electronLoginItem(app);
  return xdgAutostartLoginItem({
    configHome: env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'),
    executable: env.APPIMAGE || execPath,
    name: 'CampusBridge',
    fileName: 'org.campusbridge.appliance.desktop',
  });
}

/** Whether this start came from the login item, so the window stays hidden. */
export function startedAtLogin(app: ShellApp, platform: NodeJS.Platform, argv: readonly string[]): boolean {
  if (argv.includes(HIDDEN_ARG)) return true;
  return platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true;
}
