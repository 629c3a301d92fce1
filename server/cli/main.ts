import { runCli } from './program.js';
import { readSecretFromTerminal } from './prompt.js';

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readSecret: process.stdin.isTTY ? readSecretFromTerminal : undefined,
}).then((code) => {
  process.exitCode = code;
});
