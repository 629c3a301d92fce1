import type { ShellTray, TrayMenuItem } from '../electron-api.js';
import { Emitter } from './fake-emitter.js';

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
