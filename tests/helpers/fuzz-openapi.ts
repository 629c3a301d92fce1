/**
 * Building blocks of tests/fuzz.test.ts: the operations of an OpenAPI document, fast-check
 * arbitraries for valid-ish and hostile requests built from their schemas, a raw HTTP client that
 * sends exactly the bytes it is given (127.0.0.1 only), and the checks every answer must pass.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------
// The OpenAPI document
// ---------------------------------------------------------------------------------------------

export type JsonSchema = { [keyword: string]: any };

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface OperationObject {
  operationId: string;
  'x-auth'?: 'key' | 'session' | 'none';
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

export interface Param {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style, relative to /v1: `/students/{id}`. */
  path: string;
  auth: 'key' | 'session' | 'none';
  pathParams: Param[];
  query: Param[];
  body: { required: boolean; mediaType: string; schema: JsonSchema } | null;
  /** Media type of the 200 answer: `application/json` for the envelope, else a raw body (CSV, a file). */
  produces: string;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = op.parameters ?? [];
      const bodyEntry = op.requestBody ? Object.entries(op.requestBody.content)[0] : undefined;
      operations.push({
        id: op.operationId,
        method,
        path,
        auth: op['x-auth'] ?? 'key',
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, required: true, schema: p.schema ?? {} })),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? {} })),
        body: bodyEntry ? { required: op.requestBody?.required === true, mediaType: bodyEntry[0], schema: bodyEntry[1].schema } : null,
        produces: Object.keys(op.responses['200']?.content ?? { 'application/json': {} })[0] ?? 'application/json',
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Raw JSON: bodies with exactly the bytes we want (-0, 1e309, invalid UTF-8, own __proto__ keys)
// ---------------------------------------------------------------------------------------------

/** A JSON value written as-is into the body, where JSON.stringify could not produce it. */
export class RawJson {
  readonly bytes: Buffer;
  constructor(text: string | Buffer) {
    this.bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  }
  [fc.toStringMethod](): string {
    return `raw(${short(this.bytes.toString('latin1'), 60)})`;
  }
}

