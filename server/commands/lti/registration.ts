import { Op } from 'sequelize';
import { hashToken } from '../../crypto/tokens.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { newId, randomToken } from '../../ids.js';
import { outboundRequest } from './outbound.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { AGS_SCORE_SCOPE, NRPS_SCOPE } from './claims.js';
import { toolUrls } from './launch-login.js';
import type { OutboundRules } from './platform-keys.js';
import { addPlatform } from './platforms.js';

/** A registration URL is good for an hour: the admin pastes it into the LMS right away. */
const REGISTRATION_TTL_MS = 60 * 60 * 1000;
const AGS_LINEITEM_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem';
const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration';
const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';

export interface RegistrationUrl {
  url: string;
  expires_at: string;
}

/** A single-use Dynamic Registration URL for the institution (its token's hash stored, valid an hour). */
export async function createRegistrationUrl(db: Database, institutionId: string, publicUrl: string, now = new Date()): Promise<RegistrationUrl> {
  const token = randomToken(40);
  const expiresAt = new Date(now.getTime() + REGISTRATION_TTL_MS);
  await db.models.LtiRegistration.create({
    id: newId('ltr'),
    institution_id: institutionId,
    token_hash: hashToken(token),
    expires_at: expiresAt,
    used_at: null,
    created_at: now,
  });
  return { url: `${publicUrl}/lti/register?token=${token}`, expires_at: expiresAt.toISOString() };
}

const refused = (message: string) => new AppError('validation_error', message);

/** Spends the URL's token (one conditional UPDATE, so it works once, whatever follows) and answers its institution. */
async function claimRegistration(db: Database, token: string, now: Date): Promise<string> {
  const tokenHash = hashToken(token);
  const [claimed] = await db.models.LtiRegistration.update({ used_at: now }, { where: { token_hash: tokenHash, used_at: null, expires_at: { [Op.gt]: now } } });
  const row = claimed === 1 ? await db.models.LtiRegistration.findOne({ where: { token_hash: tokenHash } }) : null;
  if (!row) throw new AppError('forbidden', 'This registration URL is unknown, already used or expired. Make a new one in CampusBridge (Settings → LTI).');
  return row.institution_id;
}

async function getJson(url: string, rules: OutboundRules, what: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const result = await outboundRequest({
    method: 'GET',
    url,
    headers: { Accept: 'application/json', ...headers },
    timeoutMs: rules.timeoutMs,
    privateHosts: rules.privateHosts,
  });
  if (result.status === null) throw refused(`The ${what} could not be read (${result.error}).`);
  if (result.status !== 200) throw refused(`The ${what} answered HTTP ${result.status}.`);
  try {
    const value = JSON.parse(result.body) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to the refusal.
  }
  throw refused(`The ${what} is not a JSON object.`);
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);

export interface PlatformConfiguration {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  registration_endpoint: string;
  product_family_code: string | null;
  messages_supported: string[];
}

/** The platform's OpenID configuration, checked: its issuer shares the configuration URL's origin, and it names every endpoint registration needs. */
export async function readPlatformConfiguration(configurationUrl: string, rules: OutboundRules): Promise<PlatformConfiguration> {
  let origin: string;
  try {
    origin = new URL(configurationUrl).origin;
  } catch {
    throw refused('openid_configuration is not an absolute URL.');
  }
  const config = await getJson(configurationUrl, rules, "platform's OpenID configuration");
  const issuer = text(config.issuer);
  const issuerOrigin = issuer && URL.canParse(issuer) ? new URL(issuer).origin : null;
  if (!issuer || issuerOrigin !== origin) throw refused("The OpenID configuration's issuer is missing or not on the configuration URL's origin.");
  const fields = ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'registration_endpoint'] as const;
  const missing = fields.filter((name) => !text(config[name]));
  if (missing.length > 0) throw refused(`The OpenID configuration lacks ${missing.join(', ')}.`);
  const lti = (config[PLATFORM_CONFIGURATION] ?? {}) as { product_family_code?: unknown; messages_supported?: unknown };
  const messages = Array.isArray(lti.messages_supported) ? lti.messages_supported : [];
  return {
    issuer,
    authorization_endpoint: text(config.authorization_endpoint)!,
    token_endpoint: text(config.token_endpoint)!,
    jwks_uri: text(config.jwks_uri)!,
    registration_endpoint: text(config.registration_endpoint)!,
    product_family_code: text(lti.product_family_code),
    messages_supported: messages.flatMap((message: unknown) => {
      const type = text((message as { type?: unknown } | null)?.type ?? message);
      return type ? [type] : [];
    }),
  };
}

