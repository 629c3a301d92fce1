import path from 'node:path';
import { startAppliance, type Appliance } from '../server/appliance.js';
import { ConfigError, loadConfig, type Config } from '../server/config.js';
import { masterKeyFile } from '../server/crypto/master-key.js';
import { createLogger, type Logger } from '../server/logger.js';
import { localOrigin, ReadyTimeoutError, startOnFreePort, withTimeout, type PortFallback, type StartFunction } from './appliance-start.js';
import { COPY_API_BASE_URL_CHANNEL } from './bridge.js';
import type { ElectronApi, ShellTray, ShellWindow } from './electron-api.js';
import { loginItemFor, startedAtLogin, type LoginItem } from './login-item.js';
import { pickMasterKeyStore } from './master-key-store.js';
import { createPortalWindow } from './portal-window.js';
import { decideNavigation } from './security.js';
import { createTray } from './tray.js';

export interface ShellOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  argv: readonly string[];
  execPath: string;
  /** The bundled preload script (dist/electron/preload.cjs). */
  preloadPath: string;
  trayIconPath: string;
  /** How long the server may take to be ready (migrations included) before the app gives up. */
  readyTimeoutMs?: number;
  /** How long quitting waits for the server to stop before exiting anyway. */
  stopTimeoutMs?: number;
  /** Ports after the configured one to try before taking any free port. */
  nextPorts?: number;
  start?: StartFunction;
  logger?: Logger;
  loginItem?: LoginItem;
}

export interface RunningShell {
  appliance: Appliance;
  /** Where this computer reaches the portal, e.g. `http://127.0.0.1:4780`. */
  origin: string;
  /** `<origin>/v1`, what the local LMS is configured with. */
  apiBaseUrl: string;
  /** Set when the configured port was taken and another one is in use. */
  fallback: PortFallback | null;
  window: ShellWindow;
  tray: ShellTray;
  openPortal(): void;
  /** Settles once a quit has stopped the server and exited the app; null until a quit is asked for. */
  quitting(): Promise<void> | null;
}

export type ShellOutcome =
  | { status: 'second-instance' }
  | { status: 'failed'; error: Error }
  /** A quit arrived during start-up; the server is being stopped. */
  | { status: 'quitting' }
  | { status: 'running'; shell: RunningShell };

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const NEXT_PORTS = 4;

function portFallbackNotice(fallback: PortFallback, apiBaseUrl: string): { message: string; detail: string } {
  return {
    message: `Port ${fallback.requested} is in use by another program, so CampusBridge is using port ${fallback.used}.`,
    detail: `Systems on this computer reach the API at ${apiBaseUrl} until port ${fallback.requested} is free and CampusBridge restarts.`,
  };
}

function describeStartFailure(error: Error, config: Config | null): string {
  const where = config ? `\n\nData folder: ${config.dataDir}` : '';
  if (error instanceof ReadyTimeoutError) return `The server was not ready after ${error.timeoutMs / 1000} s.${where}`;
  if (error instanceof ConfigError) return `The settings in the environment are not valid: ${error.message}`;
  return `${error.message}${where}`;
}

/**
 * The desktop app, in order: single-instance lock → data folder (userData) → server ready (with a
 * timeout, on a free port) → portal window → tray. Quitting stops the server before the app exits.
 */
