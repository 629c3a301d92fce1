import type { Database } from '../../db/index.js';
import { outboundRequest } from './outbound.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { normalizeEmail } from '../../validation/people.js';
import { isLearner, isTeacher, launchRoles, nameFromClaims, NRPS_SCOPE } from './claims.js';
import type { OutboundRules } from './platform-keys.js';
import { dropServiceToken, serviceToken } from './service-token.js';

/** NRPS 2.0 §3.3: the media type of a membership container (Accept and Content-Type). */
export const NRPS_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';
/** Pages read at most for one class list: a platform that keeps answering `rel="next"` is stopped here. */
export const NRPS_MAX_PAGES = 200;
/** Bytes of one page read at most (Moodle answers the whole class in one page unless asked for less). */
export const NRPS_PAGE_BYTES = 8 * 1024 * 1024;
/** Members asked for per page (`limit`, NRPS 2.0 §2.4.2); a platform may answer fewer, or ignore it. */
const PAGE_LIMIT = 500;

/** A member of the context as the class list names them; only what the sync uses. */
export interface ContextMember {
  /** The LMS's id of the user: the `sub` of their launches. */
  userId: string;
  /** `Active` unless the platform said `Inactive` or `Deleted` (NRPS 2.0 §2.2: absent means Active). */
  active: boolean;
  role: 'student' | 'faculty' | null;
  name: string | null;
  email: string | null;
}

export interface ContextRoster {
  context: { id: string | null; title: string | null };
  members: ContextMember[];
  pages: number;
}

/** A class list that could not be read: the message says why, in words (it is the run's reason). */
export class NrpsError extends Error {}

/** The URL of `rel="next"` in a Link header (RFC 8288), resolved against the page it came with; null when there is none. */
export function nextLink(header: string | string[] | undefined, base: string): string | null {
  const value = Array.isArray(header) ? header.join(', ') : (header ?? '');
  for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s,]+))/i.exec(match[2] ?? '');
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) return URL.canParse(match[1]!, base) ? new URL(match[1]!, base).toString() : null;
  }
  return null;
}

function readMember(value: unknown): ContextMember | null {
  if (!value || typeof value !== 'object') return null;
  const member = value as Record<string, unknown>;
  if (typeof member.user_id !== 'string' || member.user_id.trim() === '') return null;
  const status = typeof member.status === 'string' ? member.status : 'Active';
  const roles = launchRoles(member.roles);
  const email = typeof member.email === 'string' && member.email.includes('@') ? normalizeEmail(member.email) : null;
  return {
    userId: member.user_id.slice(0, 255),
    active: status !== 'Inactive' && status !== 'Deleted',
    role: isTeacher(roles) ? 'faculty' : isLearner(roles) ? 'student' : null,
    name: nameFromClaims(member),
    email,
  };
}

const answerOf = (status: number | null, error: string | null) => (status === null ? `no answer: ${error ?? 'error'}` : `HTTP ${status}`);

/**
 * Every member of a context (NRPS 2.0 §2): an access token with the NRPS scope, then the
 * membership container page after page, following `Link: <…>; rel="next"`, through the same
 * address-checked requester as scores. A next page elsewhere than the first page's origin is
 * refused (the token would go with it), as is a page seen twice or more than NRPS_MAX_PAGES.
 * Nothing is written: the whole list is read before the sync plans anything.
 */
export async function readContextMembers(db: Database, platform: LtiPlatformRow, membershipsUrl: string, rules: OutboundRules): Promise<ContextRoster> {
  const token = await serviceToken(db, platform, NRPS_SCOPE, rules);
  if ('error' in token) {
    throw new NrpsError(
      `The LMS gave no access token for its class list (${answerOf(token.status, token.error)} from ${platform.token_url}). Check that the tool may use Names and Role Provisioning Services in the LMS.`,
    );
  }
  const first = new URL(membershipsUrl);
  if (!first.searchParams.has('limit')) first.searchParams.set('limit', String(PAGE_LIMIT));
  const roster: ContextRoster = { context: { id: null, title: null }, members: [], pages: 0 };
  const byUser = new Map<string, ContextMember>();
  const seen = new Set<string>();
  for (let url: string | null = first.toString(); url;) {
    if (seen.has(url)) throw new NrpsError(`The LMS's class list sends page ${url} twice (its next links go round in a circle).`);
    if (roster.pages >= NRPS_MAX_PAGES) throw new NrpsError(`The LMS's class list has more than ${NRPS_MAX_PAGES} pages; nothing was changed.`);
    seen.add(url);
    const result = await outboundRequest({
      method: 'GET',
      url,
      headers: { Accept: NRPS_MEDIA_TYPE, Authorization: `Bearer ${token.token}` },
      timeoutMs: rules.timeoutMs,
      privateHosts: rules.privateHosts,
      resolver: rules.resolver,
      bodyLimit: NRPS_PAGE_BYTES,
    });
    if (result.status === 401) dropServiceToken(db, platform, NRPS_SCOPE);
    if (result.status === null || result.status < 200 || result.status >= 300) {
      const refused = result.status === 401 || result.status === 403 ? ' (the LMS refused the access token: it expired, or lacks the class list scope)' : '';
      throw new NrpsError(`The LMS's class list could not be read: ${answerOf(result.status, result.error)} at ${url}${refused}; nothing was changed.`);
    }
    if (result.truncated) throw new NrpsError(`A page of the LMS's class list is larger than ${NRPS_PAGE_BYTES / 1024 / 1024} MB; nothing was changed.`);
    let page: { context?: { id?: unknown; title?: unknown }; members?: unknown };
    try {
      page = JSON.parse(result.body) as typeof page;
    } catch {
      throw new NrpsError(`The LMS's class list at ${url} is not JSON; nothing was changed.`);
    }
    if (!Array.isArray(page.members)) throw new NrpsError(`The LMS's class list at ${url} has no members list; nothing was changed.`);
    roster.pages += 1;
    if (typeof page.context?.id === 'string') roster.context.id = page.context.id;
    if (typeof page.context?.title === 'string' && page.context.title.trim()) roster.context.title = page.context.title.trim().slice(0, 200);
    for (const value of page.members) {
      const member = readMember(value);
      if (member) byUser.set(member.userId, member);
    }
    url = nextLink(result.headers.link, url);
    if (url && new URL(url).origin !== first.origin) {
      throw new NrpsError(`The LMS's class list points its next page to another site (${new URL(url).origin}); nothing was changed.`);
    }
  }
  roster.members = [...byUser.values()];
  return roster;
}
