import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { MasterKeyStore } from '../crypto/master-key.js';
import type { Database } from '../db/index.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where the master key lives when not the 0600 file beside the database: the desktop app's keychain store (electron/cli-mode.ts). */
  masterKeyStore?: MasterKeyStore;
  /** Asks for a secret on the terminal without echoing it; absent when there is no terminal (`account password`). */
  readSecret?: (prompt: string) => Promise<string>;
}

/** What every group of commands gets: the database (opened on first use), the configuration, and one way to print. */
export interface CliContext {
  io: CliIo;
  config(): Config;
  database(): Promise<Database>;
  /** Prints one JSON value on stdout: a command's whole answer. */
  print(value: unknown): void;
  /** Writes a change the command made to the school's audit log, beside the portal's (server/portal/audit-log.ts). */
  audit(institutionId: string | null, command: string, description: string, target: Record<string, string>): Promise<void>;
}

/** A group of commands in its own file (`server/cli/<area>.ts`), added to the program by `runCli`. */
export type RegisterCommands = (program: Command, cli: CliContext) => void;
