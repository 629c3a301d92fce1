import { LTI, type LaunchPlan } from './lti-platform.js';

/**
 * The LTI 1.3 Core certification launch cases, written from 1EdTech's published test plan (the
 * "known bad payloads" and the valid teacher and student launches of the LTI Advantage
 * certification suite), plus three the suite runs beside them: a deep linking request, one
 * without its settings, and a teaching assistant (a context sub-role). Each case is what the
 * platform puts in the id_token (or the raw token it posts) and what the tool must answer.
 *
 * The named cases mirror the public case set kept in packbackbooks/lti-1-3-php-library
 * (`tests/data/certification/`); its files were not reachable from this repository's machines, so
 * the payloads here are written from the names and the LTI 1.3 Core specification, not copied.
 */

export type Expectation =
  { kind: 'refused'; reason: RegExp } | { kind: 'lands'; as: 'learner' | 'teacher' } | { kind: 'picker' } | { kind: 'role_not_supported' };

export interface CertificationCase {
  section: 'known bad payloads' | 'valid teacher launches' | 'valid student launches' | 'beside the suite';
  name: string;
  /** The plan's changes to a full launch (name, e-mail, context, the section's role). */
  plan: Partial<LaunchPlan>;
  /** Replace the signed id_token before it is posted (a token that is not a JWS). */
  mangle?: (idToken: string) => string;
  expect: Expectation;
}

const UNKNOWN_ROLE = 'http://purl.imsglobal.org/vocab/lis/v2/unknown/unknown#Unknown';
const INSTITUTION = 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#';
const SYSTEM_USER = 'http://purl.imsglobal.org/vocab/lis/v2/system/person#User';
const YEAR = 365 * 24 * 3600;

/** What every launch carries unless a case takes it away: a name and an e-mail (PII) and a context. */
export const PII = { name: 'Pat Example', given_name: 'Pat', family_name: 'Example' };

const withoutClaims = (...names: string[]) => Object.fromEntries(names.map((name) => [name, undefined]));
const NO_NAMES = withoutClaims('name', 'given_name', 'family_name');

function validLaunches(who: 'teacher' | 'student'): CertificationCase[] {
  const title = who === 'teacher' ? 'Instructor' : 'Student';
  const role = who === 'teacher' ? LTI.instructor : LTI.learner;
  const section = who === 'teacher' ? 'valid teacher launches' : 'valid student launches';
  const lands: Expectation = { kind: 'lands', as: who === 'teacher' ? 'teacher' : 'learner' };
  const multiple =
    who === 'teacher'
      ? [LTI.instructor, `${INSTITUTION}Faculty`, `${INSTITUTION}Instructor`, SYSTEM_USER]
      : [LTI.learner, `${INSTITUTION}Student`, `${INSTITUTION}Learner`, SYSTEM_USER];
  return [
    { section, name: who === 'teacher' ? 'Launch LTI 1.3 Message as Instructor' : 'Launch LTI 1.3 Message as Student', plan: { roles: [role] }, expect: lands },
    { section, name: `Launch ${title} with Multiple Role Values`, plan: { roles: multiple }, expect: lands },
    { section, name: `Launch ${title} with Short Role Value`, plan: { roles: [who === 'teacher' ? 'Instructor' : 'Learner'] }, expect: lands },
    { section, name: `Launch ${title} with Unknown Role`, plan: { roles: [UNKNOWN_ROLE] }, expect: { kind: 'role_not_supported' } },
    { section, name: `Launch ${title} With No Role`, plan: { roles: [] }, expect: { kind: 'role_not_supported' } },
    { section, name: `Launch ${title} Only Email`, plan: { roles: [role], claims: NO_NAMES }, expect: lands },
    { section, name: `Launch ${title} Only Names`, plan: { roles: [role], email: undefined }, expect: lands },
    { section, name: `Launch ${title} No PII`, plan: { roles: [role], email: undefined, claims: NO_NAMES }, expect: lands },
    { section, name: `Launch ${title} with Email No Context`, plan: { roles: [role], claims: { [LTI.context]: undefined } }, expect: lands },
  ];
}

const bad = (name: string, plan: Partial<LaunchPlan>, reason: RegExp, mangle?: (idToken: string) => string): CertificationCase => ({
  section: 'known bad payloads',
  name,
  plan,
  expect: { kind: 'refused', reason },
  ...(mangle ? { mangle } : {}),
});

/** The cases, in the order of the test plan; `kid-unknown` is the kid no published key has. */
export function certificationCases(options: { strangerKey: LaunchPlan['signWith'] }): CertificationCase[] {
  const now = Math.floor(Date.now() / 1000);
  return [
    bad('No KID Sent in JWT header', { omitKid: true }, /header has no kid/),
    bad('Incorrect KID in JWT header', { signWith: options.strangerKey }, /no key of the platform has the id_token's kid/),
    bad('Wrong LTI Version', { claims: { [LTI.version]: '1.2.0' } }, /LTI version is not 1\.3\.0/),
    bad('No LTI Version', { claims: withoutClaims(LTI.version) }, /no LTI version claim/),
    // A JWS without its signature: three parts are required.
    bad('Invalid LTI message', {}, /not (a JWT|valid)/, (idToken) => idToken.split('.').slice(0, 2).join('.')),
    bad(
      'Missing LTI Claims',
      { claims: withoutClaims(LTI.messageType, LTI.version, LTI.deploymentId, LTI.targetLinkUri, LTI.resourceLink, LTI.roles, LTI.context) },
      /no deployment id claim/,
    ),
    bad('Timestamps Incorrect', { claims: { iat: now - YEAR, exp: now - YEAR + 3600 } }, /expired|too long ago/),
    bad('message_type Claim Missing', { claims: withoutClaims(LTI.messageType) }, /no message type claim/),
    bad('role Claim Missing', { claims: withoutClaims(LTI.roles) }, /no roles claim/),
    bad('deployment_id Claim Missing', { claims: withoutClaims(LTI.deploymentId) }, /no deployment id claim/),
    bad('resource_link_id Claim Missing', { claims: { [LTI.resourceLink]: { title: 'No id' } } }, /resource link claim has no id/),
    bad('user Claim Missing', { claims: { sub: '' } }, /names no user/),
    ...validLaunches('teacher'),
    ...validLaunches('student'),
    {
      section: 'beside the suite',
      name: 'Deep Linking Request as Instructor',
      plan: { roles: [LTI.instructor], messageType: 'LtiDeepLinkingRequest' },
      expect: { kind: 'picker' },
    },
    {
      section: 'beside the suite',
      name: 'Deep Linking Request without its settings',
      plan: { roles: [LTI.instructor], messageType: 'LtiDeepLinkingRequest', claims: withoutClaims(LTI.deepLinkingSettings) },
      expect: { kind: 'refused', reason: /deep linking settings/ },
    },
    {
      section: 'beside the suite',
      name: 'Launch Teaching Assistant (a sub-role of Instructor)',
      plan: { roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant'] },
      expect: { kind: 'lands', as: 'teacher' },
    },
  ];
}
