import { Op } from 'sequelize';
import { hashToken } from '../../crypto/tokens.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, validationError } from '../../errors.js';
import { newId, randomToken } from '../../ids.js';
import { storageTargetOf } from './frame.js';

/** A login initiation's state and nonce live 10 minutes: the platform's sign-in page sits between the two requests. */
const LOGIN_STATE_TTL_MS = 10 * 60 * 1000;
export interface ToolUrls {
  login_url: string;
  launch_url: string;
  jwks_url: string;
  deep_linking_url: string;
}

export const toolUrls = (publicUrl: string): ToolUrls => ({
  login_url: `${publicUrl}/lti/login`,
  launch_url: `${publicUrl}/lti/launch`,
  jwks_url: `${publicUrl}/lti/jwks`,
  // One endpoint takes both message types (the message_type claim tells them apart).
  deep_linking_url: `${publicUrl}/lti/launch`,
});

export const refused = (reason: string) => new AppError('LAUNCH_TOKEN_INVALID', `The LTI launch was refused: ${reason}.`);

export interface LoginInitiation {
  iss?: string | undefined;
  login_hint?: string | undefined;
  target_link_uri?: string | undefined;
  lti_message_hint?: string | undefined;
  client_id?: string | undefined;
  lti_deployment_id?: string | undefined;
  /** LTI Platform Storage: the frame the platform answers `lti.put_data`/`lti.get_data` in. */
  lti_storage_target?: string | undefined;
}

/**
 * OIDC third-party login initiation (LTI 1.3 Core §5.1.1): checks who is asking, stores a state and
 * a nonce (the state's hash only) and answers the platform's authorization URL to redirect to.
 * The state travels through the platform and back, so the launch needs no cookie: a launch inside
 * an iframe works where the browser blocks third-party cookies (Safari).
 */
export async function beginLogin(db: Database, request: LoginInitiation, publicUrl: string, now = new Date()): Promise<string> {
  const missing = (['iss', 'login_hint', 'target_link_uri'] as const).filter((name) => !request[name]);
  if (missing.length > 0) throw validationError(missing.map((name) => ({ path: name, message: 'Required by OIDC login initiation.' })));
  const where = request.client_id ? { issuer: request.iss!, client_id: request.client_id } : { issuer: request.iss! };
  const platforms = await db.models.LtiPlatform.findAll({ where, limit: 2 });
  if (platforms.length === 0) throw validationError([{ path: 'iss', message: 'No platform with this issuer (and client id) is registered.' }]);
  if (platforms.length > 1)
    throw validationError([{ path: 'client_id', message: 'Several platforms share this issuer: the login initiation must name client_id.' }]);
  const platform = platforms[0]!;
  if (request.lti_deployment_id && !platform.deployment_ids.includes(request.lti_deployment_id)) {
    throw validationError([{ path: 'lti_deployment_id', message: 'This deployment id is not registered for the platform.' }]);
  }
  // Spent and expired states are of no use after their 10 minutes: each login clears the old ones (indexed on expires_at).
  await db.models.LtiLoginState.destroy({ where: { expires_at: { [Op.lt]: new Date(now.getTime() - LOGIN_STATE_TTL_MS) } } });
  const state = randomToken(40);
  const nonce = randomToken(40);
  await new Tenant(db, platform.institution_id).ltiLoginStates.create({
    id: newId('lts'),
    platform_id: platform.id,
    state_hash: hashToken(state),
    nonce,
    storage_target: storageTargetOf(request.lti_storage_target),
    expires_at: new Date(now.getTime() + LOGIN_STATE_TTL_MS),
    used_at: null,
    created_at: now,
  });
  const target = new URL(platform.auth_url);
  const params: Record<string, string> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: platform.client_id,
    redirect_uri: toolUrls(publicUrl).launch_url,
    login_hint: request.login_hint!,
    state,
    nonce,
  };
  if (request.lti_message_hint) params.lti_message_hint = request.lti_message_hint;
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}
