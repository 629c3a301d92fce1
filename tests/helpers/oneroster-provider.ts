// A OneRoster rostering service written from the 1EdTech specifications (OneRoster 1.2 Rostering
// REST binding, and 1.1's), not from the appliance's client: an OAuth 2 token endpoint for the
// client credentials grant (RFC 6749 §4.4, client authentication by HTTP Basic or in the form
// body, §2.3.1) that checks the scope; `GET /users`, `/classes`, `/enrollments` (and `/orgs`) with
// `limit`/`offset` paging, `X-Total-Count` and `Link` headers, `filter` on `dateLastModified`,
// and `sort`, and one record by its sourcedId (`GET /classes/{sourcedId}`). For 1.2, the Gradebook
// service's REST binding too: `PUT /ims/oneroster/gradebook/v1p2/categories/{sourcedId}`,
// `/lineItems/{sourcedId}` and `/results/{sourcedId}` (and `GET` of each), with the token scope
// `…/v1p2/scope/gradebook.createput`, each body checked for the fields the binding requires and for
// references to records the provider has (a line item's class, school and category; a result's
// line item and student). Listens on 127.0.0.1, port 0.
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

/** OneRoster 1.2 Gradebook: the scope that lets a client create and replace line items, results and categories. */
export const GRADEBOOK_SCOPE = 'https://purl.imsglobal.org/spec/or/v1p2/scope/gradebook.createput';
export const GRADEBOOK_BASE = '/ims/oneroster/gradebook/v1p2';
/** The 1.2 `ScoreStatusEnum`. */
const SCORE_STATUSES = ['exempt', 'fully graded', 'not submitted', 'partially graded', 'submitted'];
const GRADEBOOK_COLLECTIONS = { categories: 'category', lineItems: 'lineItem', results: 'result' } as const;
type GradebookCollection = keyof typeof GRADEBOOK_COLLECTIONS;

