// @tier integration
// @databases sqlite: the desktop shell's windows and quitting around a running appliance; its queries are the API's
// The desktop shell driven through fake Electron objects, around a REAL appliance on 127.0.0.1
// over a SQLite file in a temp folder standing in for the user's application data.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppliance, type Appliance, type StartOptions } from '../server/appliance.js';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/logger.js';
import { makeInstitution, makeKey, type TestKey } from '../tests/helpers/appliance.js';
import { COPY_API_BASE_URL_CHANNEL, versionFromArguments } from './bridge.js';
import type { LoginItem } from './login-item.js';
import { launchShell, runShell } from './shell.js';
import type { RunningShell, ShellOptions } from './shell-types.js';
import { fakeElectron, FakeInstanceLock, FakeSafeStorage, type FakeElectron } from './test-support/fake-electron.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-shell-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function memoryLoginItem(): LoginItem & { enabled: boolean } {
  const item = {
    enabled: false,
    isEnabled: () => item.enabled,
    setEnabled: (enabled: boolean) => void (item.enabled = enabled),
  };
  return item;
}

interface Launched {
  electron: FakeElectron;
  userData: string;
  outcome: Awaited<ReturnType<typeof runShell>>;
  logText: () => string;
  /** How many times the shell asked the appliance to stop. */
  stops: () => number;
  loginItem: ReturnType<typeof memoryLoginItem>;
}

/** Runs the shell with fake Electron objects; the appliance is real unless `shell.start` says otherwise. */
async function launch(
  options: { userData?: string; env?: Record<string, string>; lock?: FakeInstanceLock; safeStorage?: FakeSafeStorage; shell?: Partial<ShellOptions> } = {},
): Promise<Launched> {
  const userData = options.userData ?? tempDir();
  const electron = fakeElectron({ userData, lock: options.lock, safeStorage: options.safeStorage });
  let logged = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logged += chunk.toString();
      callback();
    },
  });
  let stops = 0;
  const started: Appliance[] = [];
  const start = async (startOptions: StartOptions): Promise<Appliance> => {
    electron.calls.push('start');
    const appliance = await startAppliance(startOptions);
    started.push(appliance);
    electron.calls.push('listening');
    return {
      ...appliance,
      stop: async () => {
        stops++;
        electron.calls.push('stop');
        await appliance.stop();
      },
    };
  };
  // Stopping twice is harmless (stop() is idempotent), so a test that quit needs no special case.
  cleanups.push(async () => {
    for (const appliance of started) await appliance.stop();
  });
  const loginItem = memoryLoginItem();
  const outcome = await runShell(electron.api, {
    env: { HOST: '127.0.0.1', PORT: '0', ...options.env },
    platform: 'linux',
    argv: [],
    execPath: '/opt/CampusBridge/campusbridge',
    preloadPath: '/opt/CampusBridge/resources/app.asar/dist/electron/preload.cjs',
    trayIconPath: '/opt/CampusBridge/resources/app.asar/dist/electron/tray.png',
    logger: createLogger('info', sink),
    loginItem,
    start,
    ...options.shell,
  });
  return { electron, userData, outcome, logText: () => logged, stops: () => stops, loginItem };
}

/** A start-up page's sentence, or a portal URL as it is. */
function shownText(url: string): string {
  if (!url.startsWith('data:')) return url;
  return (
    /role="status">([^<]*)</
      .exec(decodeURIComponent(url.slice(url.indexOf(',') + 1)))?.[1]
      ?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))) ?? ''
  );
}

function running(launched: Launched): RunningShell {
  if (launched.outcome.status !== 'running') throw new Error(`the shell did not start: ${JSON.stringify(launched.outcome)}`);
  return launched.outcome.shell;
}

async function quit(launched: Launched): Promise<void> {
  launched.electron.app.quit();
  await running(launched).quitting();
}

/** Holds a port on 127.0.0.1 the way another program would. */
async function occupyPort(): Promise<number> {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
  return (blocker.address() as net.AddressInfo).port;
}

