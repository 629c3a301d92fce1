import type * as Jose from 'jose';
import type { JWTPayload } from 'jose';
import { Op } from 'sequelize';
import { hashToken } from '../../crypto/tokens.js';
import type { Database } from '../../db/index.js';
import { Tenant, type TenantTx } from '../../db/tenant.js';
import { AppError, validationError } from '../../errors.js';
import { newId, randomToken } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import type { LtiPlatformRow, LtiResourceLinkRow } from '../../models/lti.js';
import type { PersonRow } from '../../models/person.js';
import { loadJose } from './jose.js';
import { normalizeEmail, personalEmail } from '../../validation/people.js';
import { createPerson, updatePerson } from '../people.js';
import { mintLaunchToken } from '../sso.js';
import { CLAIM, deepLinkReturnUrl, isLearner, isTeacher, launchRoles, LTI_VERSION, nameFromClaims, placeholderName } from './claims.js';
import { framedLaunchUrl, storageTargetOf } from './frame.js';
import { afterInstructorLaunch } from './nrps.js';
import { platformKeys, type OutboundRules } from './platform-keys.js';

/** A login initiation's state and nonce live 10 minutes: the platform's sign-in page sits between the two requests. */
const LOGIN_STATE_TTL_MS = 10 * 60 * 1000;
/** Seconds of clock difference tolerated between the platform and the appliance on exp and iat. */
const CLOCK_TOLERANCE_SECONDS = 60;
/** An id_token issued longer ago than this is refused even if its exp is later. */
const MAX_TOKEN_AGE_SECONDS = 10 * 60;

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

const refused = (reason: string) => new AppError('LAUNCH_TOKEN_INVALID', `The LTI launch was refused: ${reason}.`);

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

/** The role a launch's roles give: context roles first (claims.ts); null when they name neither a learner nor a teacher. */
export function launchRole(claims: Record<string, unknown>): 'student' | 'faculty' | null {
  const roles = claims[CLAIM.roles];
  if (isTeacher(roles)) return 'faculty';
  return isLearner(roles) ? 'student' : null;
}

/** Refuses a valid launch whose roles the appliance has no page for (docs/lms.md#roles): in words, before anyone is matched or made. */
function assertSupportedRole(claims: Record<string, unknown>): void {
  if (launchRole(claims)) return;
  const roles = launchRoles(claims[CLAIM.roles]);
  throw new AppError(
    'role_not_supported',
    `This LMS user's roles (${roles.length > 0 ? roles.join(', ') : 'none'}) name neither a learner nor an instructor of the course, and CampusBridge opens exams only for those. Ask the LMS administrator to give the user the Learner or Instructor role in the course.`,
  );
}

/**
 * Provisioning at launch (docs/lms.md#provisioning-at-launch), when the platform has it on: an
 * unknown Instructor becomes a faculty member, an unknown Learner a student, made by the same
 * command as `POST /v1/students` (license, `student.created` event), from whatever the id_token
 * carries: its name (else a placeholder) and its email as the personal email. Null (so
 * user_not_found) when provisioning is off.
 */
async function provision(tx: TenantTx, platform: LtiPlatformRow, claims: Record<string, unknown>): Promise<PersonRow | null> {
  const role = launchRole(claims);
  if (!platform.provision_users || !role) return null;
  const email = personalEmail.safeParse(claims.email);
  return createPerson(tx, role, {
    full_name: nameFromClaims(claims) ?? placeholderName(platform, String(claims.sub)),
    personal_email: email.success ? email.data : null,
    license_days: 365,
  });
}

/**
 * The person of the launch: by the subject stored for this platform, else by login email, else
 * provisioned when the platform allows it (the subject is then stored). Someone provisioned under
 * a placeholder name gets the name a later launch carries.
 */
export async function matchPerson(tenant: Tenant, platform: LtiPlatformRow, claims: Record<string, unknown>): Promise<PersonRow> {
  return tenant.inTransaction(async (tx) => {
    const subject = String(claims.sub);
    const known = await tx.ltiSubjects.findOne({ where: { platform_id: platform.id, subject } });
    if (known) {
      const person = await tx.people.findById(known.person_id);
      const name = nameFromClaims(claims);
      if (person && name && person.full_name === placeholderName(platform, subject)) return updatePerson(tx, person.role, person.id, { full_name: name });
      if (person) return person;
    }
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : null;
    const person = (email ? await tx.people.findOne({ where: { login_email: email } }) : null) ?? (await provision(tx, platform, claims));
    if (!person) {
      throw new AppError(
        'user_not_found',
        'No student or faculty member of this institution matches this LMS user (by an earlier launch or by login email). Ask the school to add the person first (or to turn on provisioning at launch for this platform).',
      );
    }
    if (known) await tx.ltiSubjects.update({ person_id: person.id }, { id: known.id });
    else await tx.ltiSubjects.create({ id: newId('ltu'), platform_id: platform.id, subject, person_id: person.id, created_at: new Date() });
    return person;
  });
}