export async function runShell(electron: ElectronApi, options: ShellOptions): Promise<ShellOutcome> {
  const { app } = electron;
  if (!app.requestSingleInstanceLock()) {
    // The running instance hears `second-instance` and shows its window.
    app.quit();
    return { status: 'second-instance' };
  }

  let running: RunningShell | null = null;
  let starting: Promise<Appliance> | null = null;
  let quitting: Promise<void> | null = null;
  let logger: Logger | null = options.logger ?? null;
  let exited = false;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    app.exit(code);
  };

  const stopAndExit = async () => {
    let code = 0;
    try {
      // A quit during start-up waits for the server to come up, so it can be stopped cleanly.
      const appliance = await starting?.catch(() => null);
      if (appliance) {
        await withTimeout(appliance.stop(), options.stopTimeoutMs ?? STOP_TIMEOUT_MS, () => new Error('the server did not stop in time'));
      }
    } catch (error) {
      logger?.error({ err: error }, 'stopping failed');
      code = 1;
    }
    running?.tray.destroy();
    exit(code);
  };

  app.on('second-instance', () => running?.openPortal());
  app.on('activate', () => running?.openPortal());
  app.on('before-quit', (event) => {
    // Electron would end the process now; instead the server stops first and stopAndExit exits.
    event.preventDefault();
    quitting ??= stopAndExit();
  });

  await app.whenReady();
  const dataDir = app.getPath('userData');
  let config: Config | null = null;
  let started: { appliance: Appliance; fallback: PortFallback | null };
  try {
    config = loadConfig(options.env, { dataDir });
    const log = (logger ??= createLogger(config.logLevel));
    const masterKeyStore = pickMasterKeyStore(masterKeyFile(path.dirname(config.databaseFile)), electron.safeStorage, options.platform);
    const start = startOnFreePort(options.start ?? startAppliance, { config, logger: log, masterKeyStore }, options.nextPorts ?? NEXT_PORTS, (port) =>
      log.warn({ port }, `port ${port} is in use by another program; trying the next one`),
    );
    starting = start.then((result) => result.appliance);
    const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
    started = await withTimeout(start, readyTimeoutMs, () => new ReadyTimeoutError(readyTimeoutMs));
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    logger?.error({ err: error }, 'CampusBridge could not start');
    electron.dialog.showErrorBox('CampusBridge could not start', describeStartFailure(error, config));
    exit(1);
    return { status: 'failed', error };
  }

  if (quitting) return { status: 'quitting' };
  const log = logger ?? createLogger(config.logLevel);
  const { appliance, fallback } = started;
  const origin = localOrigin(config.host, appliance.port);
  const apiBaseUrl = `${origin}/v1`;
  log.info({ origin, dataDir: config.dataDir }, `CampusBridge listening on ${origin} (API ${apiBaseUrl})`);
  const notice = fallback && portFallbackNotice(fallback, apiBaseUrl);
  if (fallback && notice) log.warn({ requested: fallback.requested, port: fallback.used }, notice.message);

  const portal = createPortalWindow(electron, { origin, preloadPath: options.preloadPath, isQuitting: () => quitting !== null, log });
  const copyApiBaseUrl = () => {
    electron.clipboard.writeText(apiBaseUrl);
    return apiBaseUrl;
  };
  const tray = createTray(electron, {
    iconPath: options.trayIconPath,
    toolTip: `CampusBridge: API at ${apiBaseUrl}${fallback ? ` (port ${fallback.requested} was in use)` : ''}`,
    loginItem: options.loginItem ?? loginItemFor(app, options.platform, options.env, options.execPath),
    log,
    openPortal: portal.show,
    copyApiBaseUrl,
    quit: () => app.quit(),
  });
  electron.ipcMain.handle(COPY_API_BASE_URL_CHANNEL, (event) => {
    if (decideNavigation(event.senderFrame?.url ?? '', origin) !== 'allow') throw new Error('only the portal may use the desktop bridge');
    return copyApiBaseUrl();
  });
  running = { appliance, origin, apiBaseUrl, fallback, window: portal.window, tray, openPortal: portal.show, quitting: () => quitting };

  await portal.loaded;
  if (!startedAtLogin(app, options.platform, options.argv)) portal.show();
  // Last and awaited: the server already answers while the message waits for someone to read it.
  if (notice) await electron.dialog.showMessageBox({ type: 'warning', title: 'CampusBridge', buttons: ['OK'], ...notice });
  return { status: 'running', shell: running };
}

/**
 * The entry's way in. Electron emits `ready` only after the entry module has finished
 * evaluating, so main.ts must not await a shell that waits for `ready`; the shell's promise is
 * settled here instead: an unexpected failure ends the app with a message.
 */
export function launchShell(electron: ElectronApi, options: ShellOptions): Promise<void> {
  return runShell(electron, options).then(
    () => undefined,
    (error: unknown) => {
      electron.dialog.showErrorBox('CampusBridge stopped', error instanceof Error ? (error.stack ?? error.message) : String(error));
      electron.app.exit(1);
    },
  );
}
