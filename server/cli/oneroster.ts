import { Option } from 'commander';
import { findInstitution } from '../commands/institutions.js';
import { saveConnection } from '../commands/oneroster/connections.js';
import { syncRoster } from '../commands/oneroster/sync.js';
import { Tenant } from '../db/tenant.js';
import { validationError } from '../errors.js';
import type { RegisterCommands } from './context.js';

/** The `oneroster` commands of contract §12: connect an institution to its SIS, and sync its roster. */
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
};
