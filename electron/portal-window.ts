import type { Logger } from '../server/logger.js';
import { versionArgument } from './bridge.js';
import type { ElectronApi, ShellWindow } from './electron-api.js';
import { loadingPageUrl, type StartStatus } from './loading-page.js';
import { installNavigationGuards, portalWebPreferences } from './security.js';

export interface PortalWindow {
  window: ShellWindow;
  /** Shows start-up progress or a failure in the window (a local page; no server needed). */
  showStatus(status: StartStatus): Promise<void>;
  /** Loads the portal from `origin`; settles once it has loaded (true) or failed to (false, logged). */
  openPortal(origin: string): Promise<boolean>;
  /** The portal's origin once opened; navigation is locked to it. */
  origin(): string | null;
  /** Shows the window in front, restored if minimized. */
  show(): void;
}

/** Before the portal is known, navigation may go nowhere: no origin matches this. */
const NO_ORIGIN = 'http://0.0.0.0:0';

/**
 * The portal window: created before the server starts so it shows the start-up steps instead of
 * a blank window, then locked to the portal's origin; closing it hides it unless the app is
 * quitting, so the server keeps answering the LMS from the tray.
 */
export function createPortalWindow(electron: ElectronApi, options: { preloadPath: string; isQuitting: () => boolean; log: Logger }): PortalWindow {
  const { log } = options;
  let origin: string | null = null;
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
  installNavigationGuards(
    window.webContents,
    () => origin ?? NO_ORIGIN,
    (url) => {
      electron.shell.openExternal(url).catch((error: unknown) => log.warn({ err: error }, 'the system browser could not open a link'));
    },
  );
  window.on('close', (event) => {
    if (options.isQuitting()) return;
    event.preventDefault();
    window.hide();
  });
  return {
    window,
    showStatus: async (status) => {
      if (window.isDestroyed()) return;
      await window.loadURL(loadingPageUrl(status)).catch((error: unknown) => log.warn({ err: error }, 'the start-up page did not load'));
    },
    openPortal: (portalOrigin) => {
      origin = portalOrigin;
      return window.loadURL(`${portalOrigin}/`).then(
        () => true,
        (error: unknown) => {
          log.error({ err: error }, 'the portal page did not load');
          return false;
        },
      );
    },
    origin: () => origin,
    show: () => {
      if (window.isDestroyed()) return;
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
    },
  };
}