/** An object with `key` as an own, enumerable property, even for `__proto__`. */
export function withOwnKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(target)) Object.defineProperty(copy, k, { value: target[k], enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Where an absolute URL to any other host is pointed instead (the discard port: refused at once). */
export const LOCAL_STAND_IN = 'http://127.0.0.1:9/stand-in';

/**
 * A string that names another host (a webhook URL the server would resolve and call) becomes
 * LOCAL_STAND_IN: no body the fuzzer sends can make the appliance look up or contact anything but
 * 127.0.0.1.
 */
export function keepLocal(text: string): string {
  // Parsed as the server parses it (WHATWG URL), so `http:\\host` and `http:host` count too.
  let host: string;
  try {
    host = new URL(text).hostname;
  } catch {
    return text;
  }
  return host === '' || host === '127.0.0.1' ? text : LOCAL_STAND_IN;
}

/**
 * Serializes a JSON-like value with RawJson nodes; non-finite numbers become null as in
 * JSON.stringify, and URLs of other hosts the local stand-in (see keepLocal).
 */
export function encodeJson(value: unknown): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  const walk = (v: unknown): void => {
    if (v instanceof RawJson) parts.push(v.bytes);
    else if (v === null || v === undefined) text('null');
    else if (typeof v === 'boolean') text(String(v));
    else if (typeof v === 'number') text(Number.isFinite(v) ? JSON.stringify(v) : 'null');
    else if (typeof v === 'string') text(JSON.stringify(keepLocal(v)));
    else if (Array.isArray(v)) {
      text('[');
      v.forEach((item, i) => {
        if (i > 0) text(',');
        walk(item);
      });
      text(']');
    } else if (typeof v === 'object') {
      text('{');
      Object.keys(v).forEach((key, i) => {
        if (i > 0) text(',');
        text(`${JSON.stringify(key)}:`);
        walk((v as Record<string, unknown>)[key]);
      });
      text('}');
    } else text('null');
  };
  walk(value);
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// Percent-encoding that never throws (lone surrogates become their WTF-8 bytes: invalid UTF-8)
// ---------------------------------------------------------------------------------------------

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function utf8Bytes(codePoint: number): number[] {
  if (codePoint < 0x80) return [codePoint];
  if (codePoint < 0x800) return [0xc0 | (codePoint >> 6), 0x80 | (codePoint & 63)];
  if (codePoint < 0x10000) return [0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 63), 0x80 | (codePoint & 63)];
  return [0xf0 | (codePoint >> 18), 0x80 | ((codePoint >> 12) & 63), 0x80 | ((codePoint >> 6) & 63), 0x80 | (codePoint & 63)];
}

export function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    if (UNRESERVED.test(char)) out += char;
    else for (const byte of utf8Bytes(char.codePointAt(0)!)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Plans: what one generated request is, before credentials are filled in at send time
// ---------------------------------------------------------------------------------------------

/** `valid`: the operation's own credential; `wrong-kind`: a session on a key route and the reverse; `literal`: `authLiteral` as is. */
export type PlanCredential = 'valid' | 'none' | 'wrong-kind' | 'literal';

/** What the answer must be beyond the common properties; `any` = only the common ones. */
export type Expectation =
  { kind: 'any' } | { kind: 'status'; status: number; error?: string } | { kind: 'client-error' } | { kind: 'status-in'; statuses: number[] };

export interface Plan {
  /** Which generator made it, for counting and for the failure message. */
  label: string;
  method: string;
  /** Path and query string, already encoded: exactly the request target. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | null;
  credential: PlanCredential;
  authLiteral?: string;
  /** The expectation when the credential is valid (without one, 401 may come first). */
  expect: Expectation;
  /** The expectation holds even without a valid credential (routing errors come before auth). */
  expectAlways?: boolean;
}

export function describePlan(plan: Plan, origin = 'http://127.0.0.1:$PORT'): string {
  const headers = Object.entries(plan.headers)
    .map(([name, value]) => ` -H ${shellQuote(`${name}: ${value}`)}`)
    .join('');
  const auth =
    plan.credential === 'none'
      ? ''
      : plan.credential === 'literal'
        ? ` -H ${shellQuote(`Authorization: ${short(plan.authLiteral ?? '', 80)}`)}`
        : ` -H 'Authorization: Bearer <${plan.credential} credential>'`;
  let body = '';
  if (plan.body) {
    const text = plan.body.toString('utf8');
    body =
      plan.body.length <= 400 && !/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)
        ? ` --data-binary ${shellQuote(text)}`
        : ` --data-binary <${plan.body.length} bytes: ${JSON.stringify(short(plan.body.toString('latin1'), 160))}>`;
  }
  return `[${plan.label}] curl -sS -X ${plan.method.toUpperCase()} ${shellQuote(`${origin}${short(plan.target, 300)}`)}${auth}${headers}${body}`;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function short(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max)}…(${value.length} chars)`;
}

/** Gives plans a short printed form, so fast-check's counterexample stays readable. */
export function printable(plan: Plan): Plan {
  return Object.defineProperty(plan, fc.toStringMethod, { value: () => describePlan(plan), enumerable: false });
}

// ---------------------------------------------------------------------------------------------
// The raw client
// ---------------------------------------------------------------------------------------------

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on a fresh connection to 127.0.0.1:port, with exactly these headers and body. */
export function sendRaw(
  port: number,
  request: { method: string; target: string; headers: Record<string, string>; body: Buffer | null },
  timeoutMs = 30_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
      headers['Content-Length'] = String(request.body.length);
    }
    const req = http.request({ host: '127.0.0.1', port, method: request.method.toUpperCase(), path: request.target, headers, agent: false, setHost: true });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let settled = false;
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        if (!settled) reject(error);
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      if (!settled) reject(error);
    });
    if (request.body) req.end(request.body);
    else req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// The checks every answer must pass
// ---------------------------------------------------------------------------------------------

/**
 * Problems with an answer, empty when it is fine: never 5xx, always X-Request-Id, and the JSON
 * envelope unless the operation's 200 is another media type (then that type, on 2xx only).
 */
export function answerProblems(answer: RawAnswer, options: { produces: string; method: string; expect: Expectation; rawSuccess?: boolean }): string[] {
  const problems: string[] = [];
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (!answer.headers['x-request-id']) problems.push('no X-Request-Id header');

  // `rawSuccess`: a path that is not an operation (the document, the reference) answers its own
  // format on success, redirects included.
  const raw = answer.status >= 200 && answer.status < (options.rawSuccess ? 400 : 300) && (options.rawSuccess || options.produces !== 'application/json');
  if (raw && answer.status >= 300) {
    if (!answer.headers.location) problems.push(`redirect ${answer.status} without Location`);
  } else if (raw) {
    if (options.produces === 'application/octet-stream') {
      // A file download carries the uploader's media type (or octet-stream) as an attachment.
      if (!type) problems.push('file download without Content-Type');
      if (!String(answer.headers['content-disposition'] ?? '').startsWith('attachment')) problems.push('file download not sent as an attachment');
    } else if (!type.toLowerCase().startsWith(options.produces)) {
      problems.push(`Content-Type ${JSON.stringify(type)}, expected ${options.produces}`);
    }
  } else if (options.method.toLowerCase() !== 'head') {
    problems.push(...envelopeProblems(answer, type));
  }

  const expectation = options.expect;
  if (expectation.kind === 'status') {
    if (answer.status !== expectation.status) problems.push(`expected status ${expectation.status}, got ${answer.status}`);
    if (expectation.error !== undefined) {
      const error = parseJson(answer.body) as { error?: unknown } | undefined;
      if (error?.error !== expectation.error) problems.push(`expected error ${expectation.error}, got ${JSON.stringify(error?.error)}`);
    }
  } else if (expectation.kind === 'client-error') {
    if (answer.status < 400 || answer.status > 499) problems.push(`expected a 4xx, got ${answer.status}`);
  } else if (expectation.kind === 'status-in') {
    if (!expectation.statuses.includes(answer.status)) problems.push(`expected one of ${expectation.statuses.join('/')}, got ${answer.status}`);
  }
  return problems;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function envelopeProblems(answer: RawAnswer, type: string): string[] {
  if (!/^application\/json\b/i.test(type)) return [`Content-Type ${JSON.stringify(type)}, expected the JSON envelope`];
  const parsed = parseJson(answer.body);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return ['body is not a JSON object'];
  const envelope = parsed as Record<string, unknown>;
  if (envelope.success === true) {
    if (!('data' in envelope)) return ['success envelope without data'];
    if (answer.status < 200 || answer.status > 299) return [`success envelope with status ${answer.status}`];
    return [];
  }
  if (envelope.success === false) {
    const problems: string[] = [];
    if (typeof envelope.error !== 'string' || envelope.error === '') problems.push('error envelope without an error code');
    if (typeof envelope.message !== 'string' || envelope.message === '') problems.push('error envelope without a message');
    if (answer.status < 400) problems.push(`error envelope with status ${answer.status}`);
    return problems;
  }
  return ['body is not the envelope (no boolean success)'];
}

export function answerSummary(answer: RawAnswer): string {
  return `${answer.status} ${String(answer.headers['content-type'] ?? '-')} ${short(answer.body.toString('utf8'), 300)}`;
}

// ---------------------------------------------------------------------------------------------
// Valid-ish values from a schema
// ---------------------------------------------------------------------------------------------

export interface GenContext {
  schemas: Record<string, JsonSchema>;
  /** Real values for a field or parameter name (ids, emails, codes), so handlers get past lookups. */
  poolFor: (name: string) => readonly string[];
  /** Where any `url` field may point: a receiver on 127.0.0.1. */
  localUrls: readonly string[];
}

export function resolveSchema(schema: JsonSchema, ctx: GenContext): JsonSchema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = { ...ctx.schemas[name], ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== '$ref')) };
  }
  if (Array.isArray(current.allOf)) {
    const merged: JsonSchema = { ...current };
    delete merged.allOf;
    for (const part of current.allOf as JsonSchema[]) {
      const resolved = resolveSchema(part, ctx);
      Object.assign(merged, resolved, {
        properties: { ...(merged.properties ?? {}), ...(resolved.properties ?? {}) },
        required: [...(merged.required ?? []), ...(resolved.required ?? [])],
      });
    }
    if (Object.keys(merged.properties).length === 0) delete merged.properties;
    return merged;
  }
  return current;
}

const isoDate = fc
  .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2100-01-01T00:00:00.000Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** A value the schema accepts, most of the time: lengths are kept small, real ids preferred. */
export function validish(schema: JsonSchema, ctx: GenContext, name = '', depth = 0): fc.Arbitrary<unknown> {
  const s = resolveSchema(schema, ctx);
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const options = (s.anyOf ?? s.oneOf) as JsonSchema[];
    return fc.oneof(...options.map((option) => validish(option, ctx, name, depth)));
  }
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if ('const' in s) return fc.constant(s.const);
  const types: string[] = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
  if (types.length > 1) {
    const nonNull = types.filter((t) => t !== 'null');
    const arbs = nonNull.map((type) => ({ weight: 4, arbitrary: validish({ ...s, type }, ctx, name, depth) }));
    // A nullable object is often a whole optional feature (code_spec): leave it out as often as not.
    if (types.includes('null')) arbs.push({ weight: nonNull.includes('object') ? 4 : 1, arbitrary: fc.constant(null) });
    return fc.oneof(...arbs);
  }
  const type = types[0] ?? (s.properties ? 'object' : s.items ? 'array' : undefined);
  switch (type) {
    case 'string':
      return stringValidish(s, ctx, name);
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -1000;
      const max = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : Math.max(min, 0) + 1000;
      return fc.integer({ min, max });
    }
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : -1e6;
      const max = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : 1e6;
      return fc.oneof(
        fc.integer({ min: Math.ceil(min + (typeof s.exclusiveMinimum === 'number' ? 1 : 0)), max: Math.floor(max) }),
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: typeof s.exclusiveMinimum === 'number' }),
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      let items: JsonSchema = s.items ?? {};
      // `POST /students/bulk` documents its items in prose: each as for POST /students.
      if (Object.keys(items).length === 0 && name === 'students' && ctx.schemas.StudentCreate) items = ctx.schemas.StudentCreate;
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxLength = Math.min(typeof s.maxItems === 'number' ? s.maxItems : 4, minLength + 4);
      return fc.array(validish(items, ctx, singular(name), depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set<string>((s.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, propertySchema] of Object.entries(properties)) model[key] = validish(propertySchema, ctx, key, depth + 1);
      // Fields with real values to use (owners, students) are always sent: leaving them out is the
      // body-field-removed mutation's job, and without them most valid-ish requests stop at 422.
      for (const key of Object.keys(model)) if (ctx.poolFor(key).length > 0) required.add(key);
      const record = fc.record(model, { requiredKeys: [...required].filter((key) => key in model) }) as fc.Arbitrary<Record<string, unknown>>;
      if (s.additionalProperties && typeof s.additionalProperties === 'object' && depth < 4) {
        // Free-form maps: any JSON under any key; typed maps (named commands): plain names, typed values.
        const typed = Object.keys(s.additionalProperties as JsonSchema).length > 0;
        const extra = typed
          ? fc.dictionary(fc.constantFrom('build', 'test', 'run', 'lint'), validish(s.additionalProperties as JsonSchema, ctx, name, depth + 1), { maxKeys: 3 })
          : fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
        return fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known }));
      }
      return record;
    }
    default:
      // No type: any JSON (answers, free-form details).
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** The item name of a list field: `student_ids` → `student_id`, so items draw from the same pool. */
function singular(name: string): string {
  return name.endsWith('_ids') ? name.slice(0, -1) : name;
}

function stringValidish(s: JsonSchema, ctx: GenContext, name: string): fc.Arbitrary<string> {
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
  const maxLength = Math.max(minLength, Math.min(typeof s.maxLength === 'number' ? s.maxLength : 60, 60));
  let generic: fc.Arbitrary<string>;
  if (s.format === 'date-time') generic = isoDate;
  else if (s.format === 'email') generic = fc.emailAddress().filter((email) => email.length <= (s.maxLength ?? 320));
  else if (typeof s.pattern === 'string') {
    generic = fc.stringMatching(new RegExp(s.pattern as string)).filter((value) => value.length >= minLength && value.length <= (s.maxLength ?? 1000));
  } else generic = fc.string({ minLength, maxLength });
  const options: Array<fc.WeightedArbitrary<string>> = [{ weight: 2, arbitrary: generic }];
  if (typeof s.example === 'string') options.push({ weight: 1, arbitrary: fc.constant(keepLocal(s.example)) });
  if (name === 'url' || name === 'base_url') options.push({ weight: 6, arbitrary: fc.constantFrom(...ctx.localUrls) });
  const pool = ctx.poolFor(name);
  if (pool.length > 0) options.push({ weight: 6, arbitrary: fc.constantFrom(...pool) });
  return fc.oneof(...options);
}

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

const RAW_NUMBERS = [
  '-0',
  '1e308',
  '-1e308',
  '1e309',
  '-1e309',
  '9007199254740993',
  '-9007199254740993',
  '1e-400',
  '123456789012345678901234567890',
  '1E2',
  '0.30000000000000004',
];
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83D',
  '\uDE00y',
  '\uD83D\uDE00',
  '\u202Eevil',
  '\u200B',
  '\uFEFF',
  '\u2028\u2029',
  'e\u0301',
  '👨‍👩‍👧‍👦',
  'İı ß ǅ',
  'NaN',
  'Infinity',
  '-0',
  '1e2',
  '0x10',
  'true',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  'constructor',
  "' OR 1=1 --",
  "Robert'); DROP TABLE people;--",
  '%',
  '%_\\',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '0000-00-00T00:00:00Z',
  'a@b',
  '@',
  'ADA@EXAMPLE.ORG ',
  'stu_',
  'file_../../x',
  '\r\nX-Injected: 1',
];

/** Raw strings whose bytes are not valid UTF-8, or escapes JSON.parse turns into lone surrogates. */
const RAW_STRINGS = [
  Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), // "<lone surrogate as UTF-8>"
  Buffer.from([0x22, 0xff, 0xfe, 0x22]),
  Buffer.from([0x22, 0xc0, 0xaf, 0x22]), // overlong "/"
  Buffer.from('"\\ud800"'),
  Buffer.from('"a\\u0000b"'),
  Buffer.from('"\\udfff\\ud800"'),
];

export const hugeString = fc.oneof(
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 1_000, max: 25_000 }).map((n) => '😀'.repeat(n)),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => 'é\u0000'.repeat(Math.floor(n / 2))),
  fc.integer({ min: 1_000, max: 30_000 }).map((n) => '\uD800x'.repeat(Math.floor(n / 2))),
);

/** Anything a field should not hold: wrong types, extremes, odd unicode, huge strings. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      [],
      {},
      [null],
      { a: {} },
      [1, 'a', null],
      Number.MAX_SAFE_INTEGER,
      Number.MIN_VALUE,
      -1e-7,
    ),
  },
  { weight: 3, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((text) => new RawJson(text)) },
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_STRINGS).map((bytes) => new RawJson(bytes)) },
  { weight: 2, arbitrary: hugeString },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 33, max: 60 }).map((depth) => nestedArrays(depth)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_001, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => `x${i}`)) },
);

function nestedArrays(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/**
 * Strings for query values and path segments. Encoded, one is at most ~3,600 characters, so no
 * request passes Node's 16 KB limit on the request head (past it Node itself answers a bare 431,
 * before the app sees the request).
 */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 321, max: 1_200 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 30, max: 250 }).map((n) => '😀'.repeat(n)) },
);

/** Whole-number query values not written in plain decimal digits: must be refused with 422. */
export const NUMBER_FORMS = [
  '1e2',
  '1E1',
  '0x10',
  '0X1f',
  '0b11',
  '0o7',
  '1.0',
  '5.5',
  ' 5',
  '5 ',
  '+5',
  '-0',
  '-1',
  '1_0',
  'NaN',
  'Infinity',
  '9007199254740993',
  '1e308',
  '',
];

/** Percent escapes no decoder accepts: bad hex, truncated, invalid UTF-8, a UTF-8 lone surrogate. */
export const BAD_ESCAPES = ['%ZZ', '%', '%4', 'a%G1', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%F0%9F%98', 'x%'];

/** Every node of a JSON-like value as a path of keys, the root included. */
export function jsonPaths(value: unknown, max = 200): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [[]];
  const walk = (v: unknown, path: Array<string | number>) => {
    if (out.length >= max || v === null || typeof v !== 'object' || v instanceof RawJson) return;
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v);
    for (const [key, item] of entries) {
      const next = [...path, key];
      out.push(next);
      walk(item, next);
    }
  };
  walk(value, []);
  return out;
}

/** A copy of `value` with the node at `path` replaced (or, with `remove`, dropped). */
export function replaceAt(value: unknown, path: Array<string | number>, replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && remove) copy.splice(Number(head), 1);
    else copy[Number(head)] = replaceAt(copy[Number(head)], rest, replacement, remove);
    return copy;
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key === head && rest.length === 0 && remove) continue;
      const item = (value as Record<string, unknown>)[key];
      Object.defineProperty(copy, key, {
        value: key === head ? replaceAt(item, rest, replacement, remove) : item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Raw bodies
// ---------------------------------------------------------------------------------------------

/** Nesting far past anything a route needs, as one raw JSON string (no recursion to build it). */
export function deepJson(levels: number, shape: 'array' | 'object' | 'mixed', wrapKey?: string): Buffer {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    const asObject = shape === 'object' || (shape === 'mixed' && i % 2 === 1);
    open += asObject ? '{"a":' : '[';
    close = (asObject ? '}' : ']') + close;
  }
  const inner = `${open}1${close}`;
  return Buffer.from(wrapKey ? `{${JSON.stringify(wrapKey)}:${inner}}` : inner);
}

export const MALFORMED_JSON = [
  '{',
  '{"a":}',
  '{"a" 1}',
  "{'a':1}",
  '{"a":1,}',
  '[1,2',
  'nul',
  '{"a":1}{"b":2}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":0x10}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":"\\x41"}',
  '{"a":"\u0001"}',
  '\uFEFF{}',
  '"string"',
  '123',
  'null',
  'true',
  '[]',
  '{}',
  '',
  ' ',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"a":1,"a":2}',
];

export function gzipBody(body: Buffer): Buffer {
  return zlib.gzipSync(body);
}

// ---------------------------------------------------------------------------------------------
// Multipart bodies
// ---------------------------------------------------------------------------------------------

export interface Part {
  headers: string[];
  content: Buffer;
}

export function multipartBody(boundary: string, parts: Part[], options: { closing?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`, 'latin1'));
    chunks.push(part.content, Buffer.from('\r\n'));
  }
  if (options.closing !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const filePart = (filename: string, content: Buffer, type = 'application/octet-stream', field = 'file'): Part => ({
  headers: [`Content-Disposition: form-data; name="${field}"; filename="${filename}"`, `Content-Type: ${type}`],
  content,
});

const fileName = fc.oneof(
  // The names an exam's files must have, then ordinary and odd ones.
  { weight: 4, arbitrary: fc.constantFrom('starter.zip', 'sample-tests.zip', 'hidden-tests.zip.enc') },
  { weight: 2, arbitrary: fc.constantFrom('solution.py', 'notes.txt', 'recording.webm', 'a', '.hidden', 'no-extension') },
  { weight: 1, arbitrary: fc.constantFrom('résumé.pdf', '数学.txt', '😀.png', 'a b c.txt', '..\\..\\x.txt', '../../etc/passwd', 'CON', 'x'.repeat(300)) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((name) => !/["\r\n]/.test(name)) },
);

const fileType = fc.constantFrom(
  'application/octet-stream',
  'application/zip',
  'text/plain',
  'text/x-python',
  'video/webm',
  'image/png',
  'text/html',
  'application/json',
);

interface UploadShape {
  label: string;
  contentType: string;
  body: Buffer;
  /** A malformed upload that must be refused with 422 validation_error. */
  malformed: boolean;
}

/** A well-formed upload of one `file` part, or one of the malformed shapes a parser must refuse. */
export const uploadShape: fc.Arbitrary<UploadShape> = fc
  .tuple(fileName, fileType, fc.uint8Array({ maxLength: 4096 }), fc.nat(), fc.constantFrom('----fuzzBoundary7MA4YWxk', 'x', 'a'.repeat(70), "'()+_,-./:=?"))
  .chain(([name, type, bytes, cut, boundary]) => {
    const content = Buffer.from(bytes);
    const ct = `multipart/form-data; boundary=${boundary.includes("'") ? `"${boundary}"` : boundary}`;
    const good = multipartBody(boundary, [filePart(name, content, type)]);
    const shapes: UploadShape[] = [
      { label: 'upload', contentType: ct, body: good, malformed: false },
      { label: 'upload-preamble', contentType: ct, body: Buffer.concat([Buffer.from('preamble\r\n'), good, Buffer.from('epilogue')]), malformed: false },
      {
        label: 'upload-unicode-filename-star',
        contentType: ct,
        body: multipartBody(boundary, [{ headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''%E6%95%B0%E5%AD%A6.txt`], content }]),
        malformed: false,
      },
      { label: 'upload-no-boundary', contentType: 'multipart/form-data', body: good, malformed: true },
      { label: 'upload-empty-boundary', contentType: 'multipart/form-data; boundary=', body: good, malformed: true },
      { label: 'upload-boundary-mismatch', contentType: 'multipart/form-data; boundary=other', body: good, malformed: true },
      { label: 'upload-truncated', contentType: ct, body: good.subarray(0, cut % Math.max(1, good.length - boundary.length - 8)), malformed: true },
      {
        label: 'upload-no-closing-boundary',
        contentType: ct,
        body: multipartBody(boundary, [filePart(name, content, type)], { closing: false }),
        malformed: true,
      },
      {
        label: 'upload-header-control-char',
        contentType: ct,
        body: multipartBody(boundary, [{ headers: [`Content-Disposition: form-data; name="file"; filename="a\u0001b.txt"`, 'X-Fuzz\u0007: 1'], content }]),
        malformed: true,
      },
      {
        label: 'upload-header-without-colon',
        contentType: ct,
        body: multipartBody(boundary, [{ headers: ['Content-Disposition form-data; name="file"; filename="a.txt"'], content }]),
        malformed: true,
      },
      { label: 'upload-nul-filename', contentType: ct, body: multipartBody(boundary, [filePart('a\u0000.txt', content)]), malformed: true },
      { label: 'upload-no-parts', contentType: ct, body: Buffer.from(`--${boundary}--\r\n`), malformed: true },
      { label: 'upload-empty-body', contentType: ct, body: Buffer.alloc(0), malformed: true },
      { label: 'upload-garbage', contentType: ct, body: Buffer.concat([Buffer.from('\u0000\u00ff garbage '), content]), malformed: true },
      { label: 'upload-wrong-field', contentType: ct, body: multipartBody(boundary, [filePart(name, content, type, 'upload')]), malformed: true },
      {
        label: 'upload-two-files',
        contentType: ct,
        body: multipartBody(boundary, [filePart(name, content, type), filePart('second.txt', content)]),
        malformed: true,
      },
      {
        label: 'upload-text-field',
        contentType: ct,
        body: multipartBody(boundary, [
          { headers: ['Content-Disposition: form-data; name="note"'], content: Buffer.from('hi') },
          filePart(name, content, type),
        ]),
        malformed: true,
      },
      { label: 'upload-no-disposition', contentType: ct, body: multipartBody(boundary, [{ headers: ['Content-Type: text/plain'], content }]), malformed: true },
      { label: 'upload-json-instead', contentType: 'application/json', body: Buffer.from('{"file":"x"}'), malformed: true },
      { label: 'upload-huge-filename', contentType: ct, body: multipartBody(boundary, [filePart('n'.repeat(20_000), content)]), malformed: false },
    ];
    const wellFormed = shapes.filter((shape) => !shape.malformed);
    wellFormed.unshift(shapes[0]!, shapes[0]!); // mostly the plain upload
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...wellFormed) },
      { weight: 3, arbitrary: fc.constantFrom(...shapes.filter((shape) => shape.malformed)) },
    );
  });

// ---------------------------------------------------------------------------------------------
// Plans for one operation
// ---------------------------------------------------------------------------------------------

export interface PlanContext extends GenContext {
  /** Real values for a path parameter of an operation. */
  pathPool: (op: Operation, param: string) => readonly string[];
  /** A whole valid request target for operations that need matching values (signed file links). */
  validTarget?: (op: Operation) => fc.Arbitrary<string> | undefined;
}

const credentialArb: fc.Arbitrary<Pick<Plan, 'credential'> & { authLiteral?: string }> = fc.oneof(
  { weight: 40, arbitrary: fc.constant({ credential: 'valid' as const }) },
  { weight: 3, arbitrary: fc.constant({ credential: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ credential: 'wrong-kind' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((rest) => `Bearer cb_live_${rest}`),
        fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((rest) => `Bearer cb_sess_${rest}`),
        fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer\tcb_live_x', 'Bearer cb_live_', 'Bearer a b c', 'Bearer \u00ff\u00fe', 'Token abc'),
        fc.integer({ min: 500, max: 3_000 }).map((n) => `Bearer ${'k'.repeat(n)}`),
        fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
      )
      .map((authLiteral) => ({ credential: 'literal' as const, authLiteral })),
  },
);

export type FuzzPlan = Plan;

const JSON_TYPE = { 'Content-Type': 'application/json' };

function isJsonBodyRoute(op: Operation): boolean {
  return (op.method === 'post' || op.method === 'put' || op.method === 'patch') && op.body?.mediaType !== 'multipart/form-data';
}

function queryString(pairs: Array<[string, string]>): string {
  return pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`).join('&')}`;
}

function pathArb(op: Operation, ctx: PlanContext): fc.Arbitrary<string[]> {
  if (op.pathParams.length === 0) return fc.constant([]);
  return fc.tuple(
    ...op.pathParams.map((param) => {
      const pool = ctx.pathPool(op, param.name);
      const generic = validish(param.schema, ctx, param.name).map(String);
      return pool.length > 0 ? fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: generic }) : generic;
    }),
  );
}

function fillPath(op: Operation, encodedValues: string[]): string {
  let i = 0;
  return `/v1${op.path.replace(/\{(\w+)\}/g, () => encodedValues[i++] ?? '')}`;
}

function queryArb(op: Operation, ctx: PlanContext): fc.Arbitrary<Array<[string, string]>> {
  if (op.query.length === 0) return fc.constant([]);
  return fc
    .tuple(
      ...op.query.map((param) => {
        const value = validish(param.schema, ctx, param.name).map((v): [string, string] => [param.name, String(v)]);
        return param.required ? value.map((pair) => [pair]) : fc.option(value, { freq: 2, nil: null }).map((pair) => (pair ? [pair] : []));
      }),
    )
    .map((lists) => lists.flat() as Array<[string, string]>);
}

function bodyArb(op: Operation, ctx: PlanContext): fc.Arbitrary<unknown | undefined> {
  if (!op.body || op.body.mediaType !== 'application/json') return fc.constant(undefined);
  const value = validish(op.body.schema, ctx, '');
  return op.body.required ? value : fc.option(value, { freq: 4, nil: undefined });
}

/** The parts of a valid-ish request: encoded path, query pairs, JSON value of the body (undefined: none). */
function validParts(op: Operation, ctx: PlanContext): fc.Arbitrary<{ path: string; query: Array<[string, string]>; body: unknown | undefined }> {
  const special = ctx.validTarget?.(op);
  const target = special
    ? special.map((whole) => ({ path: whole, query: [] as Array<[string, string]> }))
    : fc.tuple(pathArb(op, ctx), queryArb(op, ctx)).map(([values, query]) => ({ path: fillPath(op, values.map(percentEncode)), query }));
  return fc.tuple(target, bodyArb(op, ctx)).map(([t, body]) => ({ ...t, body }));
}

function plan(
  op: Operation,
  fields: Omit<FuzzPlan, 'method' | 'credential'> & { method?: string },
  credential: { credential: PlanCredential; authLiteral?: string },
): FuzzPlan {
  return printable({ method: op.method, ...credential, ...fields });
}

function jsonBodyOf(body: unknown | undefined): { headers: Record<string, string>; body: Buffer | null } {
  return body === undefined ? { headers: {}, body: null } : { headers: { ...JSON_TYPE }, body: encodeJson(body) };
}

/**
 * Every kind of request the suite sends to one operation, weighted: mostly valid-ish, then each
 * family of hostile input that applies to it.
 */
export function planArb(op: Operation, ctx: PlanContext, allOps: readonly Operation[]): fc.Arbitrary<FuzzPlan> {
  const valid = validParts(op, ctx);
  const kinds: Array<fc.WeightedArbitrary<FuzzPlan>> = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<FuzzPlan>) => kinds.push({ weight, arbitrary });
  const isUpload = op.body?.mediaType === 'multipart/form-data';
  const jsonRoute = isJsonBodyRoute(op);

  // Valid-ish requests.
  if (isUpload) {
    add(
      16,
      fc.tuple(valid, uploadShape, credentialArb).map(([parts, shape, cred]) =>
        plan(
          op,
          {
            label: shape.label,
            target: parts.path + queryString(parts.query),
            headers: { 'Content-Type': shape.contentType },
            body: shape.body,
            // The target may be gone or closed (404, 409 come before the body is read): any 4xx.
            // tests/fuzz.test.ts checks the exact 422 against live targets.
            expect: shape.malformed ? { kind: 'client-error' } : { kind: 'any' },
          },
          cred,
        ),
      ),
    );
  } else {
    add(
      14,
      fc
        .tuple(valid, credentialArb)
        .map(([parts, cred]) =>
          plan(op, { label: 'valid', target: parts.path + queryString(parts.query), ...jsonBodyOf(parts.body), expect: { kind: 'any' } }, cred),
        ),
    );
  }

  // A field of the body replaced by a hostile value, removed, or joined by prototype keys.
  if (op.body?.mediaType === 'application/json') {
    add(
      10,
      fc.tuple(valid, fc.nat(), nastyValue, fc.nat({ max: 9 }), credentialArb).map(([parts, pick, nasty, mode, cred]) => {
        const base = parts.body === undefined ? {} : parts.body;
        const paths = jsonPaths(base);
        const at = paths[pick % paths.length] ?? [];
        let mutated: unknown;
        let label: string;
        if (mode < 6) {
          mutated = replaceAt(base, at, nasty);
          label = 'body-field-nasty';
        } else if (mode < 8 && at.length > 0) {
          mutated = replaceAt(base, at, undefined, true);
          label = 'body-field-removed';
        } else {
          const objectPaths = paths.filter((p) => {
            let node: unknown = base;
            for (const key of p) node = (node as Record<string | number, unknown>)[key];
            return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);
          });
          const where = objectPaths[pick % Math.max(1, objectPaths.length)] ?? [];
          let node: unknown = base;
          for (const key of where) node = (node as Record<string | number, unknown>)[key];
          const target = node && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>) : {};
          const key = ['__proto__', 'constructor', 'prototype', 'extra_field', 'a\u0000b', ''][pick % 6]!;
          const value = key === 'constructor' ? { prototype: { polluted: 'yes' } } : key === '__proto__' ? { polluted: 'yes', isAdmin: true } : nasty;
          mutated =
            where.length === 0 && !(node && typeof node === 'object' && !Array.isArray(node))
              ? withOwnKey({}, key, value)
              : replaceAt(base, where, withOwnKey(target, key, value));
          label = `body-extra-key:${JSON.stringify(key)}`;
        }
        return plan(
          op,
          { label, target: parts.path + queryString(parts.query), headers: { ...JSON_TYPE }, body: encodeJson(mutated), expect: { kind: 'any' } },
          cred,
        );
      }),
    );
  }

  // The whole body hostile: another JSON type, malformed JSON, a huge value.
  if (jsonRoute) {
    add(
      5,
      fc
        .tuple(
          valid,
          fc.oneof(
            nastyValue.map((v) => encodeJson(v)),
            fc.constantFrom(...MALFORMED_JSON).map((text) => Buffer.from(text)),
          ),
          credentialArb,
        )
        .map(([parts, body, cred]) =>
          plan(op, { label: 'body-whole', target: parts.path + queryString(parts.query), headers: { ...JSON_TYPE }, body, expect: { kind: 'any' } }, cred),
        ),
    );
  }

  // Nesting far past any schema: 422 validation_error, never a crash.
  add(
    3,
    fc
      .tuple(
        valid,
        fc.constantFrom(10_000, 5_000, 2_000),
        fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
        fc.boolean(),
        credentialArb,
      )
      .map(([parts, levels, shape, wrapped, cred]) => {
        const firstKey = Object.keys(resolveSchema(op.body?.schema ?? {}, ctx).properties ?? {})[0] ?? 'x';
        return plan(
          op,
          {
            label: `deep-json:${levels}:${shape}${wrapped ? `:in-${firstKey}` : ''}`,
            target: parts.path + queryString(parts.query),
            headers: { ...JSON_TYPE },
            body: deepJson(levels, shape, wrapped ? firstKey : undefined),
            expect: jsonRoute ? { kind: 'status', status: 422, error: 'validation_error' } : { kind: 'any' },
          },
          cred,
        );
      }),
  );

  // A JSON body sent as another media type.
  add(
    4,
    fc
      .tuple(
        valid,
        fc.constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=fuzzB',
          'multipart/form-data',
          '',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'application/json; charset=utf-8',
          'application/merge-patch+json',
          'APPLICATION/JSON',
          'application/json;;;',
          'text/json',
          '*/*',
          'application/xml',
        ),
        credentialArb,
      )
      .map(([parts, contentType, cred]) => {
        const json = encodeJson(parts.body ?? {});
        let body = json;
        if (contentType === 'application/x-www-form-urlencoded') {
          const flat = parts.body && typeof parts.body === 'object' && !Array.isArray(parts.body) ? (parts.body as Record<string, unknown>) : {};
          body = Buffer.from(
            Object.entries(flat)
              .map(([k, v]) => `${percentEncode(k)}=${percentEncode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`)
              .concat(['__proto__%5Bpolluted%5D=yes', 'constructor[prototype][polluted]=yes'])
              .join('&'),
          );
        } else if (contentType.startsWith('multipart/form-data; boundary=fuzzB')) {
          body = multipartBody('fuzzB', [{ headers: ['Content-Disposition: form-data; name="json"'], content: json }]);
        }
        const headers: Record<string, string> = contentType === '' ? {} : { 'Content-Type': contentType };
        return plan(
          op,
          { label: `content-type:${contentType || 'none'}`, target: parts.path + queryString(parts.query), headers, body, expect: { kind: 'any' } },
          cred,
        );
      }),
  );

  // Content-Encoding that does not match the body: a 4xx, never a crash.
  add(
    4,
    fc
      .tuple(valid, fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown', 'gzip, gzip', 'compress', 'identity', 'gzip-real'), credentialArb)
      .map(([parts, encoding, cred]) => {
        const json = encodeJson(parts.body ?? {});
        const real = encoding === 'gzip-real';
        const plain = !real && encoding !== 'identity';
        return plan(
          op,
          {
            label: `content-encoding:${encoding}${plain ? '-with-plain-body' : ''}`,
            target: parts.path + queryString(parts.query),
            headers: { ...JSON_TYPE, 'Content-Encoding': real ? 'gzip' : encoding },
            body: real ? gzipBody(json) : json,
            expect: plain && jsonRoute ? { kind: 'client-error' } : { kind: 'any' },
          },
          cred,
        );
      }),
  );

  // Hostile query strings: unknown and prototype keys, repeats, odd values, bad escapes.
  add(
    5,
    fc
      .tuple(
        valid,
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(...(op.query.length ? op.query.map((p) => p.name) : ['page'])),
              fc.constantFrom('__proto__', 'constructor', 'prototype', 'x', '__proto__[polluted]', 'limit[]', ''),
            ),
            nastyText,
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.constantFrom('', '&limit=1&limit=2', '&%ZZ=1', '&q=%ZZ', '&&&', '&flag', '&=', '&a=%E0%A4%A'),
        credentialArb,
      )
      .map(([parts, extra, raw, cred]) =>
        plan(
          op,
          {
            label: 'query-hostile',
            target: parts.path + queryString([...parts.query, ...extra]) + (parts.query.length + extra.length ? raw : raw.replace(/^&/, '?')),
            ...jsonBodyOf(parts.body),
            expect: { kind: 'any' },
          },
          cred,
        ),
      ),
  );

  // Whole numbers written as anything but decimal digits: 422.
  const integers = op.query.filter((p) => resolveSchema(p.schema, ctx).type === 'integer');
  if (integers.length > 0) {
    add(
      4,
      fc.tuple(valid, fc.constantFrom(...integers.map((p) => p.name)), fc.constantFrom(...NUMBER_FORMS), credentialArb).map(([parts, name, form, cred]) =>
        plan(
          op,
          {
            label: `query-number-form:${name}=${JSON.stringify(form)}`,
            target: parts.path + queryString([...parts.query.filter(([key]) => key !== name), [name, form]]),
            ...jsonBodyOf(parts.body),
            expect: { kind: 'status', status: 422, error: 'validation_error' },
          },
          cred,
        ),
      ),
    );
  }

  // Path parameters: hostile text, another kind's id, bad percent escapes (400 bad_request).
  if (op.pathParams.length > 0) {
    const otherIds = [...new Set(allOps.flatMap((other) => other.pathParams.flatMap((p) => ctx.pathPool(other, p.name))))];
    add(
      6,
      fc
        .tuple(
          valid,
          pathArb(op, ctx),
          fc.nat({ max: op.pathParams.length - 1 }),
          fc.oneof(
            { weight: 3, arbitrary: nastyText.map((text) => ({ encoded: percentEncode(text), bad: false })) },
            { weight: 1, arbitrary: fc.constantFrom(...(otherIds.length ? otherIds : ['x'])).map((id) => ({ encoded: percentEncode(id), bad: false })) },
            {
              weight: 1,
              arbitrary: fc.constantFrom('.', '..', '%2E%2E', '%2F', 'a%2Fb', '%00', '%20', '%25', '~', '%C3%A9').map((encoded) => ({ encoded, bad: false })),
            },
            { weight: 3, arbitrary: fc.constantFrom(...BAD_ESCAPES).map((encoded) => ({ encoded, bad: true })) },
          ),
          credentialArb,
        )
        .map(([parts, values, which, replacement, cred]) => {
          const encoded = values.map(percentEncode);
          encoded[which] = replacement.encoded;
          return plan(
            op,
            {
              label: replacement.bad ? `path-bad-escape:${replacement.encoded}` : 'path-hostile',
              target: fillPath(op, encoded) + queryString(parts.query),
              ...(isUpload ? { headers: {}, body: null } : jsonBodyOf(parts.body)),
              expect: replacement.bad ? { kind: 'status', status: 400, error: 'bad_request' } : { kind: 'any' },
              expectAlways: replacement.bad,
            },
            cred,
          );
        }),
    );
  }

  // Odd headers: a huge one, request ids to echo or replace, Accept, a method the path lacks.
  const pathMethods = new Set(allOps.filter((other) => other.path === op.path).map((other) => other.method));
  const otherMethods = HTTP_METHODS.filter((m) => !pathMethods.has(m));
  add(
    3,
    fc
      .tuple(
        valid,
        fc.constantFrom<Record<string, string>>(
          { 'X-Request-Id': 'fuzz-request.id_1' },
          { 'X-Request-Id': 'bad id with spaces' },
          { 'X-Request-Id': 'x'.repeat(129) },
          { 'X-Filler': 'f'.repeat(6_000) },
          { Accept: 'text/html' },
          { Accept: 'application/xml' },
          { 'Accept-Encoding': 'gzip, br' },
          { 'Accept-Charset': 'utf-16' },
          { 'X-HTTP-Method-Override': 'DELETE' },
          { 'Content-Length': '0' },
          { Cookie: 'cb_portal_session=abc; __proto__=x' },
        ),
        otherMethods.length > 0 ? fc.option(fc.constantFrom(...otherMethods), { nil: undefined }) : fc.constant(undefined),
        credentialArb,
      )
      .map(([parts, headers, method, cred]) => {
        const body = jsonBodyOf(parts.body);
        const zeroLength = headers['Content-Length'] === '0';
        return plan(
          op,
          {
            label: `headers:${Object.keys(headers)[0]}${method ? `:method-${method}` : ''}`,
            method: method ?? op.method,
            target: parts.path + queryString(parts.query),
            headers: { ...body.headers, ...headers },
            body: zeroLength ? null : body.body,
            expect: { kind: 'any' },
          },
          cred,
        );
      }),
  );

  return fc.oneof(...kinds);
}
