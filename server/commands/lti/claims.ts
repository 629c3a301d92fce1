import { AppError } from '../../errors.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { fullName } from '../../validation/people.js';

/** Claim names of LTI 1.3 Core, Deep Linking 2.0 and AGS 2.0 (1EdTech). */
export const CLAIM = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  data: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
  agsEndpoint: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  /** Names and Role Provisioning Services 2.0 §3.6.1: `context_memberships_url` and `service_versions`. */
  namesRoleService: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
} as const;

export const LTI_VERSION = '1.3.0';
export const AGS_SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score';
/** The scope of an NRPS 2.0 access token (reading a context's members). */
export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';

const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership#';
/** Where a sub-role names its principal role: `…/membership/Instructor#TeachingAssistant` is an Instructor's. */
const SUB_ROLE = /^http:\/\/purl\.imsglobal\.org\/vocab\/lis\/v2\/membership\/([A-Za-z]+)#[A-Za-z]+$/;

/**
 * A launch's roles in their full form (LTI 1.3 Core §A.2): a context role sent by its short name
 * (`Instructor`, deprecated but still sent by some platforms) stands for the membership role, and
 * a context sub-role also counts as its principal role. Anything else is kept as it is.
 */
export function launchRoles(roles: unknown): string[] {
  if (!Array.isArray(roles)) return [];
  const full = new Set<string>();
  for (const role of roles) {
    if (typeof role !== 'string' || role.trim() === '') continue;
    const value = role.trim();
    full.add(/^[A-Za-z]+$/.test(value) ? `${MEMBERSHIP}${value}` : value);
    const principal = SUB_ROLE.exec(value)?.[1];
    if (principal) full.add(`${MEMBERSHIP}${principal}`);
  }
  return [...full];
}

/** Roles that open the teacher's side (results, deep linking): context Instructor, ContentDeveloper or Administrator, institution Administrator, Instructor or Faculty. */
const TEACHER_ROLES = [
  `${MEMBERSHIP}Instructor`,
  `${MEMBERSHIP}ContentDeveloper`,
  `${MEMBERSHIP}Administrator`,
  'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator',
  'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor',
  'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Faculty',
];

/** Roles that make a learner: context Learner, institution Student or Learner. */
const LEARNER_ROLES = [
  `${MEMBERSHIP}Learner`,
  'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student',
  'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Learner',
];

/** The roles that decide: the course's (membership) roles when there are any, else the institution's (a launch without a context). */
function decidingRoles(roles: unknown): string[] {
  const all = launchRoles(roles);
  const context = all.filter((role) => role.startsWith(MEMBERSHIP));
  return context.length > 0 ? context : all;
}

export function isTeacher(roles: unknown): boolean {
  return decidingRoles(roles).some((role) => TEACHER_ROLES.includes(role));
}

export function isLearner(roles: unknown): boolean {
  return decidingRoles(roles).some((role) => LEARNER_ROLES.includes(role));
}

/**
 * A deep linking request's return URL (Deep Linking 2.0 §4.4.1), checked with the id_token: the
 * picker's form posts there and its Content-Security-Policy names it, so only an http(s) URL.
 */
export function deepLinkReturnUrl(claims: Record<string, unknown>): string {
  const settings = claims[CLAIM.deepLinkingSettings] as { deep_link_return_url?: unknown } | undefined;
  const url = settings?.deep_link_return_url;
  if (typeof url !== 'string')
    throw new AppError('LAUNCH_TOKEN_INVALID', 'The LTI launch was refused: the deep linking settings have no deep_link_return_url.');
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new AppError('LAUNCH_TOKEN_INVALID', "The LTI launch was refused: the deep linking settings' deep_link_return_url is not an http(s) URL.");
  }
  return url;
}

/**
 * The name an id_token (or an NRPS member, which carries the same fields) gives: `name`, else
 * `given_name` and `family_name`; null when it carries none.
 */
export function nameFromClaims(claims: Record<string, unknown>): string | null {
  const given = [claims.given_name, claims.family_name].filter((part): part is string => typeof part === 'string' && part.trim() !== '').join(' ');
  const name = fullName.safeParse(typeof claims.name === 'string' && claims.name.trim() ? claims.name : given);
  return name.success ? name.data : null;
}

/**
 * The name of someone provisioned without one: the platform's name and the start of the subject,
 * so the school can tell such people apart and knows where they came from. A later launch (or
 * class list) that carries a name replaces it.
 */
export function placeholderName(platform: Pick<LtiPlatformRow, 'name' | 'issuer'>, subject: string): string {
  const label = platform.name.trim() || new URL(platform.issuer).hostname;
  return `${label.slice(0, 120)} user ${subject.slice(0, 24)}`;
}
