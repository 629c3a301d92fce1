// A OneRoster rostering service written from the 1EdTech specifications (OneRoster 1.2 Rostering
// REST binding, and 1.1's), not from the appliance's client: an OAuth 2 token endpoint for the
// client credentials grant (RFC 6749 §4.4, client authentication by HTTP Basic or in the form
// body, §2.3.1) that checks the scope; `GET /users`, `/classes`, `/enrollments` (and `/orgs`) with
// `limit`/`offset` paging, `X-Total-Count` and `Link` headers, `filter` on `dateLastModified`,
// and `sort`. Listens on 127.0.0.1, port 0.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Version = '1.2' | '1.1';

/** What `oneroster sync` and `oneroster import` print, and the portal's sync and import answer. */
export interface SyncOutput {
  run_id: string;
  kind: 'full' | 'delta';
  dry_run: boolean;
  outcome: string;
  created: { students: number; faculty: number; groups: number };
  updated: { students: number; faculty: number; groups: number };
  suspended: { students: number; faculty: number; groups: number };
  memberships: { added: number; removed: number };
  held_back: boolean;
  reason: string | null;
}

export type RoleName = 'student' | 'teacher' | 'administrator';

export interface ProviderUser {
  sourcedId: string;
  status: 'active' | 'tobedeleted';
  dateLastModified: string;
  enabledUser: boolean;
  givenName: string;
  familyName: string;
  email: string;
  identifier: string;
  role: RoleName;
}

export interface ProviderClass {
  sourcedId: string;
  status: 'active' | 'tobedeleted';
  dateLastModified: string;
  title: string;
  classCode: string;
}

export interface ProviderEnrollment {
  sourcedId: string;
  status: 'active' | 'tobedeleted';
  dateLastModified: string;
  user: string;
  class: string;
  role: 'student' | 'teacher';
  primary: boolean;
}

export interface ProviderOptions {
  version?: Version;
  clientId?: string;
  clientSecret?: string;
  /** Scope the client must ask for (and get). */
  scope?: string;
  /** The most records a page may hold, whatever `limit` asks (the spec lets a provider cap it). */
  maxPageSize?: number;
}

export interface ProviderRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const SCHOOL = { sourcedId: 'org-1', type: 'school', name: 'Riverside High' };

export class OneRosterProvider {
  readonly version: Version;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  users: ProviderUser[] = [];
  classes: ProviderClass[] = [];
  enrollments: ProviderEnrollment[] = [];
  requests: ProviderRequest[] = [];
  /** A request this returns true for is answered 503 (a SIS failing mid-sync). */
  failWhen: ((request: ProviderRequest) => boolean) | null = null;
  /** Awaited before a rostering request is answered (a slow SIS, or a test acting mid-sync). */
  beforeAnswer: ((request: ProviderRequest) => Promise<void>) | null = null;
  /** How the last token requests authenticated: 'basic' or 'form'. */
  tokenAuth: Array<'basic' | 'form'> = [];
  private tokens = new Set<string>();
  private server: http.Server | null = null;
  private maxPageSize: number;
  url = '';

  constructor(options: ProviderOptions = {}) {
    this.version = options.version ?? '1.2';
    this.clientId = options.clientId ?? 'campusbridge';
    this.clientSecret = options.clientSecret ?? `secret-${randomBytes(8).toString('hex')}`;
    this.scope =
      options.scope ??
      (this.version === '1.2'
        ? 'https://purl.imsglobal.org/spec/or/v1p2/scope/roster.readonly'
        : 'https://purl.imsglobal.org/spec/or/v1p1/scope/roster-core.readonly');
    this.maxPageSize = options.maxPageSize ?? 1000;
  }

  get basePath(): string {
    return this.version === '1.2' ? '/ims/oneroster/rostering/v1p2' : '/ims/oneroster/v1p1';
  }

