import fs from 'node:fs';
import { Option } from 'commander';
import { findInstitution } from '../commands/institutions/institutions.js';
import { saveConnection } from '../commands/oneroster/connections.js';
import { CSV_ZIP_LIMITS } from '../commands/oneroster/csv.js';
import { importRosterCsv, syncRoster } from '../commands/oneroster/sync.js';
import { Tenant } from '../db/tenant.js';
import { validationError } from '../errors.js';
import type { RegisterCommands } from './context.js';

/** The zip's bytes; a file that cannot be read, or is over the limit, is a validation error naming it. */
function readZip(file: string): Buffer {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw validationError([{ path: 'zip', message: `Cannot read ${file}: ${(error as Error).message}` }]);
  }
  if (size > CSV_ZIP_LIMITS.zipBytes) throw validationError([{ path: 'zip', message: `${file} is larger than ${CSV_ZIP_LIMITS.zipBytes / 1024 / 1024} MB.` }]);
  return fs.readFileSync(file);
}

/** The `oneroster` commands (docs/lms.md#oneroster): connect an institution to its SIS, and sync its roster. */
export const registerOneRosterCommands: RegisterCommands = (program, cli) => {
  const group = program.command('oneroster').description("OneRoster roster sync from the institution's SIS (docs/lms.md#oneroster)");
  group
    .command('connect')
    .description('connect an institution to its SIS (or change the connection); the client secret is read from an environment variable')
    .requiredOption('--institution <id>', 'institution id')
    .requiredOption('--url <base url>', "the SIS's OneRoster base URL (the version's path, /ims/oneroster/…, is added)")
    .requiredOption('--client-id <id>', 'OAuth 2 client id')
    .requiredOption('--client-secret-env <VAR>', 'the environment variable holding the client secret (never a command-line argument)')
    .option('--token-url <url>', 'OAuth 2 token endpoint (default: <url>/token)')
    .addOption(new Option('--version <version>', 'OneRoster version').choices(['1.2', '1.1']).default('1.2'))
    .addOption(new Option('--auth <method>', 'client authentication at the token endpoint').choices(['basic', 'form']).default('basic'))
    .option('--scopes <scopes>', "space-separated scopes (default: the version's roster read-only scope)")
    .action(
      async (opts: {
        institution: string;
        url: string;
        clientId: string;
        clientSecretEnv: string;
        tokenUrl?: string;
        version: '1.2' | '1.1';
        auth: 'basic' | 'form';
        scopes?: string;
      }) => {
        const secret = cli.io.env[opts.clientSecretEnv];
        if (!secret) throw validationError([{ path: 'client-secret-env', message: `The environment variable ${opts.clientSecretEnv} is not set or empty.` }]);
        const db = await cli.database();
        const institution = await findInstitution(db, opts.institution);
        const connection = await saveConnection(new Tenant(db, institution.id), {
          url: opts.url,
          version: opts.version,
          token_url: opts.tokenUrl ?? null,
          client_id: opts.clientId,
          client_secret: secret,
          auth_method: opts.auth,
          scopes: opts.scopes ?? null,
        });
        cli.print({ id: connection.id, url: connection.url });
      },
    );
  group
    .command('sync')
    .description('sync the roster now: prints what was created, updated and suspended; held back (nothing changed) past the guard unless --confirm')
    .requiredOption('--institution <id>', 'institution id')
    .option('--dry-run', 'show what would change; change nothing')
    .option('--confirm', 'apply a sync the guard would hold back')
    .option('--full', 'a full sync even when a delta (dateLastModified) sync is possible')
    .action(async (opts: { institution: string; dryRun?: boolean; confirm?: boolean; full?: boolean }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      cli.print(await syncRoster(db, cli.config(), institution.id, { trigger: 'cli', dryRun: opts.dryRun, confirm: opts.confirm, full: opts.full }));
    });
  group
    .command('import')
    .description(
      'import a OneRoster CSV zip (manifest.csv, users.csv, classes.csv, enrollments.csv…; 1.1 or 1.2, bulk or delta): prints what `sync` prints; held back past the guard unless --confirm',
    )
    .argument('<zip>', 'the zip the SIS exported')
    .requiredOption('--institution <id>', 'institution id')
    .option('--dry-run', 'show what would change; change nothing')
    .option('--confirm', 'apply an import the guard would hold back')
    .action(async (zip: string, opts: { institution: string; dryRun?: boolean; confirm?: boolean }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      const bytes = readZip(zip);
      cli.print(await importRosterCsv(db, institution.id, new Uint8Array(bytes), { trigger: 'cli_csv', dryRun: opts.dryRun, confirm: opts.confirm }));
    });
};
