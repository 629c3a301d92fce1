import { expect } from 'vitest';
import { runCli } from '../../server/cli/program.js';
import { dataDirEnv } from './postgres.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A data folder, or a running test appliance (whose database may be PostgreSQL's). */
export type CliTarget = string | { dataDir: string; ctx: { config: { databaseUrl: string | null } } };

/**
 * The command line in this process against a data folder's database (in the postgres project, the
 * PostgreSQL database standing for the folder) or an appliance's database (its own connection),
 * output captured.
 */
export async function runCliCaptured(target: CliTarget, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const env =
    typeof target === 'string'
      ? await dataDirEnv(target)
      : { DATA_DIR: target.dataDir, ...(target.ctx.config.databaseUrl ? { DATABASE_URL: target.ctx.config.databaseUrl } : {}) };
  const code = await runCli(argv, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** Success: exit 0, nothing on stderr, stdout is exactly one JSON value (returned parsed). */
export function cliOk<T = Record<string, unknown>>(result: CliResult): T {
  expect(result.stderr, `stderr of a successful run: ${result.stderr}`).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Failure: exit 1, nothing on stdout, one line on stderr naming the error code (returned). */
export function cliFails(result: CliResult, code: string): string {
  expect(result.code, `stdout: ${result.stdout} stderr: ${result.stderr}`).toBe(1);
  expect(result.stdout).toBe('');
  const message = result.stderr.trimEnd();
  expect(message).toContain(`error ${code}:`);
  expect(message.split('\n')).toHaveLength(1);
  return message;
}