async function createStudent(origin: string, key: TestKey, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${origin}/v1/students`, {
    method: 'POST',
    headers: { Authorization: key.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('start-up', () => {
  it('takes the lock, then the data folder, then starts the server, then opens the window and the tray', async () => {
    const launched = await launch();
    const shell = running(launched);
    const { electron } = launched;

    // The window comes before the server, showing each start-up step (a local page) until the portal loads.
    expect(electron.calls).toEqual(['lock', 'ready', 'getPath:userData', 'window', 'load', 'start', 'load', 'load', 'listening', 'load', 'tray']);
    expect(shell.origin).toBe(`http://127.0.0.1:${shell.appliance.port}`);
    expect(shell.apiBaseUrl).toBe(`${shell.origin}/v1`);
    expect((await fetch(`${shell.apiBaseUrl}/openapi.json`)).status).toBe(200);

    const [window] = electron.windows;
    expect(window?.loadedUrls.map(shownText)).toEqual([
      'Starting CampusBridge…',
      'Opening the database (and upgrading it after an update)…',
      'Starting the server…',
      `${shell.origin}/`,
    ]);
    expect(window?.visible).toBe(true);
    const prefs = window?.options.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, nodeIntegration: false, sandbox: true });
    expect(prefs?.preload).toBe('/opt/CampusBridge/resources/app.asar/dist/electron/preload.cjs');
    expect(versionFromArguments(prefs?.additionalArguments ?? [])).toBe('9.8.7');

    const [tray] = electron.trays;
    expect(tray?.image).toBe('/opt/CampusBridge/resources/app.asar/dist/electron/tray.png');
    expect(tray?.toolTip).toContain(shell.apiBaseUrl);
    expect(launched.logText()).toContain(`CampusBridge listening on ${shell.origin}`);
    expect(electron.app.exitCodes).toEqual([]);
  });

  it('takes the lock and listens for quit and second starts before waiting for ready', async () => {
    // Electron emits `ready` only after the entry module has run, so this part must not wait.
    const electron = fakeElectron({ userData: tempDir() });
    const never = () => new Promise<Appliance>(() => {});
    const shell = launchShell(electron.api, {
      ...{ env: {}, platform: 'linux', argv: [], execPath: 'x', preloadPath: 'p', trayIconPath: 't' },
      start: never,
      readyTimeoutMs: 20,
      logger: createLogger('silent'),
    });

    expect(electron.calls).toEqual(['lock', 'ready']);
    expect(electron.app.listenerCount('before-quit')).toBe(1);
    expect(electron.app.listenerCount('second-instance')).toBe(1);
    await shell;
  });

  it('ends the app with a message when something unexpected fails', async () => {
    const electron = fakeElectron({ userData: tempDir() });
    electron.app.whenReady = () => Promise.reject(new Error('GPU process crashed'));

    await launchShell(electron.api, { env: {}, platform: 'linux', argv: [], execPath: 'x', preloadPath: 'p', trayIconPath: 't' });

    expect(electron.errorBoxes).toEqual([{ title: 'CampusBridge stopped', content: expect.stringContaining('GPU process crashed') }]);
    expect(electron.app.exitCodes).toEqual([1]);
  });

  it("keeps the data in the user's application data folder, even when DATA_DIR is set", async () => {
    const elsewhere = tempDir();
    const launched = await launch({ env: { DATA_DIR: elsewhere } });
    const shell = running(launched);

    expect(shell.appliance.ctx.config.dataDir).toBe(path.resolve(launched.userData));
    expect(fs.existsSync(path.join(launched.userData, 'campusbridge.sqlite'))).toBe(true);
    expect(fs.existsSync(path.join(launched.userData, 'master.key'))).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('a second start focuses the running window and starts no second server', async () => {
    const lock = new FakeInstanceLock();
    const first = await launch({ lock });
    const [window] = first.electron.windows;
    window!.close();
    window!.minimized = true;
    const focusedBefore = window!.focusCount;

    const second = await launch({ lock });

    expect(second.outcome).toEqual({ status: 'second-instance' });
    expect(second.electron.calls).toEqual(['lock']);
    expect(second.electron.app.quitCalls).toBe(1);
    expect(window!.visible).toBe(true);
    expect(window!.minimized).toBe(false);
    expect(window!.focusCount).toBe(focusedBefore + 1);
    expect(first.electron.calls.filter((call) => call === 'start')).toHaveLength(1);
  });

  it('falls back to the next port when the configured one is taken, and says which port it uses', async () => {
    const taken = await occupyPort();
    const launched = await launch({ env: { PORT: String(taken) }, shell: { nextPorts: 3 } });
    const shell = running(launched);

    expect(shell.appliance.port).not.toBe(taken);
    expect(shell.appliance.port).toBeGreaterThan(0);
    expect(shell.fallback).toEqual({ requested: taken, used: shell.appliance.port });
    expect(launched.logText()).toContain(`port ${taken} is in use by another program`);
    const [box] = launched.electron.messageBoxes;
    expect(box?.message).toBe(`Port ${taken} is in use by another program, so CampusBridge is using port ${shell.appliance.port}.`);
    expect(box?.detail).toContain(`${shell.apiBaseUrl}`);
    expect(launched.electron.trays[0]?.toolTip).toContain(`port ${taken} was in use`);
    expect(launched.electron.windows[0]?.loadedUrls.at(-1)).toBe(`http://127.0.0.1:${shell.appliance.port}/`);
    expect((await fetch(`${shell.apiBaseUrl}/openapi.json`)).status).toBe(200);
  });

  it('takes any free port once the next ones are tried', async () => {
    const taken = await occupyPort();
    const launched = await launch({ env: { PORT: String(taken) }, shell: { nextPorts: 0 } });
    const shell = running(launched);

    expect(launched.electron.calls.filter((call) => call === 'start')).toHaveLength(2);
    expect(shell.appliance.port).not.toBe(taken);
    expect(shell.fallback?.used).toBe(shell.appliance.port);
  });

  it('shows an error and quits when the server is not ready in time', async () => {
    const launched = await launch({ shell: { readyTimeoutMs: 50, start: () => new Promise<Appliance>(() => {}) } });

    expect(launched.outcome.status).toBe('failed');
    expect(launched.electron.errorBoxes).toEqual([
      { title: 'CampusBridge could not start', content: expect.stringContaining('The server was not ready after 0.05 s.') },
    ]);
    expect(launched.electron.errorBoxes[0]?.content).toContain(launched.userData);
    expect(launched.electron.app.exitCodes).toEqual([1]);
    // The window that showed the start-up says what went wrong too.
    expect(shownText(launched.electron.windows[0]!.loadedUrls.at(-1)!)).toContain('CampusBridge could not start. The server was not ready after 0.05 s.');
    expect(launched.electron.trays).toHaveLength(0);
  });

  it('shows what is wrong with the settings and quits', async () => {
    const launched = await launch({ env: { PORT: 'eighty' } });

    expect(launched.outcome.status).toBe('failed');
    expect(launched.electron.errorBoxes[0]?.content).toContain('PORT');
    expect(launched.electron.app.exitCodes).toEqual([1]);
    expect(launched.electron.calls).not.toContain('start');
  });

  it('stays in the tray when started at login', async () => {
    const launched = await launch({ shell: { argv: ['/opt/CampusBridge/campusbridge', '--hidden'] } });
    running(launched);

    expect(launched.electron.windows[0]?.loadedUrls.at(-1)).toBe(`${running(launched).origin}/`);
    expect(launched.electron.windows[0]?.visible).toBe(false);
    expect(launched.electron.trays).toHaveLength(1);
  });
});

