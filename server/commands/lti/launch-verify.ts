import type * as Jose from 'jose';
import type { JWTPayload } from 'jose';
import { Op } from 'sequelize';
import { hashToken } from '../../crypto/tokens.js';
import type { Database } from '../../db/index.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { loadJose } from './jose.js';
import { CLAIM, deepLinkReturnUrl, LTI_VERSION } from './claims.js';
import { platformKeys, type OutboundRules } from './platform-keys.js';
import { refused } from './launch-login.js';

/** Seconds of clock difference tolerated between the platform and the appliance on exp and iat. */
const CLOCK_TOLERANCE_SECONDS = 60;
/** An id_token issued longer ago than this is refused even if its exp is later. */
const MAX_TOKEN_AGE_SECONDS = 10 * 60;
/** Spends a login state: one conditional UPDATE decides, so a state (and its nonce) works once. */
async function claimState(db: Database, state: string, now: Date) {
  const stateHash = hashToken(state);
  const [claimed] = await db.models.LtiLoginState.update({ used_at: now }, { where: { state_hash: stateHash, used_at: null, expires_at: { [Op.gt]: now } } });
  if (claimed !== 1) throw refused('the state is unknown, already used or expired (start the launch again from the LMS)');
  const row = await db.models.LtiLoginState.findOne({ where: { state_hash: stateHash } });
  if (!row) throw refused('the state is unknown');
  return row;
}

function describeJoseError(error: unknown, kid: string | undefined, joseErrors: typeof Jose.errors): string {
  if (error instanceof joseErrors.JWTExpired) return 'the id_token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the id_token is not addressed to this tool (aud is not the client id)';
    if (error.claim === 'iss') return "the id_token's issuer is not the platform's";
    if (error.claim === 'iat') return 'the id_token was issued too long ago or in the future';
    return `the id_token's ${error.claim} claim is not valid (${error.reason})`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) return `no key of the platform has the id_token's kid ${kid ?? '(none)'}`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "the id_token's signature does not verify with the platform's key";
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return "the platform's key set could not be read";
  if (error instanceof joseErrors.JOSEError) return `the id_token is not valid (${error.code})`;
  if (error instanceof Error && /key set/.test(error.message)) return error.message;
  return 'the id_token could not be verified';
}

export interface VerifiedLaunch {
  platform: LtiPlatformRow;
  claims: JWTPayload & Record<string, unknown>;
  messageType: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';
  /** Where the platform offers LTI Platform Storage, from the login initiation; null when it does not. */
  storageTarget: string | null;
}

/**
 * The id_token's full check (LTI 1.3 Core §5.1.3, OIDC Core §3.1.3.7): the state (single-use,
 * unexpired) names the platform; the signature verifies with the platform's keys (refetched once
 * on an unknown kid); iss is the platform, aud holds the client id (azp too when several
 * audiences), exp and iat hold, the nonce is the state's, the deployment is registered, and the
 * message type and version are LTI 1.3's.
 */
export async function verifyLaunch(db: Database, idToken: string, state: string, rules: OutboundRules, now = new Date()): Promise<VerifiedLaunch> {
  if (!state) throw refused('the state is missing');
  if (!idToken) throw refused('the id_token is missing');
  const loginState = await claimState(db, state, now);
  const platform = await db.models.LtiPlatform.findByPk(loginState.platform_id);
  if (!platform) throw refused('the platform is no longer registered');
  const { decodeProtectedHeader, errors: joseErrors, jwtVerify } = await loadJose();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(idToken).kid;
  } catch {
    throw refused('the id_token is not a JWT');
  }
  // LTI 1.3 Core §6.1 (via the Security Framework §5.1.3): the header names the signing key; trying each key instead is what certification refuses.
  if (typeof kid !== 'string' || kid === '') throw refused("the id_token's header has no kid (the platform must name the key that signed it)");
  let claims: JWTPayload & Record<string, unknown>;
  try {
    const getKey = await platformKeys(db, platform, rules);
    const verified = await jwtVerify(idToken, getKey, {
      issuer: platform.issuer,
      audience: platform.client_id,
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      requiredClaims: ['exp', 'iat', 'nonce', 'sub'],
      currentDate: now,
    });
    claims = verified.payload as JWTPayload & Record<string, unknown>;
  } catch (error) {
    throw refused(describeJoseError(error, kid, joseErrors));
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.azp !== undefined && claims.azp !== platform.client_id) throw refused('azp is not the client id');
  if (audiences.length > 1 && claims.azp === undefined) throw refused('several audiences and no azp');
  if (claims.nonce !== loginState.nonce) throw refused('the nonce is not the one of this login (a replayed id_token)');
  if (typeof claims.sub !== 'string' || claims.sub.trim() === '') throw refused('the id_token names no user (sub is empty)');
  const deploymentId = claims[CLAIM.deploymentId];
  if (deploymentId === undefined) throw refused('the id_token has no deployment id claim');
  if (typeof deploymentId !== 'string' || !platform.deployment_ids.includes(deploymentId))
    throw refused('the deployment id is not registered for this platform');
  const version = claims[CLAIM.version];
  if (version === undefined) throw refused('the id_token has no LTI version claim');
  if (version !== LTI_VERSION) throw refused(`the LTI version is not ${LTI_VERSION}`);
  const messageType = claims[CLAIM.messageType];
  if (messageType === undefined) throw refused('the id_token has no message type claim');
  if (messageType !== 'LtiResourceLinkRequest' && messageType !== 'LtiDeepLinkingRequest') throw refused('the message type is not one this tool handles');
  // Required by LTI 1.3 Core §5.3.7 even when empty: a launch for no one in particular is still a launch "with no role".
  if (!Array.isArray(claims[CLAIM.roles])) throw refused('the id_token has no roles claim (an empty list is allowed, a missing claim is not)');
  if (messageType === 'LtiResourceLinkRequest') {
    const resource = claims[CLAIM.resourceLink] as { id?: unknown } | undefined;
    if (typeof resource?.id !== 'string' || resource.id === '') throw refused('the resource link claim has no id');
  } else deepLinkReturnUrl(claims);
  return { platform, claims, messageType, storageTarget: loginState.storage_target ?? null };
}