  get tokenUrl(): string {
    return `${this.url}/oauth/token`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const request: ProviderRequest = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(request);
        const waiting = request.method === 'GET' && this.beforeAnswer ? this.beforeAnswer(request) : Promise.resolve();
        waiting.then(
          () => this.handle(request, res),
          (error: unknown) => this.json(res, 500, { error: String(error) }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private handle(request: ProviderRequest, res: http.ServerResponse) {
    if (this.failWhen?.(request)) return this.json(res, 503, { imsx_codeMajor: 'failure', imsx_description: 'Service unavailable' });
    if (request.method === 'POST' && request.path === '/oauth/token') return this.token(request, res);
    if (request.method !== 'GET' || !request.path.startsWith(`${this.basePath}/`)) return this.json(res, 404, { error: 'not found' });
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) {
      // 1EdTech: an unauthorised request is 401 with the imsx status payload.
      return this.json(res, 401, { imsx_codeMajor: 'failure', imsx_severity: 'error', imsx_description: 'Unauthorized' }, { 'WWW-Authenticate': 'Bearer' });
    }
    const collection = request.path.slice(this.basePath.length + 1);
    const all: Record<string, Array<Record<string, unknown>>> = {
      users: this.users.map((user) => this.userJson(user)),
      classes: this.classes.map((row) => this.classJson(row)),
      enrollments: this.enrollments.map((row) => this.enrollmentJson(row)),
      orgs: [{ ...SCHOOL, status: 'active', dateLastModified: '2026-01-01T00:00:00.000Z' }],
    };
    const records = all[collection];
    if (!records) return this.json(res, 404, { imsx_codeMajor: 'failure', imsx_description: 'Unknown collection' });
    let selected = records;
    const filter = request.query.get('filter');
    if (filter) {
      // The spec's filter grammar for one predicate: field, operator, value in single quotes.
      const match = /^(\w+)(>=|<=|!=|>|<|=|~)'([^']*)'$/.exec(filter);
      if (!match) return this.json(res, 400, { imsx_codeMajor: 'failure', imsx_description: `Invalid filter ${filter}` });
      const [, field, op, value] = match as unknown as [string, string, string, string];
      selected = records.filter((record) => {
        const actual = String(record[field] ?? '');
        switch (op) {
          case '>':
            return actual > value;
          case '>=':
            return actual >= value;
          case '<':
            return actual < value;
          case '<=':
            return actual <= value;
          case '!=':
            return actual !== value;
          case '~':
            return actual.includes(value);
          default:
            return actual === value;
        }
      });
    }
    const sort = request.query.get('sort');
    if (sort) selected = [...selected].sort((a, b) => String(a[sort] ?? '').localeCompare(String(b[sort] ?? '')));
    const limit = Math.min(Number(request.query.get('limit') ?? 100), this.maxPageSize);
    const offset = Number(request.query.get('offset') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) {
      return this.json(res, 400, { imsx_codeMajor: 'failure', imsx_description: 'Invalid limit or offset' });
    }
    const page = selected.slice(offset, offset + limit);
    const link = (at: number, rel: string) => `<${this.url}${request.path}?limit=${limit}&offset=${at}>; rel="${rel}"`;
    const links = [link(0, 'first'), link(Math.max(0, Math.floor((selected.length - 1) / limit) * limit), 'last')];
    if (offset + limit < selected.length) links.push(link(offset + limit, 'next'));
    if (offset > 0) links.push(link(Math.max(0, offset - limit), 'prev'));
    return this.json(res, 200, { [collection]: page }, { 'X-Total-Count': String(selected.length), Link: links.join(', ') });
  }