describe('window', () => {
  it('closing the window keeps the app and its server running in the tray', async () => {
    const launched = await launch();
    const shell = running(launched);
    const [window] = launched.electron.windows;

    window!.close();

    expect(window!.destroyed).toBe(false);
    expect(window!.visible).toBe(false);
    expect(launched.electron.app.exitCodes).toEqual([]);
    expect((await fetch(`${shell.apiBaseUrl}/openapi.json`)).status).toBe(200);
  });

  it('keeps the window on the portal and sends other web pages to the system browser', async () => {
    const launched = await launch();
    const shell = running(launched);
    const contents = launched.electron.windows[0]!.webContents;

    expect(contents.navigate(`${shell.origin}/institutions`)).toBe(true);
    expect(contents.navigate('https://docs.example.org/lms')).toBe(false);
    expect(contents.navigate('file:///etc/passwd')).toBe(false);
    expect(contents.open(`${shell.origin}/v1/docs`)).toBe(true);
    expect(contents.open('http://example.org/')).toBe(false);
    expect(launched.electron.openedExternally).toEqual(['https://docs.example.org/lms', 'http://example.org/']);
  });

  it('answers the bridge only for the portal page', async () => {
    const launched = await launch();
    const shell = running(launched);

    expect(await launched.electron.invoke(COPY_API_BASE_URL_CHANNEL, `${shell.origin}/developers`)).toBe(shell.apiBaseUrl);
    expect(launched.electron.clipboard.text).toBe(shell.apiBaseUrl);

    launched.electron.clipboard.text = '';
    await expect(launched.electron.invoke(COPY_API_BASE_URL_CHANNEL, 'https://evil.example/')).rejects.toThrow('only the portal');
    expect(launched.electron.clipboard.text).toBe('');
  });
});

