import path from 'node:path';
import { startAppliance, type Appliance } from '../server/appliance.js';
import { loadConfig, type Config } from '../server/config.js';
import { masterKeyFile } from '../server/crypto/master-key.js';
import { createLogger, type Logger } from '../server/logger.js';
import { localOrigin, ReadyTimeoutError, startOnFreePort, withTimeout, type PortFallback } from './appliance-start.js';
import { COPY_API_BASE_URL_CHANNEL } from './bridge.js';
import type { ElectronApi } from './electron-api.js';
import { loginItemFor, startedAtLogin } from './login-item.js';
import { pickMasterKeyStore } from './master-key-store.js';
import { createPortalWindow } from './portal-window.js';
import { hostFor, networkModeOf, readPreferences, writePreferences, type NetworkMode } from './preferences.js';
import { decideNavigation } from './security.js';
import { describeStartFailure, portFallbackNotice } from './start-messages.js';
import { createTray } from './tray.js';
import type { RunningShell, ShellOptions, ShellOutcome } from './shell-types.js';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const NEXT_PORTS = 4;

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
  let switching: Promise<void> | null = null;
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
      // A quit during start-up (or a network switch) waits for the server to come up, so it can be stopped cleanly.
      await switching?.catch(() => undefined);
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
  let config: Config;
  let networkMode: NetworkMode;
  try {
    // The tray's network choice (desktop-preferences.json in the data folder) sets HOST.
    networkMode = networkModeOf(readPreferences(dataDir), options.env.HOST);
    // The desktop is one whole appliance: a ROLE left in the environment never splits it.
    config = loadConfig({ ...options.env, HOST: hostFor(networkMode), ROLE: 'all' }, { dataDir });
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    logger?.error({ err: error }, 'CampusBridge could not start');
    electron.dialog.showErrorBox('CampusBridge could not start', describeStartFailure(error, null));
    exit(1);
    return { status: 'failed', error };
  }
  const log = (logger ??= createLogger(config.logLevel));

  // The window comes first and tells what is happening, instead of staying blank until the server is up.
  const portal = createPortalWindow(electron, { preloadPath: options.preloadPath, isQuitting: () => quitting !== null, log });
  const visible = !startedAtLogin(app, options.platform, options.argv);
  if (visible) portal.show();
  await portal.showStatus({ step: 'starting' });

  const masterKeyStore = pickMasterKeyStore(masterKeyFile(path.dirname(config.databaseFile)), electron.safeStorage, options.platform);
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const startOn = (startConfig: Config) => {
    const start = startOnFreePort(
      options.start ?? startAppliance,
      {
        config: startConfig,
        logger: log,
        masterKeyStore,
        onProgress: (step) => void portal.showStatus({ step }),
        // The portal's restore asks for it: stop, apply the pending restore at start, same port.
        onRestartRequested: () => void restartInPlace(),
      },
      options.nextPorts ?? NEXT_PORTS,
      (port) => log.warn({ port }, `port ${port} is in use by another program; trying the next one`),
    );
    starting = start.then((result) => result.appliance);
    // Its failure is handled by whoever awaits the start; this copy only serves a quit.
    starting.catch(() => undefined);
    return withTimeout(start, readyTimeoutMs, () => new ReadyTimeoutError(readyTimeoutMs));
  };

  let started: { appliance: Appliance; fallback: PortFallback | null };
  try {
    started = await startOn(config);
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    log.error({ err: error }, 'CampusBridge could not start');
    await portal.showStatus({ step: 'failed', message: describeStartFailure(error, config) });
    electron.dialog.showErrorBox('CampusBridge could not start', describeStartFailure(error, config));
    exit(1);
    return { status: 'failed', error };
  }

  if (quitting) return { status: 'quitting' };
  let appliance = started.appliance;
  const { fallback } = started;
  const addresses = () => {
    const origin = localOrigin(config.host, appliance.port);
    return { origin, apiBaseUrl: `${origin}/v1` };
  };
  const announce = () => {
    const { origin, apiBaseUrl } = addresses();
    log.info({ origin, dataDir: config.dataDir, network: networkMode }, `CampusBridge listening on ${origin} (API ${apiBaseUrl})`);
  };
  announce();
  const notice = fallback && portFallbackNotice(fallback, addresses().apiBaseUrl);
  if (fallback && notice) log.warn({ requested: fallback.requested, port: fallback.used }, notice.message);

  const toolTip = () =>
    `CampusBridge: API at ${addresses().apiBaseUrl}${networkMode === 'campus' ? ', reachable from the campus network' : ''}${fallback ? ` (port ${fallback.requested} was in use)` : ''}`;
  const copyApiBaseUrl = () => {
    const { apiBaseUrl } = addresses();
    electron.clipboard.writeText(apiBaseUrl);
    return apiBaseUrl;
  };

  /** Stops the server and starts it again where it was (after a restore chosen in the portal). */
  const restartInPlace = (): Promise<void> =>
    (switching ??= (async () => {
      if (quitting) return;
      await portal.showStatus({ step: 'restarting' });
      await appliance.stop();
      config = { ...config, port: appliance.port };
      try {
        appliance = (await startOn(config)).appliance;
      } catch (error) {
        log.error({ err: error }, 'the server could not start again after a restart');
        electron.dialog.showErrorBox('CampusBridge stopped', describeStartFailure(error instanceof Error ? error : new Error(String(error)), config));
        exit(1);
        return;
      }
      announce();
      await portal.openPortal(addresses().origin);
      trayHandle.refresh(toolTip());
    })().finally(() => {
      switching = null;
    }));

  const setNetworkMode = (mode: NetworkMode): Promise<void> =>
    (switching ??= switchNetworkMode(mode).finally(() => {
      switching = null;
    }));
  // Stops the server and starts it again on the other address, on the same port; the portal reloads.
  const switchNetworkMode = async (mode: NetworkMode) => {
    if (mode === networkMode || quitting) return;
    try {
      writePreferences(dataDir, { network: mode });
    } catch (error) {
      log.error({ err: error }, 'the network setting could not be saved');
      await electron.dialog.showMessageBox({ type: 'error', title: 'CampusBridge', buttons: ['OK'], message: 'The network setting could not be saved.' });
      return;
    }
    const previous = { host: config.host, mode: networkMode };
    await portal.showStatus({ step: 'restarting' });
    await appliance.stop();
    config = { ...config, host: hostFor(mode), port: appliance.port };
    networkMode = mode;
    try {
      appliance = (await startOn(config)).appliance;
    } catch (error) {
      // Back on the address that worked, so the LMS keeps its server.
      log.error({ err: error }, `the server could not restart for the ${mode} network setting`);
      config = { ...config, host: previous.host };
      networkMode = previous.mode;
      writePreferences(dataDir, { network: previous.mode });
      try {
        appliance = (await startOn(config)).appliance;
      } catch (again) {
        log.error({ err: again }, 'the server could not start again on the previous network setting');
        electron.dialog.showErrorBox('CampusBridge stopped', describeStartFailure(again instanceof Error ? again : new Error(String(again)), config));
        exit(1);
        return;
      }
      await electron.dialog.showMessageBox({
        type: 'error',
        title: 'CampusBridge',
        buttons: ['OK'],
        message: 'CampusBridge could not switch networks and is back on the previous setting.',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
    announce();
    await portal.openPortal(addresses().origin);
    trayHandle.refresh(toolTip());
  };

  const portalLoaded = portal.openPortal(addresses().origin);
  const trayHandle = createTray(electron, {
    iconPath: options.trayIconPath,
    toolTip: toolTip(),
    loginItem: options.loginItem ?? loginItemFor(app, options.platform, options.env, options.execPath),
    log,
    openPortal: portal.show,
    copyApiBaseUrl,
    networkMode: () => networkMode,
    setNetworkMode,
    quit: () => app.quit(),
  });
  electron.ipcMain.handle(COPY_API_BASE_URL_CHANNEL, (event) => {
    if (decideNavigation(event.senderFrame?.url ?? '', addresses().origin) !== 'allow') throw new Error('only the portal may use the desktop bridge');
    return copyApiBaseUrl();
  });
  running = {
    get appliance() {
      return appliance;
    },
    get origin() {
      return addresses().origin;
    },
    get apiBaseUrl() {
      return addresses().apiBaseUrl;
    },
    fallback,
    window: portal.window,
    tray: trayHandle.tray,
    openPortal: portal.show,
    networkMode: () => networkMode,
    setNetworkMode,
    quitting: () => quitting,
  };

  await portalLoaded;
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
