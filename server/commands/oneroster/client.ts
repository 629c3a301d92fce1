import type { OneRosterAuthMethod, OneRosterVersion } from '../../models/oneroster.js';
import type { PrivateHosts } from '../../outbound/address.js';
import { jsonObject, SIS_REQUEST_TIMEOUT_MS, SisError, sisRequest } from './http.js';

/** Where each version's rostering service lives under the base URL (1EdTech OneRoster 1.2 and 1.1 REST bindings). */
export const VERSION_PATHS: Record<OneRosterVersion, string> = {
  '1.2': '/ims/oneroster/rostering/v1p2',
  '1.1': '/ims/oneroster/v1p1',
};

export const DEFAULT_SCOPES: Record<OneRosterVersion, string> = {
  '1.2': 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly',
  '1.1': 'https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly',
};

/** Records asked for per page; a SIS may answer fewer (its own maximum), which the paging follows. */
export const PAGE_SIZE = 500;
/** A bound on one collection: 2,000 pages of 500 is a million records, well past any school. */
const MAX_PAGES = 2_000;
/**
 * The budget of one sync (docs/lms.md#oneroster-sync): at most this much JSON from the SIS in all,
 * about 500,000 users or a million enrollments, and at most this long. Pages are read into their
 * few fields as they arrive, so what a sync holds is a fraction of what it read; past the budget
 * it fails in words, and a SIS that never stops, or serves huge pages, cannot exhaust the
 * appliance's memory (every institution shares the process).
 */
export const SYNC_BUDGET = { bytes: 256 * 1024 * 1024, ms: 20 * 60_000 };

export interface SisSettings {
  url: string;
  version: OneRosterVersion;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  authMethod: OneRosterAuthMethod;
  scopes: string;
  privateHosts: PrivateHosts;
}

export interface SisUser {
  sourcedId: string;
  active: boolean;
  dateLastModified: string | null;
  role: 'student' | 'teacher' | 'other';
  givenName: string;
  familyName: string;
  email: string | null;
  identifier: string | null;
}

export interface SisClass {
  sourcedId: string;
  active: boolean;
  dateLastModified: string | null;
  title: string;
  classCode: string | null;
}

export interface SisEnrollment {
  sourcedId: string;
  active: boolean;
  dateLastModified: string | null;
  userSourcedId: string;
  classSourcedId: string;
  role: 'student' | 'teacher' | 'other';
  primary: boolean;
}

export interface Roster {
  users: SisUser[];
  classes: SisClass[];
  enrollments: SisEnrollment[];
  /** Records left out because a field the sync needs was missing. */
  skipped: number;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const flag = (value: unknown, otherwise: boolean): boolean =>
  value === true || value === 'true' ? true : value === false || value === 'false' ? false : otherwise;
const refId = (value: unknown): string | null => (value && typeof value === 'object' ? text((value as Record<string, unknown>).sourcedId) : null);
const roleOf = (value: unknown): 'student' | 'teacher' | 'other' => (value === 'student' || value === 'teacher' ? value : 'other');

/** 1.2 lists `roles` (the `primary` roleType first); 1.1 has one `role`. */
function userRole(record: Record<string, unknown>): 'student' | 'teacher' | 'other' {
  if (Array.isArray(record.roles)) {
    const roles = record.roles.filter((entry): entry is Record<string, unknown> => !!entry && typeof entry === 'object');
    const primary = roles.find((entry) => entry.roleType === 'primary') ?? roles[0];
    return roleOf(primary?.role);
  }
  return roleOf(record.role);
}

const isActive = (record: Record<string, unknown>) => record.status !== 'tobedeleted' && record.status !== 'inactive';

export function readUser(record: Record<string, unknown>): SisUser | null {
  const sourcedId = text(record.sourcedId);
  if (!sourcedId) return null;
  return {
    sourcedId,
    active: isActive(record) && flag(record.enabledUser, true),
    dateLastModified: text(record.dateLastModified),
    role: userRole(record),
    givenName: text(record.givenName) ?? '',
    familyName: text(record.familyName) ?? '',
    email: text(record.email),
    identifier: text(record.identifier),
  };
}

export function readClass(record: Record<string, unknown>): SisClass | null {
  const sourcedId = text(record.sourcedId);
  if (!sourcedId) return null;
  return {
    sourcedId,
    active: isActive(record),
    dateLastModified: text(record.dateLastModified),
    title: text(record.title) ?? text(record.classCode) ?? sourcedId,
    classCode: text(record.classCode),
  };
}

export function readEnrollment(record: Record<string, unknown>): SisEnrollment | null {
  const sourcedId = text(record.sourcedId);
  const userSourcedId = refId(record.user);
  const classSourcedId = refId(record.class);
  if (!sourcedId || !userSourcedId || !classSourcedId) return null;
  return {
    sourcedId,
    active: isActive(record),
    dateLastModified: text(record.dateLastModified),
    userSourcedId,
    classSourcedId,
    role: roleOf(record.role),
    primary: flag(record.primary, false),
  };
}

/** A client for one sync: one access token (client credentials, RFC 6749 §4.4), then paged GETs within SYNC_BUDGET. */
export class OneRosterClient {
  private token: string | null = null;
  private bytesRead = 0;
  private readonly deadline: number;

  constructor(
    private readonly settings: SisSettings,
    private readonly budget: { bytes: number; ms: number } = SYNC_BUDGET,
  ) {
    this.deadline = Date.now() + budget.ms;
  }

