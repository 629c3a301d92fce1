import type { Logger } from '../server/logger.js';
import { versionArgument } from './bridge.js';
import type { ElectronApi, ShellWindow } from './electron-api.js';
import { installNavigationGuards, portalWebPreferences } from './security.js';

export interface PortalWindow {
  window: ShellWindow;
  /** Settles once the portal page has loaded (true) or failed to (false, logged). */
  loaded: Promise<boolean>;
  /** Shows the window in front, restored if minimized. */
  show(): void;
}

/**
 * The portal window: locked to the portal's origin, hidden until shown; closing it hides it
 * unless the app is quitting, so the server keeps answering the LMS from the tray.
 */
export function createPortalWindow(
  electron: ElectronApi,
  options: { origin: string; preloadPath: string; isQuitting: () => boolean; log: Logger },
): PortalWindow {
  const { origin, log } = options;
  const window = new electron.BrowserWindow({
    title: 'CampusBridge',
    width: 1280,
    height: 860,
    minWidth: 800,
    minHeight: 600,
    show: false,
    autoHideMenuBar: true,
    webPreferences: portalWebPreferences(options.preloadPath, [versionArgument(electron.app.getVersion())]),
  });
  installNavigationGuards(window.webContents, origin, (url) => {
    electron.shell.openExternal(url).catch((error: unknown) => log.warn({ err: error }, 'the system browser could not open a link'));
  });
  window.on('close', (event) => {
    if (options.isQuitting()) return;
    event.preventDefault();
    window.hide();
  });
  const loaded = window.loadURL(`${origin}/`).then(
    () => true,
    (error: unknown) => {
      log.error({ err: error }, 'the portal page did not load');
      return false;
    },
  );
  return {
    window,
    loaded,
    show: () => {
      if (window.isDestroyed()) return;
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    },
  };
}
