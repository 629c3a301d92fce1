// Stand-ins for the Electron API, recording what the shell does with them. Electron's binary cannot
// be downloaded where the tests run, so the shell takes its Electron API as an interface.
import type { BrowserWindowConstructorOptions, MessageBoxOptions } from 'electron';
import type {
  ElectronApi,
  GuardedContents,
  InvokeEvent,
  PermissionDetails,
  SafeStorageApi,
  ShellApp,
  ShellTray,
  ShellWindow,
  TrayMenuItem,
  WindowOpenDetails,
} from '../electron-api.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one emitter for every Electron event signature
type Listener = (...args: any[]) => unknown;

class Emitter {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

export class FakeEvent {
  defaultPrevented = false;
  constructor(readonly url = '') {}
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

/** What the operating system does for `requestSingleInstanceLock`, shared by the fake apps of one test. */
export class FakeInstanceLock {
  private holder: FakeApp | null = null;

  request(app: FakeApp): boolean {
    if (this.holder && this.holder !== app) {
      this.holder.emit('second-instance', new FakeEvent(), [], '');
      return false;
    }
    this.holder = app;
    return true;
  }
}

export class FakeApp extends Emitter implements ShellApp {
  readonly exitCodes: number[] = [];
  quitCalls = 0;
  /** Set when a quit was not prevented: Electron would have ended the process without stopping anything. */
  quitUnprevented = false;
  loginItemSettings = { openAtLogin: false, wasOpenedAtLogin: false };

  constructor(
    private readonly userData: string,
    private readonly lock: FakeInstanceLock,
    private readonly calls: string[],
  ) {
    super();
  }

  requestSingleInstanceLock(): boolean {
    this.calls.push('lock');
    return this.lock.request(this);
  }

  async whenReady(): Promise<void> {
    this.calls.push('ready');
  }

  getPath(name: 'userData'): string {
    this.calls.push(`getPath:${name}`);
    return this.userData;
  }

  getVersion(): string {
    return '9.8.7';
  }

  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin?: boolean } {
    return { ...this.loginItemSettings };
  }

  setLoginItemSettings(settings: { openAtLogin: boolean }): void {
    this.loginItemSettings.openAtLogin = settings.openAtLogin;
  }

  quit(): void {
    this.quitCalls++;
    const event = new FakeEvent();
    this.emit('before-quit', event);
    if (!event.defaultPrevented) this.quitUnprevented = true;
  }

  exit(code = 0): void {
    this.calls.push(`exit:${code}`);
    this.exitCodes.push(code);
  }
}

export class FakeSession {
  permissionHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void, details: PermissionDetails) => void) | null = null;

  setPermissionRequestHandler(handler: NonNullable<FakeSession['permissionHandler']>): void {
    this.permissionHandler = handler;
  }

  /** Asks the installed handler, as Chromium would. */
  request(permission: string, requestingUrl: string): boolean {
    let granted = false;
    this.permissionHandler?.(null, permission, (answer) => (granted = answer), { requestingUrl });
    return granted;
  }
}

export class FakeWebContents extends Emitter implements GuardedContents {
  readonly session = new FakeSession();
  windowOpenHandler: ((details: WindowOpenDetails) => { action: 'allow' | 'deny' }) | null = null;

  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = handler;
  }

  /** A link click or `location` change; returns whether the page may go there. */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    const navigation = new FakeEvent(url);
    this.emit(event, navigation);
    return !navigation.defaultPrevented;
  }

  /** `window.open(url)`; returns whether a window may open. */
  open(url: string): boolean {
    return this.windowOpenHandler?.({ url }).action === 'allow';
  }
}

export class FakeWindow extends Emitter implements ShellWindow {
  readonly webContents = new FakeWebContents();
  readonly loadedUrls: string[] = [];
  visible = false;
  minimized = false;
  destroyed = false;
  focusCount = 0;

  constructor(
    readonly options: BrowserWindowConstructorOptions,
    private readonly calls: string[],
  ) {
    super();
    calls.push('window');
  }

  async loadURL(url: string): Promise<void> {
    this.calls.push('load');
    this.loadedUrls.push(url);
  }

  show(): void {
    this.visible = true;
  }

  hide(): void {
    this.visible = false;
  }

  focus(): void {
    this.focusCount++;
  }

  restore(): void {
    this.minimized = false;
  }

  isMinimized(): boolean {
    return this.minimized;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /** The window's close button. */
  close(): void {
    const event = new FakeEvent();
    this.emit('close', event);
    if (!event.defaultPrevented) this.destroyed = true;
  }
}

export interface FakeMenu {
  template: TrayMenuItem[];
}

export class FakeTray extends Emitter implements ShellTray {
  toolTip = '';
  menu: FakeMenu | null = null;
  destroyed = false;

