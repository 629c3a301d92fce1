import type { Appliance } from '../server/appliance.js';
import type { Logger } from '../server/logger.js';
import type { PortFallback, StartFunction } from './appliance-start.js';
import type { ShellTray, ShellWindow } from './electron-api.js';
import type { LoginItem } from './login-item.js';
import type { NetworkMode } from './preferences.js';

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
  /** The embedded server; a new one after the network mode changed. */
  readonly appliance: Appliance;
  /** Where this computer reaches the portal, e.g. `http://127.0.0.1:4780`. */
  readonly origin: string;
  /** `<origin>/v1`, what the local LMS is configured with. */
  readonly apiBaseUrl: string;
  /** Set when the configured port was taken and another one is in use. */
  fallback: PortFallback | null;
  window: ShellWindow;
  tray: ShellTray;
  openPortal(): void;
  networkMode(): NetworkMode;
  /** Stores the mode in the data folder and restarts the server on its address; settles once the portal is back. */
  setNetworkMode(mode: NetworkMode): Promise<void>;
  /** Settles once a quit has stopped the server and exited the app; null until a quit is asked for. */
  quitting(): Promise<void> | null;
}

export type ShellOutcome =
  | { status: 'second-instance' }
  | { status: 'failed'; error: Error }
  /** A quit arrived during start-up; the server is being stopped. */
  | { status: 'quitting' }
  | { status: 'running'; shell: RunningShell };
