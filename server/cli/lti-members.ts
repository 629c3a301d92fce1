import type { Command } from 'commander';
import { findInstitution } from '../commands/institutions/institutions.js';
import { findMembersLink, listMembersRuns, membersRunResult, syncContextMembers } from '../commands/lti/nrps.js';
import { Tenant } from '../db/tenant.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import type { CliContext } from './context.js';

/** `lti members …` (docs/lms.md#names-and-role-provisioning-class-lists-from-the-lms): a link's class list from the LMS, on demand. */
export function registerLtiMembersCommands(lti: Command, cli: CliContext): void {
  const members = lti.command('members').description("an LTI link's class list (Names and Role Provisioning): fills the linked exam's group");
  members
    .command('sync')
    .description("read the course's members from the LMS and make the exam's group match; held back (nothing changed) past the guard unless --confirm")
    .requiredOption('--institution <id>', 'institution id')
    .requiredOption('--link <id>', "the link's id (ltl_…) or the LMS's resource link id")
    .option('--dry-run', 'show what would change; change nothing')
    .option('--confirm', 'apply a sync the guard would hold back')
    .action(async (opts: { institution: string; link: string; dryRun?: boolean; confirm?: boolean }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      const rules = { privateHosts: await readApplianceSetting(db, cli.config(), 'outbound_private_hosts'), timeoutMs: cli.config().webhooks.timeoutMs };
      cli.print(await syncContextMembers(db, institution.id, opts.link, { trigger: 'cli', dryRun: opts.dryRun, confirm: opts.confirm, rules }));
    });
  members
    .command('runs')
    .description("the link's newest class list syncs with their outcomes")
    .requiredOption('--institution <id>', 'institution id')
    .requiredOption('--link <id>', "the link's id (ltl_…) or the LMS's resource link id")
    .action(async (opts: { institution: string; link: string }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      const tenant = new Tenant(db, institution.id);
      const link = await findMembersLink(tenant, opts.link);
      cli.print({ items: (await listMembersRuns(tenant, link.id)).map(membersRunResult) });
    });
}
