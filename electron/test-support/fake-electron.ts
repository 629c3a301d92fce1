// Stand-ins for the Electron API, recording what the shell does with them. Electron's binary cannot
// be downloaded where the tests run, so the shell takes its Electron API as an interface.
import type { BrowserWindowConstructorOptions, MessageBoxOptions } from 'electron';
import type { ElectronApi, InvokeEvent, SafeStorageApi, ShellApp, TrayMenuItem } from '../electron-api.js';
import { Emitter, FakeEvent } from './fake-emitter.js';
import { FakeWindow } from './fake-window.js';
import { type FakeMenu, FakeTray } from './fake-tray.js';

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
