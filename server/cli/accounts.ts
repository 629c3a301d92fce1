import { CommanderError } from 'commander';
import { findAccountByEmail, listAccounts, setAccountPassword } from '../commands/accounts/accounts.js';
import { inviteInstitutionAdmin } from '../commands/accounts/institution-admins.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import type { CliContext, RegisterCommands } from './context.js';

/** Where `account password` takes the new password from: the environment, else a prompt on a terminal. */
export const PASSWORD_ENV = 'CAMPUSBRIDGE_PASSWORD';

/** Neither the variable nor a terminal to ask on: a usage error (exit 2), as a missing option would be. */
async function newPasswordFrom(cli: CliContext): Promise<string> {
  const fromEnv = cli.io.env[PASSWORD_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (cli.io.readSecret) return cli.io.readSecret('New password (at least 10 characters): ');
  cli.io.stderr(`error: set ${PASSWORD_ENV} to the new password, or run this on a terminal to be asked for it\n`);
  throw new CommanderError(2, 'campusbridge.noPassword', `${PASSWORD_ENV} is not set and there is no terminal to ask on`);
}

/** The `account` commands and `institution invite-admin` of docs/api.md#command-line. */
export const registerAccountsCommands: RegisterCommands = (program, cli) => {
  const account = program.command('account').description('portal accounts: the operator, institution admins and developers');
  account
    .command('list')
    .description('every account with each role it holds: {items: [{email, role, institution_id, status}]}')
    .option('--institution <id>', "only this institution's members")
    .action(async (opts: { institution?: string }) => {
      const lines = await listAccounts(await cli.database(), { institutionId: opts.institution });
      cli.print({
        items: lines.map((line) => ({ email: line.account.email, role: line.role, institution_id: line.institutionId, status: line.status })),
      });
    });
  account
    .command('password')
    .description(`set an account's password (at least 10 characters) from ${PASSWORD_ENV}, or asked on a terminal; its sessions end`)
    .requiredOption('--email <email>', "the account's sign-in email")
    .action(async (opts: { email: string }) => {
      const db = await cli.database();
      const found = await findAccountByEmail(db, opts.email);
      await setAccountPassword(db, found, await newPasswordFrom(cli));
      cli.print({ email: found.email });
    });

  const institution = program.commands.find((command) => command.name() === 'institution');
  if (!institution) throw new Error('the institution command must be registered before the account commands');
  institution
    .command('invite-admin <id>')
    .description("invite the institution's admin: a link on public_url, valid 7 days (an existing account joins with its own password)")
    .requiredOption('--email <email>', "the admin's email")
    .action(async (id: string, opts: { email: string }) => {
      const db = await cli.database();
      const sent = await inviteInstitutionAdmin(db, {
        institutionId: id,
        email: opts.email,
        invitedBy: null,
        portalUrl: await readApplianceSetting(db, cli.config(), 'public_url'),
      });
      cli.print({ invite_url: sent.link, expires_at: sent.invitation.expires_at.toISOString() });
    });
};
