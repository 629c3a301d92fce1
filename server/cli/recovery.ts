import fs from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import { exportRecoveryKit, importRecoveryKit } from '../commands/appliance/recovery-kit.js';
import { FileMasterKeyStore, masterKeyFile } from '../crypto/master-key.js';
import { AppError } from '../errors.js';
import { backupNow, type BackupSource } from '../db/backup.js';
import { restoreDatabase, verifyCampusBridgeDatabase } from '../db/restore.js';
import { uploadsRoot } from '../files/storage.js';
import type { CliContext, RegisterCommands } from './context.js';

export const PASSPHRASE_ENV = 'CAMPUSBRIDGE_PASSPHRASE';

/**
 * `backup`, `restore <file>` and the `recovery-kit` commands of docs/api.md#command-line. None
 * opens the database through connectDatabase: a backup copies it as it is, a restored database is
 * migrated by the next start (which keeps its own copy first), and the kit is the key alone.
 */
export const registerRecoveryCommands: RegisterCommands = (program, cli) => {
  const databaseFile = () => cli.config().databaseFile;
  const location = (): BackupSource => ({ databaseFile: databaseFile(), uploadsDir: uploadsRoot(cli.config().dataDir) });
  const keyFile = () => masterKeyFile(path.dirname(databaseFile()));
  const keyStore = () => cli.io.masterKeyStore ?? new FileMasterKeyStore(keyFile());

  program
    .command('backup')
    .description(
      'back up the database and every uploaded file now (safe while CampusBridge runs) into one file in DATA_DIR/backups, or --out; ' +
        'master.key is not in it (the recovery kit is). With --verify, check a backup instead',
    )
    .option('--out <file>', 'write here instead (a folder gets the usual file name; an existing file is replaced)')
    .option('--verify <file>', 'check a backup: the database intact and of a version this one runs, every uploaded file whole and matching its checksum')
    .action(async (opts: { out?: string; verify?: string }) => {
      if (opts.verify !== undefined) {
        if (opts.out !== undefined) throw new AppError('validation_error', '--verify checks a backup and --out makes one: give one of them.');
        const file = path.resolve(opts.verify);
        if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new AppError('not_found', `No file at ${file}.`);
        const { migrations, files } = await verifyCampusBridgeDatabase(file);
        cli.print({
          file,
          database: 'ok',
          migrations: migrations.length,
          files: files
            ? { held: files.files, bytes: files.bytes, missing_when_made: files.missing }
            : 'none: this backup was made before backups held the uploaded files',
        });
        return;
      }
      cli.print(await backupNow(location(), opts.out));
    });
  program
    .command('restore <file>')
    .description(
      'replace the database and the uploaded files with a backup (each file checked against its checksum), after keeping a copy of the current ones in DATA_DIR/backups; ' +
        'CampusBridge must not be running. The next start migrates an older backup forward',
    )
    .action(async (file: string) => cli.print(await restoreDatabase(location(), file)));

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
