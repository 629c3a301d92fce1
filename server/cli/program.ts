import { Command, CommanderError } from 'commander';
import { createCurriculum, publishCurriculum } from '../commands/alpha/curricula.js';
import { approveBatch, rejectBatch } from '../commands/wallet/coupons.js';
import { seedDemo } from '../commands/demo/seed.js';
import { generateWeeklyReports } from '../commands/people/guardian-reports.js';
import { createInstitution, findInstitution, listInstitutions, setInstitutionStatus } from '../commands/institutions/institutions.js';
import { readAllowance, setAllowance } from '../commands/wallet/merits.js';
import { runSetup } from '../commands/accounts/setup.js';
import { loadConfig } from '../config.js';
import { connectDatabase, databaseLocation, type Database, type DatabaseLocation } from '../db/index.js';

import { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import { clearSmtpSettings, getSmtpSettings, setSmtpSettings } from '../mail/smtp-settings.js';
import { presentAccount } from '../presenters/account.js';
import { presentCurriculum } from '../presenters/alpha.js';
import { presentBatch } from '../presenters/coupon.js';
import { presentInstitutionSummary } from '../presenters/institution.js';
import { recordCommandLineAction } from '../commands/institutions/audit-log.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import { registerAccountsCommands } from './accounts.js';
import type { CliContext, CliIo } from './context.js';
import { registerJobsCommands } from './jobs.js';
import { registerKeyCommands } from './keys.js';
import { registerLtiCommands } from './lti.js';
import { registerMigrateCommands } from './migrate.js';
import { registerOneRosterCommands } from './oneroster.js';
import { registerRecoveryCommands } from './recovery.js';
import { registerSettingsCommands } from './settings.js';

/** The CLI's PostgreSQL connections carry a name of their own, so a running appliance is told from the CLI itself. */
const cliLocation = (location: DatabaseLocation): DatabaseLocation =>
  typeof location === 'string' ? location : { ...location, applicationName: 'campusbridge-cli' };

export type { CliIo } from './context.js';

const USAGE_ERROR = 2;

/**
 * The command line works on DATA_DIR directly, through the same commands as the API. Each
 * command prints one JSON value; a failure prints one line with its error code (docs/api.md#error-codes).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let db: Database | null = null;
  const database = async () => (db ??= await connectDatabase(cliLocation(databaseLocation(loadConfig(io.env))), io.masterKeyStore));
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  /** A change the command made, in the school's audit log beside the portal's (server/portal/audit-log.ts). */
  const audit = async (institutionId: string | null, command: string, description: string, target: Record<string, string>) =>
    recordCommandLineAction(await database(), { institutionId, command, description, target }, io.stderr);

  const program = new Command('campusbridge')
    .description('CampusBridge appliance command line')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  program
    .command('setup')
    .description('first run: operator account, one approved institution and its admin')
    .requiredOption('--institution <name>', 'institution name')
    .requiredOption('--admin-email <email>', 'admin sign-in email')
    .requiredOption('--admin-password <password>', 'admin password (10 characters or more)')
    .action(async (opts: { institution: string; adminEmail: string; adminPassword: string }) => {
      const { institution, admin } = await runSetup(await database(), {
        institution: opts.institution,
        admin_email: opts.adminEmail,
        admin_password: opts.adminPassword,
      });
      print({ institution: presentInstitutionSummary(institution), admin: presentAccount(admin) });
    });

  const institution = program.command('institution').description('institutions on this appliance');
  institution
    .command('create')
    .requiredOption('--name <name>', 'institution name')
    .option('--approve', 'approve it at once', false)
    .action(async (opts: { name: string; approve: boolean }) => {
      print(presentInstitutionSummary(await createInstitution(await database(), { name: opts.name, approve: opts.approve })));
    });
  institution
    .command('approve <id>')
    .description('approve a pending or suspended institution; its keys work again')
    .action(async (id: string) => {
      const approved = await setInstitutionStatus(await database(), id, 'approved');
      await audit(approved.id, 'institution approve', 'Approve an institution', { id: approved.id });
      print(presentInstitutionSummary(approved));
    });
  institution
    .command('suspend <id>')
    .description('suspend an institution: every key answers 401 invalid_api_key, webhooks wait')
    .action(async (id: string) => {
      const suspended = await setInstitutionStatus(await database(), id, 'suspended');
      await audit(suspended.id, 'institution suspend', 'Suspend an institution', { id: suspended.id });
      print(presentInstitutionSummary(suspended));
    });
  institution.command('list').action(async () => print((await listInstitutions(await database())).map(presentInstitutionSummary)));

  const smtp = program.command('smtp').description('the outgoing mail server (the password is never printed)');
  smtp
    .command('set')
    .description('configure the mail server; without --password a stored password is kept (for the same user)')
    .requiredOption('--host <host>', 'SMTP host name or IP address')
    .requiredOption('--port <n>', 'SMTP port, for example 587 or 465')
    .option('--secure', 'TLS from the first byte (port 465); otherwise STARTTLS when offered', false)
    .option('--user <user>', 'user name, when the server needs one')
    .option('--password <password>', 'password for --user; prefer the SMTP_PASSWORD environment variable, which stays out of the process list')
    .requiredOption('--from <address>', 'sender, for example "Riverside High <noreply@riverside.example>"')
    .action(async (opts: { host: string; port: string; secure: boolean; user?: string; password?: string; from: string }) => {
      print(
        await setSmtpSettings(await database(), {
          host: opts.host,
          port: Number(opts.port),
          secure: opts.secure,
          user: opts.user ?? null,
          password: opts.password ?? io.env.SMTP_PASSWORD,
          from: opts.from,
        }),
      );
    });
  smtp
    .command('show')
    .description('the configured mail server, or null')
    .action(async () => print(await getSmtpSettings(await database())));
  smtp
    .command('clear')
    .description('remove the mail server; mail then waits in the outbox')
    .action(async () => {
      const db = await database();
      await clearSmtpSettings(db);
      print(await getSmtpSettings(db));
    });

  const coupons = program.command('coupons').description('coupon batches requested by institutions (operator role)');
  coupons
    .command('approve <batch_id>')
    .description('approve a pending batch: its codes are generated now and coupon_batch.approved is emitted')
    .action(async (batchId: string) => print(presentBatch(await approveBatch(await database(), batchId))));
  coupons
    .command('reject <batch_id>')
    .description('reject a pending batch; it never gets codes')
    .action(async (batchId: string) => print(presentBatch(await rejectBatch(await database(), batchId))));

  const merits = program.command('merits').description('merit allowances (operator role)');
  merits
    .command('allowance')
    .description('set what an institution may credit in total (never below what it already credited); without --cents, show it')
    .requiredOption('--institution <id>', 'institution id')
    .option('--cents <n>', 'the new total, in whole cents')
    .action(async (opts: { institution: string; cents?: string }) => {
      const db = await database();
      if (opts.cents === undefined) {
        await findInstitution(db, opts.institution);
        print(await readAllowance(new Tenant(db, opts.institution)));
        return;
      }
      // Digits only: "1e3", "12.5" or "" must not slip through Number().
      print(await setAllowance(db, opts.institution, /^\d+$/.test(opts.cents) ? Number(opts.cents) : Number.NaN));
    });

  const curriculum = program.command('curriculum').description('Alpha Learning curricula');
  curriculum
    .command('create')
    .description('a curriculum and its concepts; without --institution it is shared by every institution; a draft unless --publish')
    .requiredOption('--name <name>', 'curriculum name')
    .requiredOption('--concepts <list>', 'comma-separated concept names, in order')
    .option('--description <text>', 'description', '')
    .option('--institution <id>', "only this institution's (default: shared)")
    .option('--publish', 'publish it at once (only published curricula are listed and enrollable)', false)
    .action(async (opts: { name: string; concepts: string; description: string; institution?: string; publish: boolean }) => {
      const created = await createCurriculum(await database(), {
        name: opts.name,
        description: opts.description,
        concepts: opts.concepts.split(',').map((name) => name.trim()),
        institution_id: opts.institution ?? null,
        publish: opts.publish,
      });
      print(presentCurriculum(created));
    });
  curriculum
    .command('publish <id>')
    .description('publish a draft curriculum (a published one is left as it is)')
    .action(async (id: string) => print(presentCurriculum(await publishCurriculum(await database(), id))));

  const reports = program.command('reports').description('weekly guardian reports');
  reports
    .command('generate')
    .description("make last week's reports now (the daily job does it at 06:00 UTC); existing ones are kept")
    .option('--institution <id>', 'only this institution (default: every approved institution)')
    .action(async (opts: { institution?: string }) => {
      print(await generateWeeklyReports(await database(), { institutionId: opts.institution }));
    });

  const demo = program.command('demo').description('demonstration data');
  demo
    .command('seed')
    .description(
      'a new approved institution ("Demo Academy", then "Demo Academy 2", …) with people, groups, exams and submissions, ' +
        'a key with every scope and a portal sign-in for its admin, printed once; existing data is never touched',
    )
    .action(async () => {
      // Links in the queued mails use the public_url setting, as the server would write them.
      const db = await database();
      const config = loadConfig(io.env);
      const portalUrl = await readApplianceSetting(db, config, 'public_url');
      const { institution: created, key: fullKey, admin } = await seedDemo(db, { portalUrl, dataDir: config.dataDir });
      // How to open it in the portal: its admin's email and password, printed once like the key.
      print({
        institution: presentInstitutionSummary(created),
        key: fullKey,
        portal: { url: portalUrl, email: admin.account.email, password: admin.password },
      });
    });

  const cli: CliContext = { io, config: () => loadConfig(io.env), database, print, audit };
  for (const register of [
    registerKeyCommands,
    registerSettingsCommands,
    registerAccountsCommands,
    registerJobsCommands,
    registerRecoveryCommands,
    registerMigrateCommands,
    registerOneRosterCommands,
    registerLtiCommands,
  ])
    register(program, cli);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : USAGE_ERROR;
    }
    if (error instanceof AppError) {
      io.stderr(`error ${error.code}: ${error.message}\n`);
      return 1;
    }
    io.stderr(`error internal_error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    if (db) await (db as Database).close();
  }
}