/** A gradebook record the provider holds, as last `PUT`, and how many times it was `PUT`. */
export interface StoredRecord {
  body: Record<string, unknown>;
  puts: number;
}

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
  /** Gradebook records by sourcedId (1.2), as the last `PUT` left them. */
  categories = new Map<string, StoredRecord>();
  lineItems = new Map<string, StoredRecord>();
  results = new Map<string, StoredRecord>();
  /** Statuses the next gradebook `PUT`s are answered with instead, one each (e.g. [500, 500]: the first two fail). */
  failGradebook: number[] = [];
  /** Granted scopes per access token. */
  private tokens = new Map<string, Set<string>>();
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
    const gradebook = this.version === '1.2' && request.path.startsWith(`${GRADEBOOK_BASE}/`);
    if (!gradebook && (request.method !== 'GET' || !request.path.startsWith(`${this.basePath}/`))) return this.json(res, 404, { error: 'not found' });
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const granted = token ? this.tokens.get(token) : undefined;
    if (!granted) {
      // 1EdTech: an unauthorised request is 401 with the imsx status payload.
      return this.json(res, 401, { imsx_codeMajor: 'failure', imsx_severity: 'error', imsx_description: 'Unauthorized' }, { 'WWW-Authenticate': 'Bearer' });
    }
    // A token without the service's scope: 403 (RFC 6750 §3.1 insufficient_scope).
    if (!granted.has(gradebook ? GRADEBOOK_SCOPE : this.scope)) {
      return this.json(res, 403, { imsx_codeMajor: 'failure', imsx_severity: 'error', imsx_codeMinor: 'forbidden', imsx_description: 'insufficient_scope' });
    }
    if (gradebook) return this.gradebook(request, res);
    const collection = request.path.slice(this.basePath.length + 1);
    const single = /^(users|classes|enrollments)\/([^/]+)$/.exec(collection);
    if (single) return this.one(res, single[1] as 'users' | 'classes' | 'enrollments', decodeURIComponent(single[2]!));
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
    const offered = this.version === '1.2' ? [this.scope, GRADEBOOK_SCOPE] : [this.scope];
    const granted = asked.filter((scope) => offered.includes(scope));
    if (granted.length === 0) return this.json(res, 400, { error: 'invalid_scope', error_description: `The scope ${this.scope} is required.` });
    const token = randomBytes(16).toString('hex');
    this.tokens.set(token, new Set(granted));
    return this.json(res, 200, { access_token: token, token_type: 'bearer', expires_in: 3600, scope: granted.join(' ') }, { 'Cache-Control': 'no-store' });
  }

  /** One record by its sourcedId: `{class: {…}}` (the binding's singular wrapper), or 404. */
  private one(res: http.ServerResponse, collection: 'users' | 'classes' | 'enrollments', sourcedId: string) {
    const found =
      collection === 'users'
        ? this.users.filter((row) => row.sourcedId === sourcedId).map((row) => this.userJson(row))
        : collection === 'classes'
          ? this.classes.filter((row) => row.sourcedId === sourcedId).map((row) => this.classJson(row))
          : this.enrollments.filter((row) => row.sourcedId === sourcedId).map((row) => this.enrollmentJson(row));
    if (found.length === 0) return this.json(res, 404, { imsx_codeMajor: 'failure', imsx_codeMinor: 'unknownobject', imsx_description: `No ${sourcedId}` });
    const wrapper = { users: 'user', classes: 'class', enrollments: 'enrollment' }[collection];
    return this.json(res, 200, { [wrapper]: found[0] });
  }

  /** `PUT` (create or replace) and `GET` of categories, line items and results; a refusal is 400 with the imsx payload naming what is wrong. */
  private gradebook(request: ProviderRequest, res: http.ServerResponse) {
    const match = /^\/(categories|lineItems|results)\/([^/]+)$/.exec(request.path.slice(GRADEBOOK_BASE.length));
    if (!match) return this.json(res, 404, { imsx_codeMajor: 'failure', imsx_codeMinor: 'unknownobject', imsx_description: 'Unknown endpoint' });
    const collection = match[1] as GradebookCollection;
    const sourcedId = decodeURIComponent(match[2]!);
    const store = this[collection];
    const wrapper = GRADEBOOK_COLLECTIONS[collection];
    if (request.method === 'GET') {
      const stored = store.get(sourcedId);
      return stored
        ? this.json(res, 200, { [wrapper]: stored.body })
        : this.json(res, 404, { imsx_codeMajor: 'failure', imsx_codeMinor: 'unknownobject', imsx_description: `No ${sourcedId}` });
    }
    if (request.method !== 'PUT') return this.json(res, 405, { imsx_codeMajor: 'failure', imsx_description: 'Method not allowed' });
    const injected = this.failGradebook.shift();
    if (injected !== undefined) return this.json(res, injected, { imsx_codeMajor: 'failure', imsx_severity: 'error', imsx_description: 'Injected failure' });
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) return this.invalid(res, 'The body must be application/json.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return this.invalid(res, 'The body is not JSON.');
    }
    const record = (parsed as Record<string, unknown> | null)?.[wrapper];
    if (!record || typeof record !== 'object' || Array.isArray(record)) return this.invalid(res, `The body must be {"${wrapper}": {…}}.`);
    const problem = this.checkRecord(collection, sourcedId, record as Record<string, unknown>);
    if (problem) return this.invalid(res, problem);
    const existing = store.get(sourcedId);
    store.set(sourcedId, { body: record as Record<string, unknown>, puts: (existing?.puts ?? 0) + 1 });
    // Created, or replaced (the binding's PUT is an upsert on the sourcedId in the path).
    return this.json(res, existing ? 200 : 201, { [wrapper]: record });
  }

  private invalid(res: http.ServerResponse, description: string) {
    return this.json(res, 400, { imsx_codeMajor: 'failure', imsx_severity: 'error', imsx_codeMinor: 'invalid_data', imsx_description: description });
  }

  /** What the 1.2 Gradebook data model requires of a record, and that its references resolve; null when it holds. */
  private checkRecord(collection: GradebookCollection, sourcedId: string, record: Record<string, unknown>): string | null {
    const text = (field: string) => (typeof record[field] === 'string' && (record[field] as string) !== '' ? (record[field] as string) : null);
    const ref = (field: string, type: string) => {
      const value = record[field] as { sourcedId?: unknown; type?: unknown } | undefined;
      return value && typeof value === 'object' && typeof value.sourcedId === 'string' && value.type === type ? value.sourcedId : null;
    };
    const isDateTime = (value: string | null) => value !== null && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value);
    if (record.sourcedId !== sourcedId) return `sourcedId must be ${sourcedId}, the one in the path.`;
    if (record.status !== 'active' && record.status !== 'tobedeleted') return 'status must be active or tobedeleted.';
    if (!isDateTime(text('dateLastModified'))) return 'dateLastModified must be a date-time.';
    if (collection === 'categories') return text('title') ? null : 'title is required.';
    if (collection === 'lineItems') {
      if (!text('title')) return 'title is required.';
      if (!isDateTime(text('assignDate')) || !isDateTime(text('dueDate'))) return 'assignDate and dueDate must be date-times.';
      const classId = ref('class', 'class');
      if (!classId || !this.classes.some((row) => row.sourcedId === classId)) return 'class must reference a class of this SIS.';
      if (ref('school', 'org') !== SCHOOL.sourcedId) return "school must reference the class's school (an org).";
      const category = ref('category', 'category');
      if (!category || !this.categories.has(category)) return 'category must reference a category (PUT categories/{sourcedId} first).';
      if (typeof record.resultValueMin !== 'number' || typeof record.resultValueMax !== 'number' || record.resultValueMin > record.resultValueMax) {
        return 'resultValueMin and resultValueMax must be numbers, min ≤ max.';
      }
      return null;
    }
    const lineItem = ref('lineItem', 'lineItem');
    if (!lineItem || !this.lineItems.has(lineItem)) return 'lineItem must reference a line item (PUT lineItems/{sourcedId} first).';
    const student = ref('student', 'user');
    if (!student || !this.users.some((row) => row.sourcedId === student && row.role === 'student')) return 'student must reference a student of this SIS.';
    if (!SCORE_STATUSES.includes(String(record.scoreStatus))) return `scoreStatus must be one of ${SCORE_STATUSES.join(', ')}.`;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text('scoreDate') ?? '')) return 'scoreDate must be a date (YYYY-MM-DD).';
    if (record.score !== undefined && typeof record.score !== 'number') return 'score must be a number.';
    const max = this.lineItems.get(lineItem)!.body.resultValueMax as number;
    const min = this.lineItems.get(lineItem)!.body.resultValueMin as number;
    if (typeof record.score === 'number' && (record.score < min || record.score > max)) return `score must be within the line item's ${min}..${max}.`;
    return null;
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