describe('tray', () => {
  it('copies the API base URL, <origin>/v1, to the clipboard', async () => {
    const launched = await launch();
    const shell = running(launched);

    launched.electron.trays[0]!.click('Copy API base URL');

    expect(launched.electron.clipboard.text).toBe(`http://127.0.0.1:${shell.appliance.port}/v1`);
  });

  it('opens the portal window again', async () => {
    const launched = await launch();
    const [window] = launched.electron.windows;
    window!.close();
    expect(window!.visible).toBe(false);

    launched.electron.trays[0]!.click('Open portal');

    expect(window!.visible).toBe(true);
  });

  it('switches start at login, and the checkbox follows', async () => {
    const launched = await launch();
    const tray = launched.electron.trays[0]!;
    expect(tray.item('Start at login')).toMatchObject({ type: 'checkbox', checked: false });

    tray.click('Start at login');
    expect(launched.loginItem.enabled).toBe(true);
    expect(tray.item('Start at login')).toMatchObject({ checked: true });

    tray.click('Start at login');
    expect(launched.loginItem.enabled).toBe(false);
    expect(tray.item('Start at login')).toMatchObject({ checked: false });
  });

  it('lists open portal, copy API base URL, start at login, the campus network and quit', async () => {
    const launched = await launch();
    const labels = launched.electron.trays[0]!.menu!.template.flatMap((item) => ('label' in item ? [item.label] : []));
    expect(labels).toEqual(['Open portal', 'Copy API base URL', 'Start at login', 'Reachable from the campus network', 'Quit CampusBridge']);
  });
});

