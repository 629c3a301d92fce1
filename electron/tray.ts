import type { Logger } from '../server/logger.js';
import type { ElectronApi, ShellTray, TrayMenuItem } from './electron-api.js';
import type { LoginItem } from './login-item.js';
import type { NetworkMode } from './preferences.js';

export const CAMPUS_NETWORK_LABEL = 'Reachable from the campus network';

export interface TrayActions {
  openPortal(): void;
  copyApiBaseUrl(): void;
  startsAtLogin: boolean;
  setStartAtLogin(enabled: boolean): void;
  /** `campus`: this computer and the campus network; `local`: this computer only. */
  networkMode: NetworkMode;
  setNetworkMode(mode: NetworkMode): void;
  quit(): void;
}

/** The tray menu; rebuilt after a checkbox changes, so it shows the system's (or the server's) answer. */
export function trayMenu(actions: TrayActions): TrayMenuItem[] {
  const campus = actions.networkMode === 'campus';
  return [
    { type: 'normal', label: 'Open portal', click: actions.openPortal },
    { type: 'normal', label: 'Copy API base URL', click: actions.copyApiBaseUrl },
    { type: 'separator' },
    { type: 'checkbox', label: 'Start at login', checked: actions.startsAtLogin, click: () => actions.setStartAtLogin(!actions.startsAtLogin) },
    { type: 'checkbox', label: CAMPUS_NETWORK_LABEL, checked: campus, click: () => actions.setNetworkMode(campus ? 'local' : 'campus') },
    { type: 'separator' },
    { type: 'normal', label: 'Quit CampusBridge', click: actions.quit },
  ];
}

export interface ShellTrayHandle {
  tray: ShellTray;
  /** Rebuilds the menu and sets the tooltip (after the server restarted on another address). */
  refresh(toolTip: string): void;
}

/** The tray icon with its menu; a click on the icon opens the portal. */
export function createTray(
  electron: ElectronApi,
  options: {
    iconPath: string;
    toolTip: string;
    loginItem: LoginItem;
    log: Logger;
    openPortal(): void;
    copyApiBaseUrl(): void;
    networkMode(): NetworkMode;
    /** Applies a network mode (restarting the server); the menu is rebuilt once it settles. */
    setNetworkMode(mode: NetworkMode): Promise<void>;
    quit(): void;
  },
): ShellTrayHandle {
  const tray = new electron.Tray(options.iconPath);
  tray.setToolTip(options.toolTip);
  const setMenu = () => {
    const menu = trayMenu({
      openPortal: options.openPortal,
      copyApiBaseUrl: options.copyApiBaseUrl,
      quit: options.quit,
      startsAtLogin: options.loginItem.isEnabled(),
      setStartAtLogin: (enabled) => {
        try {
          options.loginItem.setEnabled(enabled);
        } catch (error) {
          options.log.error({ err: error }, 'the start-at-login setting could not be changed');
        }
        setMenu();
      },
      networkMode: options.networkMode(),
      setNetworkMode: (mode) => {
        void options
          .setNetworkMode(mode)
          .catch((error: unknown) => options.log.error({ err: error }, 'the network setting could not be applied'))
          .finally(setMenu);
      },
    });
    tray.setContextMenu(electron.Menu.buildFromTemplate(menu));
  };
  setMenu();
  tray.on('click', options.openPortal);
  return {
    tray,
    refresh: (toolTip) => {
      tray.setToolTip(toolTip);
      setMenu();
    },
  };
}
