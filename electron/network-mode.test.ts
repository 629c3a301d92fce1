// @tier integration
// @databases sqlite: the desktop shell starting and stopping an appliance; the queries under it are the API's
// The desktop app's network switch (docs/decisions/desktop-start-up-and-network.md): "this computer only" (HOST 127.0.0.1) or "this
// computer and the campus network" (HOST 0.0.0.0), chosen in the tray, kept in the data folder,
// applied by restarting the embedded server. Fake Electron objects around a REAL appliance; the
// server the test starts always binds 127.0.0.1 (the host the shell asked for is recorded), so
// nothing listens beyond this machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppliance, type Appliance, type StartOptions } from '../server/appliance.js';
import { createLogger } from '../server/logger.js';
import { networkModeOf, PREFERENCES_FILE, readPreferences } from './preferences.js';
import { runShell } from './shell.js';
import type { RunningShell } from './shell-types.js';
import { fakeElectron, type FakeElectron } from './test-support/fake-electron.js';
import { CAMPUS_NETWORK_LABEL } from './tray.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-network-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Launched {
  electron: FakeElectron;
  shell: RunningShell;
  /** The HOST the shell asked each start for. */
  hosts: string[];
}

async function launch(userData: string, options: { env?: Record<string, string>; failHost?: string } = {}): Promise<Launched> {
  const electron = fakeElectron({ userData });
  const hosts: string[] = [];
  const started: Appliance[] = [];
  const start = async (startOptions: StartOptions): Promise<Appliance> => {
    hosts.push(startOptions.config.host);
    if (startOptions.config.host === options.failHost) throw new Error(`cannot listen on ${options.failHost}`);
    const appliance = await startAppliance({ ...startOptions, config: { ...startOptions.config, host: '127.0.0.1' } });
    started.push(appliance);
    return appliance;
  };
  cleanups.push(async () => {
    for (const appliance of started) await appliance.stop();
  });
  const outcome = await runShell(electron.api, {
    env: { PORT: '0', ...options.env },
    platform: 'linux',
    argv: [],
    execPath: '/opt/CampusBridge/campusbridge',
    preloadPath: '/opt/CampusBridge/preload.cjs',
    trayIconPath: '/opt/CampusBridge/tray.png',
    logger: createLogger('silent'),
    loginItem: { isEnabled: () => false, setEnabled: () => undefined },
    start,
  });
  if (outcome.status !== 'running') throw new Error(`the shell did not start: ${JSON.stringify(outcome)}`);
  return { electron, shell: outcome.shell, hosts };
}

const campusItem = (launched: Launched) => launched.electron.trays[0]!.item(CAMPUS_NETWORK_LABEL);

describe('network mode', () => {
  it('starts for this computer only, and the tray switches to the campus network by restarting the server', async () => {
    const userData = tempDir();
    const launched = await launch(userData);
    const { shell } = launched;
    const first = shell.appliance;
    expect(launched.hosts).toEqual(['127.0.0.1']);
    expect(campusItem(launched)).toMatchObject({ type: 'checkbox', checked: false });

    launched.electron.trays[0]!.click(CAMPUS_NETWORK_LABEL);
    await shell.setNetworkMode('campus'); // joins the switch the click began

    expect(launched.hosts).toEqual(['127.0.0.1', '0.0.0.0']);
    expect(shell.networkMode()).toBe('campus');
    expect(shell.appliance).not.toBe(first);
    expect(shell.appliance.port).toBe(first.port);
    expect(shell.appliance.ctx.config.host).toBe('127.0.0.1'); // as the test bound it
    await expect(fetch(`${first.origin}/healthz`).then((res) => res.status)).resolves.toBe(200);
    expect(JSON.parse(fs.readFileSync(path.join(userData, PREFERENCES_FILE), 'utf8'))).toEqual({ network: 'campus' });
    expect(campusItem(launched)).toMatchObject({ checked: true });
    expect(launched.electron.trays[0]!.toolTip).toContain('reachable from the campus network');
    // The window showed the restart, then the portal again, on the same origin.
    expect(launched.electron.windows[0]!.loadedUrls.at(-1)).toBe(`${shell.origin}/`);
    expect(launched.electron.windows[0]!.loadedUrls.some((url) => decodeURIComponent(url).includes('Restarting the server'))).toBe(true);
  });

  it('restarts the server in place when the portal asks (a restore chosen in Backups)', async () => {
    const launched = await launch(tempDir());
    const first = launched.shell.appliance;
    expect(first.ctx.requestRestart).toBeTypeOf('function');
    first.ctx.requestRestart!();
    for (let waited = 0; launched.shell.appliance === first && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(launched.shell.appliance).not.toBe(first);
    expect(launched.hosts).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(launched.shell.appliance.port).toBe(first.port);
    await expect(fetch(`${launched.shell.origin}/healthz`).then((res) => res.status)).resolves.toBe(200);
    expect(launched.electron.windows[0]!.loadedUrls.some((url) => decodeURIComponent(url).includes('Restarting the server'))).toBe(true);
  });

  it('keeps the choice for the next start, and switches back', async () => {
    const userData = tempDir();
    const first = await launch(userData);
    await first.shell.setNetworkMode('campus');
    await first.shell.appliance.stop();

    const second = await launch(userData);
    expect(second.hosts).toEqual(['0.0.0.0']);
    expect(campusItem(second)).toMatchObject({ checked: true });

    second.electron.trays[0]!.click(CAMPUS_NETWORK_LABEL);
    await second.shell.setNetworkMode('local');
    expect(second.hosts).toEqual(['0.0.0.0', '127.0.0.1']);
    expect(readPreferences(userData)).toEqual({ network: 'local' });
    expect(campusItem(second)).toMatchObject({ checked: false });
  });

  it('goes back to the previous setting, and says so, when the server cannot start on the new one', async () => {
    const userData = tempDir();
    const launched = await launch(userData, { failHost: '0.0.0.0' });

    await launched.shell.setNetworkMode('campus');

    expect(launched.hosts).toEqual(['127.0.0.1', '0.0.0.0', '127.0.0.1']);
    expect(launched.shell.networkMode()).toBe('local');
    expect(readPreferences(userData)).toEqual({ network: 'local' });
    expect(launched.electron.messageBoxes[0]?.message).toContain('could not switch networks');
    expect((await fetch(`${launched.shell.origin}/healthz`)).status).toBe(200);
  });

  it('a quit during a switch stops the new server and exits once', async () => {
    const launched = await launch(tempDir());
    const switching = launched.shell.setNetworkMode('campus');
    launched.electron.app.quit();
    await switching;
    await launched.shell.quitting();
    expect(launched.electron.app.exitCodes).toEqual([0]);
    await expect(fetch(`${launched.shell.origin}/healthz`)).rejects.toThrow();
  });

  it('reads the mode from the preferences, else from HOST', () => {
    const dir = tempDir();
    expect(readPreferences(dir)).toEqual({});
    fs.writeFileSync(path.join(dir, PREFERENCES_FILE), '{not json');
    expect(readPreferences(dir)).toEqual({});
    fs.writeFileSync(path.join(dir, PREFERENCES_FILE), '{"network":"everywhere"}');
    expect(readPreferences(dir)).toEqual({});
    expect(networkModeOf({}, undefined)).toBe('local');
    expect(networkModeOf({}, '0.0.0.0')).toBe('campus');
    expect(networkModeOf({ network: 'local' }, '0.0.0.0')).toBe('local');
  });
});
