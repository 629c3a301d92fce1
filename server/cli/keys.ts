import { Option } from 'commander';
import {
  createApiKey,
  DEFAULT_ROLL_OVERLAP_HOURS,
  institutionOfKey,
  listApiKeys,
  MAX_KEY_LIFETIME_DAYS,
  MAX_ROLL_OVERLAP_HOURS,
  revokeApiKey,
  rollApiKey,
} from '../commands/institutions/api-keys.js';
import { findInstitution } from '../commands/institutions/institutions.js';
import { ensureSandbox } from '../commands/institutions/sandbox.js';
import { Tenant } from '../db/tenant.js';
import { notFound } from '../errors.js';
import { presentApiKey, presentCreatedApiKey, presentRolledApiKey } from '../presenters/api-key.js';
import type { RegisterCommands } from './context.js';

/** `key create|roll|revoke|list`: an institution's API keys; each change is in its audit log. */
export const registerKeyCommands: RegisterCommands = (program, cli) => {
  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--institution <id>', 'institution id')
    .requiredOption('--name <label>', 'label for the key')
    .requiredOption('--scopes <list>', 'comma-separated scopes, or "all"')
    .addOption(new Option('--rate-limit <n>', 'requests per minute, 10 to 6000').default('600'))
    .option('--sandbox', "a sandbox key (cb_test_…): it acts on the institution's sandbox, never on live data")
    .option('--expires <date>', `when the key stops working, ISO 8601 (e.g. 2027-06-30T00:00:00Z), at most ${MAX_KEY_LIFETIME_DAYS} days ahead`)
    .action(async (opts: { institution: string; name: string; scopes: string; rateLimit: string; sandbox?: boolean; expires?: string }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      // A sandbox is reached through its live institution's sandbox keys, never named itself.
      if (institution.sandbox_of) throw notFound('institution');
      if (opts.sandbox) await ensureSandbox(db, institution.id);
      const { row, key: fullKey } = await createApiKey(new Tenant(db, opts.institution), {
        name: opts.name,
        scopes: opts.scopes.split(','),
        rate_limit_per_min: Number(opts.rateLimit),
        environment: opts.sandbox ? 'sandbox' : 'live',
        expires_at: opts.expires ?? null,
      });
      await cli.audit(institution.id, 'key create', 'Create an API key', { key_id: row.id });
      cli.print(presentCreatedApiKey(row, fullKey));
    });
  key
    .command('roll <key_id>')
    .description('a new key with the same name, scopes, rate limit and lifetime; the old one keeps working for --overlap hours')
    .addOption(new Option('--overlap <hours>', `hours both keys work, 0 to ${MAX_ROLL_OVERLAP_HOURS}`).default(String(DEFAULT_ROLL_OVERLAP_HOURS)))
    .action(async (keyId: string, opts: { overlap: string }) => {
      const db = await cli.database();
      // Digits only: Number('') would be 0 and end the old key at once.
      const overlapHours = /^\d{1,9}$/.test(opts.overlap) ? Number(opts.overlap) : Number.NaN;
      const institutionId = await institutionOfKey(db, keyId);
      const rolled = presentRolledApiKey(await rollApiKey(new Tenant(db, institutionId), keyId, { overlap_hours: overlapHours }));
      await cli.audit(institutionId, 'key roll', 'Roll an API key', { key_id: keyId, new_key_id: rolled.key_id });
      cli.print(rolled);
    });
  key.command('revoke <key_id>').action(async (keyId: string) => {
    const db = await cli.database();
    const institutionId = await institutionOfKey(db, keyId);
    const revoked = presentApiKey(await revokeApiKey(new Tenant(db, institutionId), keyId));
    await cli.audit(institutionId, 'key revoke', 'Revoke an API key', { key_id: keyId });
    cli.print(revoked);
  });
  key
    .command('list')
    .requiredOption('--institution <id>', 'institution id')
    .action(async (opts: { institution: string }) => {
      const db = await cli.database();
      await findInstitution(db, opts.institution);
      cli.print((await listApiKeys(new Tenant(db, opts.institution))).map(presentApiKey));
    });
};