  /** Counts a page against the budget; past it, the sync fails saying which bound it reached. */
  private spend(path: string, bytes: number): void {
    this.bytesRead += bytes;
    if (this.bytesRead > this.budget.bytes) {
      throw new SisError(
        `The SIS sent more than ${this.budget.bytes / 1024 / 1024} MB for one sync (at ${path}): more than a sync takes at once. ` +
          'Check the SIS (a page that repeats for ever?) or ask for a smaller roster.',
      );
    }
  }

  /** Time left for the next request; none left is the sync's failure. */
  private timeLeft(path: string): number {
    const left = this.deadline - Date.now();
    if (left <= 0) throw new SisError(`The sync did not finish within ${Math.round(this.budget.ms / 60_000)} minutes (at ${path}).`);
    return left;
  }

  private base(): string {
    return this.settings.url.replace(/\/+$/, '') + VERSION_PATHS[this.settings.version];
  }

  /** The access token, asked for once per client; a refusal names the SIS's `error`. */
  async accessToken(): Promise<string> {
    if (this.token) return this.token;
    const { clientId, clientSecret, authMethod, scopes } = this.settings;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.trim()) form.set('scope', scopes.trim());
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (authMethod === 'basic') {
      // RFC 6749 §2.3.1: the id and secret are form-urlencoded before they are joined.
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.Authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    const response = await sisRequest({
      method: 'POST',
      url: this.settings.tokenUrl,
      headers,
      body: form.toString(),
      privateHosts: this.settings.privateHosts,
    });
    let body: Record<string, unknown> | null;
    try {
      body = jsonObject(response, 'the token request');
    } catch {
      body = null;
    }
    if (response.status !== 200 || !body || typeof body.access_token !== 'string') {
      const error =
        body && typeof body.error === 'string' ? ` (${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''})` : '';
      throw new SisError(`The SIS's token endpoint refused the client credentials: HTTP ${response.status}${error}.`);
    }
    this.token = body.access_token;
    return this.token;
  }

  /**
   * Every record of a collection, page by page (limit/offset) until `X-Total-Count` or a short
   * page, each read by `read` as its page arrives (the page itself is let go): the rows, and how
   * many records `read` refused.
   */
  async fetchAll<T>(
    collection: 'users' | 'classes' | 'enrollments',
    filter: string | undefined,
    read: (record: Record<string, unknown>) => T | null,
  ): Promise<{ rows: T[]; skipped: number }> {
    const token = await this.accessToken();
    const rows: T[] = [];
    let skipped = 0;
    let offset = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset), sort: 'sourcedId' });
      if (filter) query.set('filter', filter);
      const path = `/${collection}`;
      const response = await sisRequest({
        method: 'GET',
        url: `${this.base()}${path}?${query.toString()}`,
        headers: { Authorization: `Bearer ${token}` },
        privateHosts: this.settings.privateHosts,
        timeoutMs: Math.min(SIS_REQUEST_TIMEOUT_MS, this.timeLeft(path)),
      });
      if (response.status === 401 || response.status === 403) {
        throw new SisError(`The SIS refused ${path} (HTTP ${response.status}): the client may lack the rostering scope.`);
      }
      if (response.status !== 200) throw new SisError(`The SIS answered ${path} with HTTP ${response.status}.`);
      this.spend(path, response.body.length);
      const items = jsonObject(response, path)[collection];
      if (!Array.isArray(items)) throw new SisError(`The SIS's answer to ${path} has no "${collection}" list.`);
      for (const item of items) {
        const row = item && typeof item === 'object' ? read(item as Record<string, unknown>) : null;
        if (row) rows.push(row);
        else if (item && typeof item === 'object') skipped++;
      }
      offset += items.length;
      const total = Number(response.headers['x-total-count']);
      if (items.length === 0) return { rows, skipped };
      // With a total, page on until it is reached (a SIS may cap pages below the limit asked for);
      // without one, a short page is the last.
      if (Number.isFinite(total) ? offset >= total : items.length < PAGE_SIZE) return { rows, skipped };
    }
    throw new SisError(`The SIS's ${collection} did not end within ${MAX_PAGES} pages.`);
  }

  /** How many users the SIS has (`X-Total-Count` of a one-record page): the connection test. */
  async countUsers(): Promise<number> {
    const token = await this.accessToken();
    const response = await sisRequest({
      method: 'GET',
      url: `${this.base()}/users?limit=1&offset=0`,
      headers: { Authorization: `Bearer ${token}` },
      privateHosts: this.settings.privateHosts,
    });
    if (response.status !== 200) throw new SisError(`The SIS answered /users with HTTP ${response.status}.`);
    const items = jsonObject(response, '/users').users;
    if (!Array.isArray(items)) throw new SisError('The SIS\'s answer to /users has no "users" list.');
    const total = Number(response.headers['x-total-count']);
    return Number.isFinite(total) ? total : items.length;
  }

  /** The whole roster, or what changed after `since` (a delta: `filter=dateLastModified>'…'`). */
  async fetchRoster(since: string | null): Promise<Roster> {
    const filter = since ? `dateLastModified>'${since}'` : undefined;
    const users = await this.fetchAll('users', filter, readUser);
    const classes = await this.fetchAll('classes', filter, readClass);
    const enrollments = await this.fetchAll('enrollments', filter, readEnrollment);
    return { users: users.rows, classes: classes.rows, enrollments: enrollments.rows, skipped: users.skipped + classes.skipped + enrollments.skipped };
  }
}
