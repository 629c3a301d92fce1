import type { BrowserWindowConstructorOptions, MessageBoxOptions } from 'electron';

// The parts of Electron the shell uses, as interfaces. main.ts passes the real `electron` module,
// so tsc proves the module fits; the tests pass fakes, because Electron's binary cannot be
// downloaded on the machines that run them.

export interface PreventableEvent {
  preventDefault(): void;
}

export interface NavigationEvent extends PreventableEvent {
  readonly url: string;
}

export interface WindowOpenDetails {
  readonly url: string;
}

export interface PermissionDetails {
  readonly requestingUrl: string;
}

export interface GuardedSession {
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void, details: PermissionDetails) => void): void;
}

/** What the navigation guards need of a `WebContents`. */
export interface GuardedContents {
  readonly session: GuardedSession;
  on(event: 'will-navigate', listener: (event: NavigationEvent) => void): unknown;
  on(event: 'will-redirect', listener: (event: NavigationEvent) => void): unknown;
  on(event: 'did-create-window', listener: (window: { readonly webContents: GuardedContents }) => void): unknown;
  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: 'allow' | 'deny' }): void;
}

export interface ShellWindow {
  readonly webContents: GuardedContents;
  loadURL(url: string): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'close', listener: (event: PreventableEvent) => void): unknown;
}

/** An item of the tray menu; a subset of Electron's `MenuItemConstructorOptions`. */
export type TrayMenuItem =
  { type: 'separator' } | { type: 'normal'; label: string; click: () => void } | { type: 'checkbox'; label: string; checked: boolean; click: () => void };

/** A built menu is only handed back to the tray. */
export type ShellMenu = object;

export interface ShellTray {
  setToolTip(text: string): void;
  setContextMenu(menu: ShellMenu | null): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

export interface LoginItemQuery {
  args?: string[];
}

export interface ShellApp {
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<void>;
  getPath(name: 'userData'): string;
  getVersion(): string;
  getLoginItemSettings(options?: LoginItemQuery): { openAtLogin: boolean; wasOpenedAtLogin?: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
  quit(): void;
  exit(exitCode?: number): void;
  on(event: 'second-instance', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'activate', listener: () => void): unknown;
}

export interface SafeStorageApi {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only. */
  getSelectedStorageBackend(): string;
}

export interface InvokeEvent {
  readonly senderFrame: { readonly url: string } | null;
}

export interface ElectronApi {
  app: ShellApp;
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => ShellWindow;
  Tray: new (image: string) => ShellTray;
  Menu: { buildFromTemplate(template: TrayMenuItem[]): ShellMenu };
  ipcMain: { handle(channel: string, listener: (event: InvokeEvent) => unknown): void };
  shell: { openExternal(url: string): Promise<void> };
  clipboard: { writeText(text: string): void };
  safeStorage: SafeStorageApi;
  dialog: {
    /** Blocks the main process (and so the server in it): only for failures that end the app. */
    showErrorBox(title: string, content: string): void;
    showMessageBox(options: MessageBoxOptions): Promise<unknown>;
  };
}
