// The machinery of the tenancy sweep (tests/tenancy-sweep.test.ts): where the OpenAPI document
// says an operation takes a reference to a record, which kind of record it is, how a valid body
// is built around it, how two answers are compared, and what of an institution is snapshotted.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../server/db/index.js';
import { randomToken } from '../../server/ids.js';

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

export type Schema = Record<string, any>;
export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

export const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof HTTP_METHODS)[number];

export interface Operation {
  method: Method;
  /** OpenAPI path, relative to /v1: `/students/{id}`. */
  path: string;
  /** `post /students/{id}/suspend`: how the maps below name an operation. */
  key: string;
  auth: 'key' | 'session' | 'none';
  op: Schema;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (op) ops.push({ method, path: p, key: `${method} ${p}`, auth: op['x-auth'] ?? 'key', op });
    }
  }
  return ops;
}

export const resolve = (doc: OpenApiDoc, schema: Schema | undefined): Schema | undefined => {
  let current = schema;
  for (let i = 0; current?.$ref && i < 10; i += 1) current = doc.components.schemas[String(current.$ref).split('/').pop()!];
  return current;
};

export function requestBodyOf(doc: OpenApiDoc, op: Operation): { mediaType: string; schema: Schema } | null {
  const content = op.op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
  if (!content) return null;
  const [mediaType, entry] = Object.entries(content)[0]!;
  return { mediaType, schema: resolve(doc, entry.schema)! };
}

// ---------------------------------------------------------------------------------------------
// Reference kinds
// ---------------------------------------------------------------------------------------------

/** Records an operation can be pointed at. The `_email` kinds are the same people by login email. */
export const RECORD_KINDS = [
  'student',
  'student_email',
  'faculty',
  'faculty_email',
  'group',
  'license',
  'seat',
  'guardian',
  'exam',
  'submission',
  'attempt',
  'coupon_batch',
  'curriculum',
  'concept',
  'enrollment',
  'endpoint',
  'delivery',
  'file',
  'key',
  'invitation',
  'account',
] as const;

/**
 * Values that are not a record's id but are unique per institution, or name one of its records
 * inside a string: another institution's value must be as free (or as unknown) as an unused one.
 */
export const VALUE_KINDS = [
  'student_external',
  'faculty_external',
  'personal_email',
  'guardian_email',
  'merit_ref',
  'points_ref',
  'replay_ref',
  'coupon_code',
  'exam_redirect',
] as const;

/** `id:<prefix>`: an id whose prefix has no kind above (a new operation's); its values are read from the database. */
export type RefKind = (typeof RECORD_KINDS)[number] | (typeof VALUE_KINDS)[number] | `id:${string}`;

/** Id prefixes as the document's examples show them. */
const PREFIX_KIND: Record<string, RefKind> = {
  stu: 'student',
  fac: 'faculty',
  grp: 'group',
  lic: 'license',
  seat: 'seat',
  gdn: 'guardian',
  exm: 'exam',
  sub: 'submission',
  att: 'attempt',
  cpb: 'coupon_batch',
  cur: 'curriculum',
  con: 'concept',
  enr: 'enrollment',
  whe: 'endpoint',
  dlv: 'delivery',
  file: 'file',
};

/** Idempotency `ref`s: which institution records hold the other institution's values. */
const IDEMPOTENCY_KIND: Record<string, RefKind> = {
  'post /merits/credits': 'merit_ref',
  'post /alpha/students/{id}/points': 'points_ref',
  'post /webhooks/deliveries/{id}/replay': 'replay_ref',
};

/** A place in a request that names a record: a path or query parameter, or a field of the JSON body. */
export interface Slot {
  where: 'path' | 'query' | 'body';
  /** Parameter name, or the body field's dotted path with `[]` for array items: `code_spec.hidden_tests.file`, `student_ids[]`. */
  name: string;
  kinds: RefKind[];
}

/**
 * Decisions the document's words cannot make: a field's kind when its description and example
 * do not say, and fields that look like references but are not (or are out of the sweep's reach).
 * `null` = not a reference.
 */
const SLOT_OVERRIDES: Record<string, RefKind[] | null> = {
  // The launch-token exchange is public: whoever holds a token signs in to its own institution.
  'post /sso/exchange body:token': null,
  'post /sso/exchange body:device.id': null,
};

