import path from 'node:path';
import { CommanderError } from 'commander';
import { exportRecoveryKit, importRecoveryKit } from '../commands/recovery-kit.js';
import { FileMasterKeyStore, masterKeyFile } from '../crypto/master-key.js';
import { backupNow } from '../db/backup.js';
import { restoreDatabase } from '../db/restore.js';
import type { CliContext, RegisterCommands } from './context.js';

export const PASSPHRASE_ENV = 'CAMPUSBRIDGE_PASSPHRASE';

/**
 * `backup`, `restore <file>` and the `recovery-kit` commands of docs/api.md (contract §8). None
 * opens the database through connectDatabase: a backup copies it as it is, a restored database is
 * migrated by the next start (which keeps its own copy first), and the kit is the key alone.
 */
export const registerRecoveryCommands: RegisterCommands = (program, cli) => {
  const databaseFile = () => cli.config().databaseFile;
  const keyFile = () => masterKeyFile(path.dirname(databaseFile()));
  const keyStore = () => cli.io.masterKeyStore ?? new FileMasterKeyStore(keyFile());

  program
    .command('backup')
    .description('copy the database now (safe while CampusBridge runs) into DATA_DIR/backups, or --out; master.key is not in it')
    .option('--out <file>', 'write here instead (a folder gets the usual file name; an existing file is replaced)')
    .action(async (opts: { out?: string }) => {
      cli.print({ file: await backupNow(databaseFile(), opts.out) });
    });
  program
    .command('restore <file>')
    .description(
      'replace the database with a backup, after keeping a copy of the current one in DATA_DIR/backups; ' +
        'CampusBridge must not be running. The next start migrates an older backup forward',
    )
    .action(async (file: string) => cli.print(await restoreDatabase(databaseFile(), file)));

  const kit = program
    .command('recovery-kit')
    .description(`the master key sealed with a passphrase (from ${PASSPHRASE_ENV}), to move encrypted data to another computer`);
  kit
    .command('export')
    .description(`write the recovery kit; the passphrase (at least 12 characters) comes from ${PASSPHRASE_ENV}`)
    .requiredOption('--out <file>', 'the kit file to write (a folder gets campusbridge-recovery-kit-<time>.json)')
    .action(async (opts: { out: string }) => {
      cli.print({ file: await exportRecoveryKit(keyStore(), opts.out, passphrase(cli)) });
    });
  kit
    .command('import <file>')
    .description(`install the kit's master key; CampusBridge must not be running; a different key in place is kept as master.key.before-import-<time>`)
    .action(async (file: string) => {
      const target = { store: keyStore(), keyFile: keyFile(), databaseFile: databaseFile(), postgresUrl: cli.config().databaseUrl };
      await importRecoveryKit(target, file, passphrase(cli));
      cli.print({ imported: true });
    });
};

/** The passphrase from the environment (never an argument, which other users can read in the process list); missing is a usage error, exit 2. */
function passphrase(cli: CliContext): string {
  const value = cli.io.env[PASSPHRASE_ENV];
  if (value === undefined || value === '') {
    const message = `error: set ${PASSPHRASE_ENV} to the recovery kit's passphrase (at least 12 characters)`;
    cli.io.stderr(`${message}\n`);
    throw new CommanderError(2, 'campusbridge.missingPassphrase', message);
  }
  return value;
}