describe('quit', () => {
  it('lets a request in flight finish, stops the server, then exits once', async () => {
    const launched = await launch();
    const shell = running(launched);
    const institution = await makeInstitution(shell.appliance);
    const key = await makeKey(shell.appliance, institution);
    const body = JSON.stringify({ full_name: 'Ada Lovelace' });

    const request = http.request({
      host: '127.0.0.1',
      port: shell.appliance.port,
      path: '/v1/students',
      method: 'POST',
      agent: false,
      headers: {
        Authorization: key.auth,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
        // The server answers 100 Continue once its handler has the request: then it is in flight.
        Expect: '100-continue',
      },
    });
    const answered = new Promise<{ status: number; body: string; exitsBefore: number }>((resolve, reject) => {
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, exitsBefore: launched.electron.app.exitCodes.length }));
      });
      request.on('error', reject);
    });
    const inFlight = new Promise((resolve) => request.once('continue', resolve));
    request.flushHeaders();
    await inFlight;

    launched.electron.trays[0]!.click('Quit CampusBridge');
    expect(shell.quitting()).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(launched.electron.app.exitCodes).toEqual([]);
    request.end(body);

    const answer = await answered;
    await shell.quitting();

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ success: true, data: { full_name: 'Ada Lovelace' } });
    expect(answer.exitsBefore).toBe(0);
    expect(launched.electron.app.exitCodes).toEqual([0]);
    expect(launched.electron.app.quitUnprevented).toBe(false);
    expect(launched.electron.calls.slice(-2)).toEqual(['stop', 'exit:0']);
    expect(launched.electron.trays[0]!.destroyed).toBe(true);
    await expect(fetch(`${shell.apiBaseUrl}/openapi.json`)).rejects.toThrow();
  });

  it('a second quit while stopping does nothing more', async () => {
    const launched = await launch();
    const shell = running(launched);

    launched.electron.app.quit();
    const stopping = shell.quitting();
    launched.electron.app.quit();
    launched.electron.trays[0]!.click('Quit CampusBridge');

    expect(shell.quitting()).toBe(stopping);
    await stopping;
    expect(launched.stops()).toBe(1);
    expect(launched.electron.app.exitCodes).toEqual([0]);
    expect(launched.electron.app.quitUnprevented).toBe(false);
  });

  it('lets the window close once quitting', async () => {
    const launched = await launch();
    const shell = running(launched);
    launched.electron.app.quit();

    launched.electron.windows[0]!.close();

    expect(launched.electron.windows[0]!.destroyed).toBe(true);
    await shell.quitting();
  });
});

describe('master key', () => {
  async function studentsWithEmail(shell: RunningShell, key: TestKey, email: string): Promise<string[]> {
    const response = await fetch(`${shell.apiBaseUrl}/students?email=${encodeURIComponent(email)}`, { headers: { Authorization: key.auth } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { items: Array<{ full_name: string }> } }).data.items.map((student) => student.full_name);
  }

  it('is kept by the keychain when there is one, and is the same key after a restart', async () => {
    const keychain = new FakeSafeStorage(true, 'gnome_libsecret');
    const first = await launch({ safeStorage: keychain });
    const shell = running(first);
    const institution = await makeInstitution(shell.appliance);
    const key = await makeKey(shell.appliance, institution);
    expect((await createStudent(shell.origin, key, { full_name: 'Grace Hopper', personal_email: 'grace@example.org' })).status).toBe(200);
    await quit(first);

    const file = fs.readFileSync(path.join(first.userData, 'master.key'), 'utf8');
    expect(file.startsWith('safestorage:v1:')).toBe(true);

    const second = await launch({ userData: first.userData, safeStorage: keychain });
    // The email filter matches through a blind index keyed by the master key: a new key would find nothing.
    expect(await studentsWithEmail(running(second), key, 'grace@example.org')).toEqual(['Grace Hopper']);
  });

  it('falls back to the 0600 file when the system has no keychain', async () => {
    const launched = await launch({ safeStorage: new FakeSafeStorage(false, 'unknown') });
    running(launched);

    const file = path.join(launched.userData, 'master.key');
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('protects the key of a data folder first used headless, keeping the key', async () => {
    const userData = tempDir();
    const headless = await startAppliance({ config: loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }, { dataDir: userData }) });
    const institution = await makeInstitution(headless);
    const key = await makeKey(headless, institution);
    expect((await createStudent(headless.origin, key, { full_name: 'Alan Turing', personal_email: 'alan@example.org' })).status).toBe(200);
    await headless.stop();
    const plain = fs.readFileSync(path.join(userData, 'master.key'), 'utf8');

    const launched = await launch({ userData, safeStorage: new FakeSafeStorage(true, 'kwallet6') });

    const protectedFile = fs.readFileSync(path.join(userData, 'master.key'), 'utf8');
    expect(protectedFile).not.toBe(plain);
    expect(protectedFile.startsWith('safestorage:v1:')).toBe(true);
    expect(await studentsWithEmail(running(launched), key, 'alan@example.org')).toEqual(['Alan Turing']);
  });
});