const EMAIL_RE = /^[^@\s]+@[^@\s]+$/;
const ID_RE = /^([a-z]{2,5})_[A-Za-z0-9]{16,}$/;

function exampleStrings(schema: Schema, parentExample?: unknown): string[] {
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') out.push(item);
  };
  add(schema.example);
  add(parentExample);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) add(alt.example);
  return out;
}

/**
 * The kinds of a parameter or field, read from its name, description and example the way a
 * client developer would read them; `undefined` when it does not look like a reference.
 */
export function classify(opKey: string, where: Slot['where'], name: string, schema: Schema, parentExample?: unknown): RefKind[] | null | undefined {
  const override = SLOT_OVERRIDES[`${opKey} ${where}:${name}`];
  if (override !== undefined) return override;
  const leaf = name.replace(/\[\]$/, '').split('.').pop()!.replace(/\[\]$/, '');
  const description = String(schema.description ?? '');
  const examples = exampleStrings(schema, parentExample);
  const kinds = new Set<RefKind>();

  if (leaf === 'ref' && /idempot/i.test(description)) {
    const kind = IDEMPOTENCY_KIND[opKey];
    return kind ? [kind] : undefined;
  }
  if (leaf === 'code' && opKey.includes('/coupons/')) return ['coupon_code'];
  if (/own student identifier/i.test(description)) return ['student_external'];
  if (/own faculty identifier/i.test(description)) return ['faculty_external'];
  if (leaf === 'personal_email') return ['personal_email'];
  if (leaf === 'guardian_email') return ['guardian_email'];
  if (examples.some((example) => /^exam:/.test(example))) return ['exam_redirect'];

  for (const example of examples) {
    const prefix = ID_RE.exec(example)?.[1];
    if (prefix) kinds.add(PREFIX_KIND[prefix] ?? `id:${prefix}`);
  }
  const studentOrFaculty = /student or faculty/i.test(description);
  const mentionsEmail = /login email/i.test(description) || examples.some((example) => EMAIL_RE.test(example)) || leaf === 'email';
  // By name when the example does not show the prefix (`group_id`, `exam_id`, `student_id`).
  const byName: Record<string, RefKind> = {
    student_id: 'student',
    student_ids: 'student',
    faculty_id: 'faculty',
    guide_id: 'faculty',
    group_id: 'group',
    group_ids: 'group',
    exam_id: 'exam',
    curriculum_id: 'curriculum',
    concept_id: 'concept',
    endpoint_id: 'endpoint',
  };
  if (kinds.size === 0 && byName[leaf]) kinds.add(byName[leaf]!);
  if (studentOrFaculty && /\bids?\b/i.test(description)) {
    kinds.add('student');
    kinds.add('faculty');
  }
  if (mentionsEmail) {
    if (kinds.has('student') || kinds.has('faculty')) {
      if (kinds.has('student')) kinds.add('student_email');
      if (kinds.has('faculty')) kinds.add('faculty_email');
    } else if (leaf === 'email' || /login email/i.test(description)) {
      // A bare email: whose, the words or the operation say.
      const faculty = /faculty|teacher/i.test(description) || opKey.includes(' /faculty');
      const both = studentOrFaculty;
      if (both || !faculty) kinds.add('student_email');
      if (both || faculty) kinds.add('faculty_email');
      if (/student id|id works too/i.test(description)) kinds.add('student');
    }
  }
  if (/personal email/i.test(description)) kinds.add('personal_email');
  return kinds.size > 0 ? [...kinds] : undefined;
}

/** Names and examples that look like references: each must be classified (or overridden), so a new one cannot slip by. */
export function looksLikeReference(name: string, schema: Schema): boolean {
  const leaf = name.replace(/\[\]/g, '').split('.').pop()!;
  if (/(^|_)(id|ids|ref|refs|email|code|token|file|files)$|Id$/.test(leaf)) return true;
  return exampleStrings(schema).some((example) => ID_RE.test(example));
}

/** Patches for schemas the document leaves open, so their references are still found. */
const SCHEMA_PATCHES: Record<string, (doc: OpenApiDoc, schema: Schema) => Schema> = {
  // `students` items are "each as for POST /students" but the document gives them no schema.
  'post /students/bulk': (doc, schema) => ({
    ...schema,
    properties: {
      ...schema.properties,
      students: {
        ...schema.properties.students,
        items: requestBodyOf(
          doc,
          operationsOf(doc).find((op) => op.key === 'post /students')!,
        )!.schema,
      },
    },
  }),
};

