import type { Logger } from '../server/logger.js';
import type { ElectronApi, ShellTray, TrayMenuItem } from './electron-api.js';
import type { LoginItem } from './login-item.js';

export interface TrayActions {
  openPortal(): void;
  copyApiBaseUrl(): void;
  startsAtLogin: boolean;
  setStartAtLogin(enabled: boolean): void;
  quit(): void;
}

/** The tray menu; rebuilt after the login item changes, so the checkbox shows the system's answer. */
export function trayMenu(actions: TrayActions): TrayMenuItem[] {
  return [
    { type: 'normal', label: 'Open portal', click: actions.openPortal },
    { type: 'normal', label: 'Copy API base URL', click: actions.copyApiBaseUrl },
    { type: 'separator' },
    { type: 'checkbox', label: 'Start at login', checked: actions.startsAtLogin, click: () => actions.setStartAtLogin(!actions.startsAtLogin) },
    { type: 'separator' },
    { type: 'normal', label: 'Quit CampusBridge', click: actions.quit },
  ];
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
    quit(): void;
  },
): ShellTray {
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
    });
    tray.setContextMenu(electron.Menu.buildFromTemplate(menu));
  };
  setMenu();
  tray.on('click', options.openPortal);
  return tray;
}
