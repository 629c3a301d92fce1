import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** What every group of commands gets: the database (opened on first use), the configuration, and one way to print. */
export interface CliContext {
  io: CliIo;
  config(): Config;
  database(): Promise<Database>;
  /** Prints one JSON value on stdout: a command's whole answer. */
  print(value: unknown): void;
}

/** A group of commands in its own file (`server/cli/<area>.ts`), added to the program by `runCli`. */
export type RegisterCommands = (program: Command, cli: CliContext) => void;