export interface OperationSlots {
  slots: Slot[];
  /** Reference-looking places without a kind: the sweep refuses to silently skip them. */
  unclassified: string[];
  /** Places the document leaves undescribed that the sweep patched (reported, not failed). */
  patched: string[];
}

export function slotsOf(doc: OpenApiDoc, op: Operation): OperationSlots {
  const slots: Slot[] = [];
  const unclassified: string[] = [];
  const patched: string[] = [];
  const consider = (where: Slot['where'], name: string, schema: Schema, parentExample?: unknown) => {
    const kinds = classify(op.key, where, name, schema, parentExample);
    if (kinds === null) return;
    if (kinds) slots.push({ where, name, kinds });
    else if (looksLikeReference(name, schema)) unclassified.push(`${op.key} ${where}:${name}`);
  };
  for (const param of (op.op.parameters ?? []) as Schema[]) {
    if (param.in !== 'path' && param.in !== 'query') continue;
    const schema = {
      ...resolve(doc, param.schema),
      description: param.description ?? param.schema?.description,
      example: param.example ?? param.schema?.example,
    };
    if (param.in === 'path') {
      const kinds = classify(op.key, 'path', param.name, schema);
      if (kinds) slots.push({ where: 'path', name: param.name, kinds });
      else if (kinds === undefined) unclassified.push(`${op.key} path:${param.name}`);
    } else {
      consider('query', param.name, schema);
    }
  }
  const body = requestBodyOf(doc, op);
  if (body && body.mediaType === 'application/json') {
    let schema = body.schema;
    if (SCHEMA_PATCHES[op.key]) {
      schema = SCHEMA_PATCHES[op.key]!(doc, schema);
      patched.push(`${op.key}: request body items undescribed in the document, read as POST /students`);
    }
    const walk = (node: Schema | undefined, at: string, parentExample?: unknown, depth = 0) => {
      node = resolve(doc, node);
      if (!node || depth > 6) return;
      const types = ([] as string[]).concat(node.type ?? []);
      if (node.properties) {
        for (const [name, child] of Object.entries(node.properties as Record<string, Schema>)) walk(child, at ? `${at}.${name}` : name, undefined, depth + 1);
        return;
      }
      if (types.includes('array') && node.items) {
        const items = resolve(doc, node.items)!;
        if (items.properties || items.$ref) walk(items, `${at}[]`, undefined, depth + 1);
        else consider('body', `${at}[]`, { ...items, description: node.description ?? items.description }, node.example);
        return;
      }
      const alternatives = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].map((alt: Schema) => resolve(doc, alt)!);
      if (alternatives.length > 0 && alternatives.some((alt) => alt.type === 'string')) {
        consider('body', at, node, undefined);
        return;
      }
      if (types.includes('string')) consider('body', at, node, parentExample);
    };
    walk(schema, '');
  }
  return { slots, unclassified, patched };
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** A minimal body from the schema: each required field from its example, enum or default. */
export function exampleValue(doc: OpenApiDoc, schema: Schema | undefined, depth = 0): unknown {
  const node = resolve(doc, schema);
  if (!node || depth > 6) return undefined;
  if (node.example !== undefined) return structuredClone(node.example);
  if (node.default !== undefined) return structuredClone(node.default);
  if (node.enum) return node.enum[0];
  const types = ([] as string[]).concat(node.type ?? []);
  if (node.properties) {
    const out: Record<string, unknown> = {};
    for (const name of (node.required ?? []) as string[]) out[name] = exampleValue(doc, node.properties[name], depth + 1);
    return out;
  }
  if (types.includes('array')) return [];
  if (types.includes('integer') || types.includes('number')) return node.minimum ?? 1;
  if (types.includes('boolean')) return false;
  if (types.includes('string')) return 'x';
  if (node.anyOf?.[0]) return exampleValue(doc, node.anyOf[0], depth + 1);
  return undefined;
}

