import type { BrowserWindowConstructorOptions } from 'electron';
import type { GuardedContents, PermissionDetails, ShellWindow, WindowOpenDetails } from '../electron-api.js';
import { Emitter, FakeEvent } from './fake-emitter.js';

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