/** The launch's resource link row, made on first sight; an unlinked one is linked through the deep-linked `exam_id` custom parameter. */
async function resourceLinkOf(
  tenant: Tenant,
  platform: LtiPlatformRow,
  claims: Record<string, unknown>,
): Promise<{ link: LtiResourceLinkRow; exam: ExamRow | null }> {
  const resource = claims[CLAIM.resourceLink] as { id?: unknown; title?: unknown } | undefined;
  if (!resource || typeof resource.id !== 'string' || !resource.id) throw refused('the resource link claim has no id');
  const ags = claims[CLAIM.agsEndpoint] as { lineitem?: unknown } | undefined;
  const lineItem = typeof ags?.lineitem === 'string' ? ags.lineitem : null;
  const context = claims[CLAIM.context] as { id?: unknown } | undefined;
  const custom = claims[CLAIM.custom] as { exam_id?: unknown } | undefined;
  return tenant.inTransaction(async (tx) => {
    let link = await tx.ltiResourceLinks.findOne({ where: { platform_id: platform.id, resource_link_id: resource.id as string } });
    if (!link) {
      link = await tx.ltiResourceLinks.create({
        id: newId('ltl'),
        platform_id: platform.id,
        resource_link_id: resource.id as string,
        exam_id: null,
        title: typeof resource.title === 'string' ? resource.title.slice(0, 500) : null,
        context_id: typeof context?.id === 'string' ? context.id.slice(0, 255) : null,
        line_item_url: lineItem,
      });
    } else if (lineItem && link.line_item_url !== lineItem) {
      link.set({ line_item_url: lineItem });
      await link.save({ transaction: tx.tx });
    }
    if (!link.exam_id && typeof custom?.exam_id === 'string') {
      const exam = await tx.exams.findById(custom.exam_id, { attributes: ['id'] });
      if (exam) {
        link.set({ exam_id: exam.id });
        await link.save({ transaction: tx.tx });
      }
    }
    const exam = link.exam_id ? await tx.exams.findById(link.exam_id) : null;
    return { link, exam };
  });
}

export type LaunchOutcome =
  { kind: 'redirect'; location: string } | { kind: 'deep_linking'; platform: LtiPlatformRow; person: PersonRow; claims: Record<string, unknown> };

/**
 * A verified resource link launch opens the learner page with a single-use launch token (the same
 * tokens as `POST /v1/sso/tokens`), framable by the platform (frame.ts): a student's on the linked
 * exam; a teacher's limited to grading that exam's submissions (no portal account needed, the
 * Instructor role of this token is the grant). A deep linking request goes to the exam picker.
 */
export async function completeLaunch(db: Database, idToken: string, state: string, rules: OutboundRules, publicUrl: string): Promise<LaunchOutcome> {
  const { platform, claims, messageType, storageTarget } = await verifyLaunch(db, idToken, state, rules);
  const institution = await db.models.Institution.findByPk(platform.institution_id);
  if (!institution || institution.status !== 'approved') throw new AppError('institution_not_approved', 'This institution is not approved on the appliance.');
  assertSupportedRole(claims);
  const tenant = new Tenant(db, platform.institution_id);
  const person = await matchPerson(tenant, platform, claims);
  const teacher = isTeacher(claims[CLAIM.roles]);
  if (messageType === 'LtiDeepLinkingRequest') {
    if (!teacher) throw new AppError('forbidden', 'Only a teacher of the course can pick an exam for the LMS.');
    return { kind: 'deep_linking', platform, person, claims };
  }
  const { link, exam } = await resourceLinkOf(tenant, platform, claims);
  if (!exam) {
    throw new AppError(
      'not_found',
      `This LMS link (resource link ${link.resource_link_id}) is not linked to an exam yet: a teacher links it by deep linking, or the school with "lti link".`,
    );
  }
  // The course's class list (NRPS), when the platform offers it: read in the background, never holding the launch.
  if (teacher) afterInstructorLaunch(db, platform, claims, link, rules);
  const minted = teacher
    ? await mintLaunchToken(tenant, { email: person.login_email, app: exam.app, grading_exam_id: exam.id, ttl_seconds: 60 })
    : await mintLaunchToken(tenant, { email: person.login_email, app: exam.app, redirect: `exam:${exam.id}`, ttl_seconds: 60 });
  return { kind: 'redirect', location: framedLaunchUrl(publicUrl, minted.token, platform, storageTarget) };
}