/** Sets `value` at a slot's dotted path (`[]` means: the array holding just this value). */
export function setAt(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node: Record<string, unknown> = target;
  for (const [index, raw] of parts.entries()) {
    const isArray = raw.endsWith('[]');
    const name = raw.replace(/\[\]$/, '');
    const last = index === parts.length - 1;
    if (last) {
      node[name] = isArray ? [value] : value;
      return;
    }
    if (isArray) {
      const list = Array.isArray(node[name]) && (node[name] as unknown[]).length > 0 ? (node[name] as unknown[]) : [{}];
      node[name] = [list[0]];
      node = list[0] as Record<string, unknown>;
    } else {
      if (typeof node[name] !== 'object' || node[name] === null) node[name] = {};
      node = node[name] as Record<string, unknown>;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Values that do not exist
// ---------------------------------------------------------------------------------------------

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const pick = (alphabet: string) => alphabet[randomBytes(1)[0]! % alphabet.length]!;

/**
 * A well-formed value of the same shape as `real` that names nothing: an id with the same prefix,
 * an email at the same domain, a code with the same pattern of letters, digits and separators.
 */
export function lookalike(real: string): string {
  const id = /^([a-z]{2,5}_)([A-Za-z0-9]+)$/.exec(real);
  if (id) return `${id[1]}${randomToken(id[2]!.length)}`;
  const email = /^([^@]+)@(.+)$/.exec(real);
  if (email) return `nobody.${randomToken(10).toLowerCase()}@${email[2]}`;
  const exam = /^exam:(.+)$/.exec(real);
  if (exam) return `exam:${lookalike(exam[1]!)}`;
  return real
    .replace(/[0-9]/g, () => pick(DIGITS))
    .replace(/[a-z]/g, () => pick(LOWER))
    .replace(/[A-Z]/g, () => pick(UPPER));
}

// ---------------------------------------------------------------------------------------------
// Comparing answers
// ---------------------------------------------------------------------------------------------

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const ANY_ID = /\b[a-z]{2,5}_[A-Za-z0-9]{24}\b/g;
const ANY_EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An answer with what legitimately differs between two calls blanked out: the value under test
 * (`<REF>`), ids and emails of rows made by the call, times, request ids and monotonic counters
 * of the caller's own institution (a merit balance grows with each credit).
 */
export function normalizeAnswer(status: number, body: unknown, text: string, injected: string, write: boolean): unknown {
  let raw = body && typeof body === 'object' && Object.keys(body as object).length > 0 ? JSON.stringify(body) : text;
  raw = raw.replace(new RegExp(escapeRe(injected), 'gi'), '<REF>').replace(new RegExp(escapeRe(JSON.stringify(injected).slice(1, -1)), 'gi'), '<REF>');
  raw = raw.replace(ISO, '<ts>').replace(ANY_ID, '<id>').replace(ANY_EMAIL, '<email>');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { status, text: raw };
  }
  const walk = (value: unknown, key: string): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([name]) => name !== 'request_id')
          .map(([name, item]) => [name, walk(item, name)]),
      );
    }
    if (write && typeof value === 'number' && /balance|total|count|points/.test(key)) return '<n>';
    return value;
  };
  return { status, body: walk(parsed, '') };
}

export const errorCodeOf = (body: unknown) => (body && typeof body === 'object' ? ((body as Record<string, unknown>).error as string | undefined) : undefined);

// ---------------------------------------------------------------------------------------------
// Snapshots and leak markers
// ---------------------------------------------------------------------------------------------

export interface InstitutionSnapshot {
  /** Model name → rows (raw values, JSON-stable), sorted. */
  tables: Record<string, string[]>;
  /** Stored file id → sha256 of the bytes on disk. */
  files: Record<string, string>;
}

const stable = (row: Record<string, unknown>) =>
  JSON.stringify(
    Object.fromEntries(
      Object.keys(row)
        .sort()
        .map((key) => [
          key,
          row[key] instanceof Date ? (row[key] as Date).toISOString() : Buffer.isBuffer(row[key]) ? (row[key] as Buffer).toString('base64') : row[key],
        ]),
    ),
  );

/**
 * Every row of the institution, straight from the database: each model with an `institution_id`,
 * the institution itself, its curricula's concepts and its members' portal accounts, and the bytes
 * of its stored files.
 */