/** The client registration the tool sends (LTI Dynamic Registration 1.0 §3.5, OIDC Dynamic Client Registration). */
export function toolRegistration(publicUrl: string, institutionName: string, deepLinking: boolean) {
  const urls = toolUrls(publicUrl);
  const messages: Array<Record<string, unknown>> = [{ type: 'LtiResourceLinkRequest' }];
  if (deepLinking) messages.push({ type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url });
  return {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: urls.login_url,
    redirect_uris: [urls.launch_url],
    client_name: `CampusBridge (${institutionName})`,
    jwks_uri: urls.jwks_url,
    token_endpoint_auth_method: 'private_key_jwt',
    scope: [AGS_LINEITEM_SCOPE, AGS_SCORE_SCOPE, NRPS_SCOPE].join(' '),
    [TOOL_CONFIGURATION]: {
      domain: new URL(publicUrl).host,
      target_link_uri: urls.launch_url,
      claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
      messages,
    },
  };
}

export interface RegistrationRequest {
  token: string;
  openid_configuration: string;
  registration_token?: string | undefined;
}

/**
 * LTI Dynamic Registration: spends the URL's token, reads the platform's OpenID configuration,
 * registers the tool at its registration endpoint and registers the platform with the client id
 * and deployment id it answered (through `addPlatform`, as `lti platform add`).
 */
export async function completeRegistration(
  db: Database,
  request: RegistrationRequest,
  rules: OutboundRules,
  publicUrl: string,
  now = new Date(),
): Promise<LtiPlatformRow> {
  if (!request.token) throw new AppError('forbidden', 'This registration URL has no token. Make a new one in CampusBridge (Settings → LTI).');
  if (!request.openid_configuration) throw refused('The LMS did not send openid_configuration: open this URL from the LMS’s tool registration.');
  const institutionId = await claimRegistration(db, request.token, now);
  const institution = await db.models.Institution.findByPk(institutionId);
  if (!institution) throw new AppError('forbidden', 'The institution of this registration URL no longer exists.');
  const config = await readPlatformConfiguration(request.openid_configuration, rules);
  const deepLinking = config.messages_supported.length === 0 || config.messages_supported.includes('LtiDeepLinkingRequest');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (request.registration_token) headers.Authorization = `Bearer ${request.registration_token}`;
  const answer = await outboundRequest({
    method: 'POST',
    url: config.registration_endpoint,
    headers,
    body: JSON.stringify(toolRegistration(publicUrl, institution.name, deepLinking)),
    timeoutMs: rules.timeoutMs,
    privateHosts: rules.privateHosts,
  });
  if (answer.status === null) throw refused(`The registration endpoint could not be reached (${answer.error}).`);
  if (answer.status < 200 || answer.status >= 300) throw refused(`The LMS refused the registration (HTTP ${answer.status}).`);
  let registered: Record<string, unknown>;
  try {
    registered = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    throw refused('The registration endpoint did not answer JSON.');
  }
  const clientId = text(registered?.client_id);
  const toolConfig = (registered?.[TOOL_CONFIGURATION] ?? {}) as { deployment_id?: unknown };
  const deploymentId = text(toolConfig.deployment_id);
  if (!clientId) throw refused('The registration answer has no client_id.');
  if (!deploymentId) throw refused('The registration answer has no deployment_id.');
  return addPlatform(new Tenant(db, institutionId), {
    name: config.product_family_code ?? '',
    issuer: config.issuer,
    client_id: clientId,
    deployment_ids: [deploymentId],
    auth_url: config.authorization_endpoint,
    token_url: config.token_endpoint,
    jwks_url: config.jwks_uri,
  });
}
