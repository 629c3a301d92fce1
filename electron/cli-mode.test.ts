// @tier integration
// @databases sqlite: the desktop shell starting and stopping an appliance; the queries under it are the API's
// The desktop app's command line (`CampusBridge --cli <command…>`), with fakes for Electron around
// the real command line: the desktop's data folder and keychain-sealed key, never DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppliance } from '../server/appliance.js';
import { loadConfig } from '../server/config.js';
import { masterKeyFile } from '../server/crypto/master-key.js';
import { createLogger } from '../server/logger.js';
import { cliArguments, launchCliMode, runCliMode } from './cli-mode.js';
import { SafeStorageMasterKeyStore } from './master-key-store.js';
import { fakeElectron, FakeSafeStorage } from './test-support/fake-electron.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-cli-mode-'));
  dirs.push(dir);
  return dir;
};

/** A desktop data folder as the app leaves it after a start: the database, and the key sealed by the (fake) keychain. */
async function desktopFolder(keychain: FakeSafeStorage): Promise<string> {
  const userData = tempDir();
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }, { dataDir: userData });
  const appliance = await startAppliance({
    config,
    logger: createLogger('silent'),
    masterKeyStore: new SafeStorageMasterKeyStore(masterKeyFile(userData), keychain),
  });
  await appliance.stop();
  expect(fs.readFileSync(masterKeyFile(userData), 'utf8')).toMatch(/^safestorage:v1:/);
  return userData;
}

function captured() {
  const out = { stdout: '', stderr: '' };
  return { out, stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text) };
}

describe('cliArguments', () => {
  it('is the command after --cli, in a packaged app and under electron alike; null without it', () => {
    expect(cliArguments(['C:\\Program Files\\CampusBridge\\CampusBridge.exe', '--cli', 'backup', '--out', 'D:\\'])).toEqual(['backup', '--out', 'D:\\']);
    expect(cliArguments(['/usr/bin/electron', 'dist/electron/main.js', '--cli', 'jobs', 'list'])).toEqual(['jobs', 'list']);
    expect(cliArguments(['/usr/bin/electron', 'dist/electron/main.js', '--cli'])).toEqual([]);
    expect(cliArguments(['/opt/CampusBridge/campusbridge', '--hidden'])).toBeNull();
  });
});

describe('runCliMode', () => {
  it("runs commands on the desktop's folder and keychain-sealed key, ignoring DATA_DIR", async () => {
    const keychain = new FakeSafeStorage(true);
    const userData = await desktopFolder(keychain);
    const elsewhere = tempDir();
    const electron = fakeElectron({ userData, safeStorage: keychain });
    const io = captured();
    const env = { DATA_DIR: elsewhere, CAMPUSBRIDGE_PASSPHRASE: 'a desktop passphrase' };

    const kit = path.join(elsewhere, 'kit.json');
    expect(await runCliMode(electron.api, ['recovery-kit', 'export', '--out', kit], { env, platform: 'linux', ...io })).toBe(0);
    expect(io.out.stderr).toBe('');
    expect(JSON.parse(io.out.stdout)).toEqual({ file: kit });
    expect(electron.calls.slice(0, 2)).toEqual(['ready', 'getPath:userData']);
    expect(electron.calls).not.toContain('lock');
    expect(electron.windows).toHaveLength(0);

    // The kit holds the keychain-sealed key in its usable form: a headless folder can import it and open the desktop's data.
    const headless = tempDir();
    fs.copyFileSync(path.join(userData, 'campusbridge.sqlite'), path.join(headless, 'campusbridge.sqlite'));
    const { runCli } = await import('../server/cli/program.js');
    expect(
      await runCli(['recovery-kit', 'import', kit], { env: { DATA_DIR: headless, CAMPUSBRIDGE_PASSPHRASE: env.CAMPUSBRIDGE_PASSPHRASE }, ...captured() }),
    ).toBe(0);
    const sealed = new SafeStorageMasterKeyStore(masterKeyFile(userData), keychain).load()!;
    expect(Buffer.from(fs.readFileSync(masterKeyFile(headless), 'utf8').trim(), 'base64').equals(sealed)).toBe(true);

    // A database command goes through the same keychain store (headless could not read that key).
    const backup = captured();
    expect(await runCliMode(electron.api, ['backup'], { env, platform: 'linux', ...backup })).toBe(0);
    expect(path.dirname(JSON.parse(backup.out.stdout).file as string)).toBe(path.join(userData, 'backups'));
    const settings = captured();
    expect(await runCliMode(electron.api, ['settings', 'get'], { env, platform: 'linux', ...settings })).toBe(0);
    expect(JSON.parse(settings.out.stdout)).toHaveProperty('public_url');
    expect(fs.readdirSync(elsewhere).sort()).toEqual(['kit.json']);

    const headlessRead = captured();
    expect(await runCli(['settings', 'get'], { env: { DATA_DIR: userData }, ...headlessRead })).toBe(1);
    expect(headlessRead.out.stderr).toContain('sealed by the CampusBridge desktop program');
    const headlessExport = captured();
    expect(
      await runCli(['recovery-kit', 'export', '--out', elsewhere], {
        env: { DATA_DIR: userData, CAMPUSBRIDGE_PASSPHRASE: 'a desktop passphrase' },
        ...headlessExport,
      }),
    ).toBe(1);
    expect(headlessExport.out.stderr).toMatch(/^error conflict: .*CampusBridge --cli recovery-kit export/);
  });

  it("exits with the command's code: usage errors 2, failures 1 with the error code", async () => {
    const keychain = new FakeSafeStorage(true);
    const userData = await desktopFolder(keychain);
    const electron = fakeElectron({ userData, safeStorage: keychain });
    const io = captured();
    await launchCliMode(electron.api, ['restore', path.join(userData, 'missing.sqlite')], { env: {}, platform: 'linux', ...io });
    expect(electron.app.exitCodes).toEqual([1]);
    expect(io.out.stderr).toMatch(/^error not_found: /);
    await launchCliMode(electron.api, ['no-such-command'], { env: {}, platform: 'linux', ...captured() });
    expect(electron.app.exitCodes).toEqual([1, 2]);
    await launchCliMode(electron.api, ['jobs'], { env: {}, platform: 'linux', ...captured(), run: async () => Promise.reject(new Error('boom')) });
    expect(electron.app.exitCodes).toEqual([1, 2, 1]);
    const bad = captured();
    expect(await runCliMode(electron.api, ['backup'], { env: { PORT: 'not a port' }, platform: 'linux', ...bad })).toBe(1);
    expect(bad.out.stderr).toContain('error validation_error: ');
  });
});
