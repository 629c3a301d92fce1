// @tier unit
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desktopExecArgument, electronLoginItem, HIDDEN_ARG, loginItemFor, startedAtLogin, xdgAutostartLoginItem } from './login-item.js';
import { FakeApp, FakeInstanceLock } from './test-support/fake-electron.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function configHome(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-xdg-'));
  dirs.push(dir);
  return dir;
}

const fakeApp = () => new FakeApp('/tmp/unused', new FakeInstanceLock(), []);

describe('xdgAutostartLoginItem', () => {
  it('writes and removes an autostart entry that starts the app hidden', () => {
    const home = configHome();
    const item = xdgAutostartLoginItem({
      configHome: home,
      executable: '/home/ada/Apps/CampusBridge.AppImage',
      name: 'CampusBridge',
      fileName: 'org.campusbridge.appliance.desktop',
    });
    const file = path.join(home, 'autostart', 'org.campusbridge.appliance.desktop');
    expect(item.isEnabled()).toBe(false);

    item.setEnabled(true);
    expect(item.isEnabled()).toBe(true);
    const entry = fs.readFileSync(file, 'utf8');
    expect(entry).toContain('[Desktop Entry]\nType=Application\nName=CampusBridge\n');
    expect(entry).toContain(`Exec=/home/ada/Apps/CampusBridge.AppImage ${HIDDEN_ARG}\n`);

    item.setEnabled(false);
    expect(item.isEnabled()).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
    item.setEnabled(false);
  });

  it('runs the AppImage itself rather than its temporary mount', () => {
    const home = configHome();
    loginItemFor(fakeApp(), 'linux', { XDG_CONFIG_HOME: home, APPIMAGE: '/opt/apps/CampusBridge.AppImage' }, '/tmp/.mount_Campus/campusbridge').setEnabled(
      true,
    );
    const entry = fs.readFileSync(path.join(home, 'autostart', 'org.campusbridge.appliance.desktop'), 'utf8');
    expect(entry).toContain('Exec=/opt/apps/CampusBridge.AppImage --hidden');
  });
});

describe('desktopExecArgument', () => {
  it('quotes what the Desktop Entry specification reserves', () => {
    expect(desktopExecArgument('/opt/CampusBridge/campusbridge')).toBe('/opt/CampusBridge/campusbridge');
    expect(desktopExecArgument('/home/ada/My Apps/CampusBridge')).toBe('"/home/ada/My Apps/CampusBridge"');
    expect(desktopExecArgument('/home/ada/100%/"x"')).toBe('"/home/ada/100%%/\\\\"x\\\\""');
  });
});

describe('electronLoginItem', () => {
  it('registers the app with the hidden flag and reads the setting back', () => {
    const app = fakeApp();
    const item = electronLoginItem(app);
    expect(item.isEnabled()).toBe(false);
    item.setEnabled(true);
    expect(app.loginItemSettings.openAtLogin).toBe(true);
    expect(item.isEnabled()).toBe(true);
  });

  it('is what Windows and macOS use', () => {
    const app = fakeApp();
    loginItemFor(app, 'win32', {}, 'C:\\Program Files\\CampusBridge\\CampusBridge.exe').setEnabled(true);
    expect(app.loginItemSettings.openAtLogin).toBe(true);
  });
});

describe('startedAtLogin', () => {
  it('knows a login start by the hidden flag, or on macOS by what the system says', () => {
    const app = fakeApp();
    expect(startedAtLogin(app, 'win32', ['CampusBridge.exe', HIDDEN_ARG])).toBe(true);
    expect(startedAtLogin(app, 'linux', ['campusbridge'])).toBe(false);
    app.loginItemSettings.wasOpenedAtLogin = true;
    expect(startedAtLogin(app, 'darwin', ['CampusBridge'])).toBe(true);
    expect(startedAtLogin(app, 'linux', ['campusbridge'])).toBe(false);
  });
});
