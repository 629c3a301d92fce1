import fs from 'node:fs';
import { addPlatform, linkResourceLink, platformTenant, updatePlatform } from '../commands/lti/platforms.js';
import { toolConfig } from '../commands/lti/tool-config.js';
import { DEFAULT_KEY_GRACE_SECONDS, rotateToolKey } from '../commands/lti/tool-keys.js';
import { findInstitution } from '../commands/institutions/institutions.js';
import { Tenant } from '../db/tenant.js';
import { AppError } from '../errors.js';
import { readApplianceSetting } from '../settings/appliance-settings.js';
import type { RegisterCommands } from './context.js';
import { registerLtiMembersCommands } from './lti-members.js';

/** The text of a public key file, or `validation_error` naming the file. */
function readPublicKey(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    throw new AppError('validation_error', `The public key file ${file} cannot be read.`);
  }
}

/** The `lti` commands (docs/lms.md#lti-13): the tool's side, platforms, links, key rotation. */
export const registerLtiCommands: RegisterCommands = (program, cli) => {
  const lti = program.command('lti').description('LTI 1.3: the tool side to paste into an LMS, registered platforms, resource links');

  lti
    .command('tool-config')
    .description("the tool's URLs and public key on public_url, to paste into the LMS")
    .requiredOption('--institution <id>', 'institution id')
    .action(async (opts: { institution: string }) => {
      const db = await cli.database();
      const institution = await findInstitution(db, opts.institution);
      const publicUrl = await readApplianceSetting(db, cli.config(), 'public_url');
      const config = await toolConfig(db, new Tenant(db, institution.id), publicUrl);
      cli.print({
        login_url: config.login_url,
        launch_url: config.launch_url,
        redirect_urls: config.redirect_urls,
        jwks_url: config.jwks_url,
        public_jwk: config.public_jwk,
        deep_linking_url: config.deep_linking_url,
      });
    });

  const platform = lti.command('platform').description('LMS platforms of an institution');
  platform
    .command('add')
    .description('register an LMS: its issuer, client id, deployment and endpoints, and its key set URL or public key')
    .requiredOption('--institution <id>', 'institution id')
    .requiredOption('--issuer <url>', "the platform's issuer (iss)")
    .requiredOption('--client-id <id>', 'the client id the LMS gave this tool')
    .requiredOption('--deployment-id <id>', 'deployment id (comma-separated for several)')
    .requiredOption('--auth-url <url>', "the platform's OIDC authorization URL")
    .requiredOption('--token-url <url>', "the platform's OAuth2 token URL (for grades)")
    .option('--jwks-url <url>', "the platform's key set URL")
    .option('--public-key <file>', "a file with the platform's public key (PEM or JWK), when its key set cannot be reached")
    .option('--name <name>', 'a label for the portal')
    .option('--provision', 'create unknown users at launch (Learner → student, Instructor → faculty) instead of refusing them')
    .option('--frame-origin <origins>', "origins that may frame the tool besides the issuer's and the sign-in URL's (comma-separated)")
    .action(
      async (opts: {
        institution: string;
        issuer: string;
        clientId: string;
        deploymentId: string;
        authUrl: string;
        tokenUrl: string;
        jwksUrl?: string;
        publicKey?: string;
        name?: string;
        provision?: boolean;
        frameOrigin?: string;
      }) => {
        if (Boolean(opts.jwksUrl) === Boolean(opts.publicKey)) {
          throw new AppError('validation_error', 'Give exactly one of --jwks-url and --public-key.');
        }
        const publicKey = opts.publicKey ? readPublicKey(opts.publicKey) : null;
        const db = await cli.database();
        const institution = await findInstitution(db, opts.institution);
        const row = await addPlatform(new Tenant(db, institution.id), {
          name: opts.name,
          issuer: opts.issuer,
          client_id: opts.clientId,
          deployment_ids: opts.deploymentId.split(','),
          auth_url: opts.authUrl,
          token_url: opts.tokenUrl,
          jwks_url: opts.jwksUrl ?? null,
          public_key: publicKey,
          provision_users: opts.provision === true,
          frame_origins: opts.frameOrigin?.split(','),
        });
        cli.print({ id: row.id, issuer: row.issuer, client_id: row.client_id, provision_users: row.provision_users });
      },
    );

  platform
    .command('update')
    .description('change a registered platform in place, keeping its links, LMS subjects and score posts')
    .argument('<id>', 'platform id (ltp_…)')
    .option('--name <name>', 'a label for the portal')
    .option('--deployment-id <id>', 'deployment ids, replacing the old ones (comma-separated for several)')
    .option('--auth-url <url>', "the platform's OIDC authorization URL")
    .option('--token-url <url>', "the platform's OAuth2 token URL")
    .option('--jwks-url <url>', "the platform's key set URL (drops a pasted key)")
    .option('--public-key <file>', "a file with the platform's public key, PEM or JWK (drops the key set URL)")
    .option('--provision', 'create unknown users at launch')
    .option('--no-provision', 'refuse unknown users at launch (404 user_not_found)')
    .option(
      '--frame-origin <origins>',
      "origins that may frame the tool besides the issuer's and the sign-in URL's, replacing the old ones (comma-separated; '' for none)",
    )
    .action(
      async (
        id: string,
        opts: {
          name?: string;
          deploymentId?: string;
          authUrl?: string;
          tokenUrl?: string;
          jwksUrl?: string;
          publicKey?: string;
          provision?: boolean;
          frameOrigin?: string;
        },
      ) => {
        if (opts.jwksUrl && opts.publicKey) throw new AppError('validation_error', 'Give at most one of --jwks-url and --public-key.');
        const { tenant } = await platformTenant(await cli.database(), id);
        const row = await updatePlatform(tenant, id, {
          name: opts.name,
          deployment_ids: opts.deploymentId?.split(','),
          auth_url: opts.authUrl,
          token_url: opts.tokenUrl,
          ...(opts.jwksUrl ? { jwks_url: opts.jwksUrl } : {}),
          ...(opts.publicKey ? { public_key: readPublicKey(opts.publicKey) } : {}),
          provision_users: opts.provision,
          frame_origins: opts.frameOrigin?.split(',').filter(Boolean),
        });
        cli.print({ id: row.id, name: row.name, deployment_ids: row.deployment_ids, jwks_url: row.jwks_url, provision_users: row.provision_users });
      },
    );

  lti
    .command('link')
    .description("link a resource link of a platform (the LMS's resource_link id) to an exam")
    .requiredOption('--platform <id>', 'platform id')
    .requiredOption('--resource-link-id <id>', "the LMS's resource link id")
    .requiredOption('--exam <exam id>', 'exam id of the same institution')
    .action(async (opts: { platform: string; resourceLinkId: string; exam: string }) => {
      const { platform: row, tenant } = await platformTenant(await cli.database(), opts.platform);
      const link = await linkResourceLink(tenant, row.id, opts.resourceLinkId, opts.exam);
      cli.print({ platform_id: link.platform_id, resource_link_id: link.resource_link_id, exam_id: link.exam_id });
    });

  lti
    .command('rotate-key')
    .description('a new signing key for the tool (new kid); the old stays in the key set for the grace period')
    .option('--grace-days <n>', 'days the old key stays in the key set', String(DEFAULT_KEY_GRACE_SECONDS / 86400))
    .action(async (opts: { graceDays: string }) => {
      const days = Number(opts.graceDays);
      if (!Number.isFinite(days) || days < 0 || days > 365) throw new AppError('validation_error', '--grace-days must be 0 to 365.');
      cli.print(await rotateToolKey(await cli.database(), Math.round(days * 86400)));
    });

  registerLtiMembersCommands(lti, cli);
};