export async function snapshotInstitution(db: Database, institutionId: string, dataDir: string): Promise<InstitutionSnapshot> {
  const tables: Record<string, string[]> = {};
  const models = db.models as unknown as Record<
    string,
    { getAttributes(): Record<string, unknown>; findAll(options: object): Promise<Array<Record<string, unknown>>> }
  >;
  for (const [name, model] of Object.entries(models)) {
    // SQLite's search index rows have no table on PostgreSQL, which indexes people.search_text itself.
    if (name === 'PersonSearchRow' && db.sequelize.getDialect() !== 'sqlite') continue;
    const attributes = model.getAttributes();
    if ('institution_id' in attributes) {
      const rows = await model.findAll({ where: { institution_id: institutionId }, raw: true });
      tables[name] = rows.map(stable).sort();
    }
  }
  tables.Institution = (await db.models.Institution.findAll({ where: { id: institutionId }, raw: true })).map((row) =>
    stable(row as unknown as Record<string, unknown>),
  );
  const curricula = (await db.models.AlphaCurriculum.findAll({ where: { institution_id: institutionId }, attributes: ['id'], raw: true })).map((row) => row.id);
  tables.AlphaConcept = (await db.models.AlphaConcept.findAll({ where: { curriculum_id: curricula }, raw: true }))
    .map((row) => stable(row as unknown as Record<string, unknown>))
    .sort();
  const accounts = (await db.models.Membership.findAll({ where: { institution_id: institutionId }, attributes: ['account_id'], raw: true })).map(
    (row) => row.account_id,
  );
  tables.PortalAccount = (await db.models.PortalAccount.findAll({ where: { id: accounts }, raw: true }))
    .map((row) => stable(row as unknown as Record<string, unknown>))
    .sort();

  const files: Record<string, string> = {};
  for (const row of await db.models.StoredFile.findAll({ where: { institution_id: institutionId }, raw: true })) {
    const location = path.join(dataDir, row.storage_path);
    files[row.id] = fs.existsSync(location) ? createHash('sha256').update(fs.readFileSync(location)).digest('hex') : 'missing';
  }
  return { tables, files };
}

/** Rows only in `before`, only in `after`, per table: what changed. */
export function diffSnapshots(before: InstitutionSnapshot, after: InstitutionSnapshot): string[] {
  const changes: string[] = [];
  for (const table of new Set([...Object.keys(before.tables), ...Object.keys(after.tables)])) {
    const was = new Set(before.tables[table] ?? []);
    const is = new Set(after.tables[table] ?? []);
    for (const row of was) if (!is.has(row)) changes.push(`${table} row changed or removed: ${row.slice(0, 400)}`);
    for (const row of is) if (!was.has(row)) changes.push(`${table} row added or changed into: ${row.slice(0, 400)}`);
  }
  for (const id of new Set([...Object.keys(before.files), ...Object.keys(after.files)])) {
    if (before.files[id] !== after.files[id]) changes.push(`stored file ${id}: ${before.files[id]} → ${after.files[id]}`);
  }
  return changes;
}

/** What of an institution must never reach another: its ids, login emails, coupon codes and a marker in its texts. */
export interface Markers {
  ids: Set<string>;
  emails: Set<string>;
  strings: string[];
}

export function markersOf(snapshot: InstitutionSnapshot, extra: string[]): Markers {
  const ids = new Set<string>();
  const emails = new Set<string>();
  for (const rows of Object.values(snapshot.tables)) {
    for (const row of rows) {
      for (const match of row.matchAll(ANY_ID)) ids.add(match[0]);
      const parsed = JSON.parse(row) as Record<string, unknown>;
      if (typeof parsed.login_email === 'string') emails.add(parsed.login_email);
    }
  }
  return { ids, emails, strings: extra };
}

/** The markers found in `text`, except the value the caller sent itself. */
export function leaksIn(text: string, markers: Markers, except: string[]): string[] {
  let scrubbed = text;
  for (const value of except) scrubbed = scrubbed.replace(new RegExp(escapeRe(value), 'gi'), '');
  const found = new Set<string>();
  for (const match of scrubbed.matchAll(ANY_ID)) if (markers.ids.has(match[0])) found.add(match[0]);
  for (const match of scrubbed.matchAll(ANY_EMAIL)) if (markers.emails.has(match[0].toLowerCase())) found.add(match[0]);
  for (const marker of markers.strings) if (scrubbed.includes(marker)) found.add(marker);
  return [...found];
}
