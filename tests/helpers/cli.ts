import { runCli } from '../../server/cli/program.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command line in this process against a data folder (its own database connection), output captured. */
export async function runCliCaptured(dataDir: string, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { DATA_DIR: dataDir },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