  private token(request: ProviderRequest, res: http.ServerResponse) {
    const form = new URLSearchParams(request.body);
    let id: string | null = null;
    let secret: string | null = null;
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (basic) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
      this.tokenAuth.push('basic');
    } else if (form.has('client_id')) {
      id = form.get('client_id');
      secret = form.get('client_secret');
      this.tokenAuth.push('form');
    }
    if (form.get('grant_type') !== 'client_credentials') return this.json(res, 400, { error: 'unsupported_grant_type' });
    if (id !== this.clientId || secret !== this.clientSecret) return this.json(res, 401, { error: 'invalid_client' }, { 'WWW-Authenticate': 'Basic' });
    const asked = (form.get('scope') ?? '').split(' ').filter(Boolean);
    if (!asked.includes(this.scope)) return this.json(res, 400, { error: 'invalid_scope', error_description: `The scope ${this.scope} is required.` });
    const token = randomBytes(16).toString('hex');
    this.tokens.add(token);
    return this.json(res, 200, { access_token: token, token_type: 'bearer', expires_in: 3600, scope: this.scope }, { 'Cache-Control': 'no-store' });
  }

  private userJson(user: ProviderUser): Record<string, unknown> {
    const common = {
      sourcedId: user.sourcedId,
      status: user.status,
      dateLastModified: user.dateLastModified,
      username: user.email.split('@')[0],
      givenName: user.givenName,
      familyName: user.familyName,
      email: user.email,
      identifier: user.identifier,
    };
    if (this.version === '1.2') {
      return {
        ...common,
        enabledUser: user.enabledUser,
        userIds: [{ type: 'SIS', identifier: user.identifier }],
        roles: [{ roleType: 'primary', role: user.role, org: { href: `${this.url}${this.basePath}/orgs/org-1`, sourcedId: 'org-1', type: 'org' } }],
        primaryOrg: { sourcedId: 'org-1', type: 'org' },
      };
    }
    // 1.1: one `role`, `orgs`, and booleans as strings.
    return { ...common, enabledUser: String(user.enabledUser), role: user.role, orgs: [{ sourcedId: 'org-1', type: 'org' }] };
  }

  private classJson(row: ProviderClass): Record<string, unknown> {
    return {
      sourcedId: row.sourcedId,
      status: row.status,
      dateLastModified: row.dateLastModified,
      title: row.title,
      classCode: row.classCode,
      classType: 'scheduled',
      course: { sourcedId: `course-${row.classCode}`, type: 'course' },
      school: { sourcedId: 'org-1', type: 'org' },
      terms: [{ sourcedId: 'term-1', type: 'academicSession' }],
    };
  }

  private enrollmentJson(row: ProviderEnrollment): Record<string, unknown> {
    return {
      sourcedId: row.sourcedId,
      status: row.status,
      dateLastModified: row.dateLastModified,
      user: { sourcedId: row.user, type: 'user' },
      class: { sourcedId: row.class, type: 'class' },
      school: { sourcedId: 'org-1', type: 'org' },
      role: row.role,
      primary: this.version === '1.2' ? row.primary : String(row.primary),
    };
  }
}

/**
 * A school: `students` students and `teachers` teachers, `classes` classes each with one primary
 * teacher and an equal share of the students (each student in one class), all modified at `at`.
 */
export function seedSchool(provider: OneRosterProvider, sizes: { students: number; teachers: number; classes: number }, at = '2026-01-10T08:00:00.000Z') {
  provider.users = [];
  provider.classes = [];
  provider.enrollments = [];
  for (let i = 0; i < sizes.teachers; i++) {
    provider.users.push({
      sourcedId: `t-${i}`,
      status: 'active',
      dateLastModified: at,
      enabledUser: true,
      givenName: `Teacher${i}`,
      familyName: 'Smith',
      email: `teacher${i}@riverside.example`,
      identifier: `T${1000 + i}`,
      role: 'teacher',
    });
  }
  for (let i = 0; i < sizes.students; i++) {
    provider.users.push({
      sourcedId: `s-${i}`,
      status: 'active',
      dateLastModified: at,
      enabledUser: true,
      givenName: `Student${i}`,
      familyName: 'Jones',
      email: `student${i}@riverside.example`,
      identifier: `S${10000 + i}`,
      role: 'student',
    });
  }
  provider.users.push({
    sourcedId: 'a-0',
    status: 'active',
    dateLastModified: at,
    enabledUser: true,
    givenName: 'Ada',
    familyName: 'Admin',
    email: 'admin@riverside.example',
    identifier: 'A1',
    role: 'administrator',
  });
  for (let c = 0; c < sizes.classes; c++) {
    provider.classes.push({ sourcedId: `c-${c}`, status: 'active', dateLastModified: at, title: `Class ${c}`, classCode: `CL${c}` });
    provider.enrollments.push({
      sourcedId: `e-t-${c}`,
      status: 'active',
      dateLastModified: at,
      user: `t-${c % sizes.teachers}`,
      class: `c-${c}`,
      role: 'teacher',
      primary: true,
    });
  }
  for (let i = 0; i < sizes.students; i++) {
    const c = i % sizes.classes;
    provider.enrollments.push({
      sourcedId: `e-s-${i}`,
      status: 'active',
      dateLastModified: at,
      user: `s-${i}`,
      class: `c-${c}`,
      role: 'student',
      primary: false,
    });
  }
}
