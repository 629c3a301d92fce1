import path from 'node:path';
import { runCli, type CliIo } from '../server/cli/program.js';
import { ConfigError, loadConfig } from '../server/config.js';
import { masterKeyFile } from '../server/crypto/master-key.js';
import type { SafeStorageApi, ShellApp } from './electron-api.js';
import { pickMasterKeyStore } from './master-key-store.js';

/**
 * `CampusBridge --cli <command…>`: the operator command line of the installed desktop app, on the
 * desktop's own data folder (userData) and master key store (the keychain), without a window,
 * a tray or the single-instance lock. Commands that need CampusBridge stopped (restore,
 * recovery-kit import) refuse while the app runs, as they do headless (docs/install.md#the-command-line-of-the-desktop-app).
 */

export const CLI_SWITCH = '--cli';

/** The command after `--cli`, or null when the app was started to open its window. */
export function cliArguments(argv: readonly string[]): string[] | null {
  const at = argv.indexOf(CLI_SWITCH);
  return at === -1 ? null : argv.slice(at + 1);
}

export interface CliModeElectron {
  app: Pick<ShellApp, 'whenReady' | 'getPath' | 'exit'>;
  safeStorage: SafeStorageApi;
}

export interface CliModeOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  stdout: CliIo['stdout'];
  stderr: CliIo['stderr'];
  /** The command line to run; the real one unless a test passes another. */
  run?: typeof runCli;
}

/** Runs one command as `npm run cli` would, on the desktop's data and key; resolves with the exit code. */
export async function runCliMode(electron: CliModeElectron, args: string[], options: CliModeOptions): Promise<number> {
  // The keychain (safeStorage) answers only once the app is ready.
  await electron.app.whenReady();
  const dataDir = electron.app.getPath('userData');
  // As in the shell, the desktop's folder wins over DATA_DIR.
  const env: NodeJS.ProcessEnv = { ...options.env, DATA_DIR: dataDir };
  let databaseFile: string;
  try {
    databaseFile = loadConfig(env, { dataDir }).databaseFile;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    options.stderr(`error validation_error: ${error.message}\n`);
    return 1;
  }
  const masterKeyStore = pickMasterKeyStore(masterKeyFile(path.dirname(databaseFile)), electron.safeStorage, options.platform);
  return (options.run ?? runCli)(args, { env, stdout: options.stdout, stderr: options.stderr, masterKeyStore });
}

/** The entry's way in: runs the command, then exits with its code (an unexpected failure is exit 1 with its message). */
export function launchCliMode(electron: CliModeElectron, args: string[], options: CliModeOptions): Promise<void> {
  return runCliMode(electron, args, options).then(
    (code) => electron.app.exit(code),
    (error: unknown) => {
      options.stderr(`error internal_error: ${error instanceof Error ? error.message : String(error)}\n`);
      electron.app.exit(1);
    },
  );
}