  constructor(
    readonly image: string,
    calls: string[],
  ) {
    super();
    calls.push('tray');
  }

  setToolTip(text: string): void {
    this.toolTip = text;
  }

  setContextMenu(menu: object | null): void {
    this.menu = menu as FakeMenu | null;
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** Clicks the menu item with this label. */
  click(label: string): void {
    const item = this.menu?.template.find((entry) => 'label' in entry && entry.label === label);
    if (!item || !('click' in item)) throw new Error(`no tray menu item "${label}"`);
    item.click();
  }

  item(label: string): TrayMenuItem | undefined {
    return this.menu?.template.find((entry) => 'label' in entry && entry.label === label);
  }
}

/** Reversible stand-in for the keychain: a prefix and XOR, so a sealed file visibly differs from the plain one. */
export class FakeSafeStorage implements SafeStorageApi {
  constructor(
    public available = true,
    public backend = 'gnome_libsecret',
  ) {}

  isEncryptionAvailable(): boolean {
    return this.available;
  }

  encryptString(plainText: string): Buffer {
    if (!this.available) throw new Error('Encryption is not available.');
    return Buffer.concat([Buffer.from('v11'), Buffer.from(plainText, 'utf8').map((byte) => byte ^ 0x5a)]);
  }

  decryptString(encrypted: Buffer): string {
    if (!this.available) throw new Error('Decryption is not available.');
    if (encrypted.subarray(0, 3).toString() !== 'v11') throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return Buffer.from(encrypted.subarray(3).map((byte) => byte ^ 0x5a)).toString('utf8');
  }

  getSelectedStorageBackend(): string {
    return this.backend;
  }
}

export interface FakeElectron {
  api: ElectronApi;
  app: FakeApp;
  /** The order of the shell's calls: lock, ready, getPath:userData, start, window, load, tray, exit:<code>. */
  calls: string[];
  windows: FakeWindow[];
  trays: FakeTray[];
  clipboard: { text: string };
  openedExternally: string[];
  errorBoxes: Array<{ title: string; content: string }>;
  messageBoxes: MessageBoxOptions[];
  ipcHandlers: Map<string, (event: InvokeEvent) => unknown>;
  /** Calls an ipcMain handler as a renderer at `senderUrl` would. */
  invoke(channel: string, senderUrl: string): Promise<unknown>;
}

export function fakeElectron(options: { userData: string; lock?: FakeInstanceLock; safeStorage?: SafeStorageApi }): FakeElectron {
  const calls: string[] = [];
  const windows: FakeWindow[] = [];
  const trays: FakeTray[] = [];
  const clipboard = { text: '' };
  const openedExternally: string[] = [];
  const errorBoxes: FakeElectron['errorBoxes'] = [];
  const messageBoxes: MessageBoxOptions[] = [];
  const ipcHandlers = new Map<string, (event: InvokeEvent) => unknown>();
  const app = new FakeApp(options.userData, options.lock ?? new FakeInstanceLock(), calls);

  const api: ElectronApi = {
    app,
    BrowserWindow: class extends FakeWindow {
      constructor(windowOptions: BrowserWindowConstructorOptions) {
        super(windowOptions, calls);
        windows.push(this);
      }
    },
    Tray: class extends FakeTray {
      constructor(image: string) {
        super(image, calls);
        trays.push(this);
      }
    },
    Menu: { buildFromTemplate: (template: TrayMenuItem[]): FakeMenu => ({ template }) },
    ipcMain: { handle: (channel, listener) => void ipcHandlers.set(channel, listener) },
    shell: {
      openExternal: async (url) => {
        openedExternally.push(url);
      },
    },
    clipboard: { writeText: (text) => void (clipboard.text = text) },
    safeStorage: options.safeStorage ?? new FakeSafeStorage(false, 'basic_text'),
    dialog: {
      showErrorBox: (title, content) => void errorBoxes.push({ title, content }),
      showMessageBox: async (box) => {
        messageBoxes.push(box);
        return { response: 0, checkboxChecked: false };
      },
    },
  };

  return {
    api,
    app,
    calls,
    windows,
    trays,
    clipboard,
    openedExternally,
    errorBoxes,
    messageBoxes,
    ipcHandlers,
    invoke: async (channel, senderUrl) => {
      const handler = ipcHandlers.get(channel);
      if (!handler) throw new Error(`no handler for ${channel}`);
      return handler({ senderFrame: { url: senderUrl } });
    },
  };
}
