// @tier proof
// @databases sqlite, postgres
/**
 * Property-based fuzzing of every operation in /v1/openapi.json, against a real appliance on
 * 127.0.0.1 (port 0) over a temp SQLite file seeded with a lived-in institution.
 *
 * For every operation, fast-check sends valid-ish requests built from its parameter and body
 * schemas (with real ids, so handlers run) and hostile ones: wrong types, huge and odd unicode
 * strings, lone surrogates, NUL, extreme numbers, prototype keys, 10,000-level JSON, wrong media
 * types and encodings, malformed multipart, bad percent escapes, odd credentials. Every answer must
 * be below 500, carry X-Request-Id and be the JSON envelope (or, for CSV and file downloads, their
 * media type); after each property the key still gets 200 from GET /v1/me.
 *
 * Reproduce a run with FUZZ_SEED=<seed> (printed on failure); FUZZ_RUNS sets runs per operation,
 * FUZZ_SHRINK=1 lets fast-check shrink a counterexample, FUZZ_VERBOSE=1 prints the answers by
 * status per operation, FUZZ_DEBUG=<operationId> prints every answer of one operation,
 * FUZZ_PARALLEL=<n> sends n requests at once in each run, FUZZ_SKIP=<kind,…> leaves request kinds
 * out (label prefixes as in the summary, e.g. deep-json,upload-). The only
 * network target is 127.0.0.1; every loop is bounded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { approveBatch } from '../server/commands/wallet/coupons.js';
import { createCurriculum } from '../server/commands/alpha/curricula.js';
import { seedDemo } from '../server/commands/demo/seed.js';
import { setAllowance } from '../server/commands/wallet/merits.js';
import type { RateLimitStore } from '../server/http/rate-limit.js';
import { learnerSession, makePerson, makeSchool, startTestAppliance, type TestKey } from './helpers/appliance.js';
import { onPostgres } from './helpers/postgres.js';
import {
  BAD_ESCAPES,
  NUMBER_FORMS,
  answerProblems,
  answerSummary,
  deepJson,
  describePlan,
  operationsOf,
  planArb,
  printable,
  resolveSchema,
  sendRaw,
  uploadShape,
  type Expectation,
  type OpenApiDocument,
  type Operation,
  type Plan,
  type PlanContext,
  type RawAnswer,
} from './helpers/fuzz-openapi.js';

/**
 * On SQLite each operation gets 100 runs. The PostgreSQL pass looks for what differs between the
 * two databases (types, collations, constraint and serialization errors) rather than for new
 * request shapes, so it gets 30 runs from a seed of its own: inputs the SQLite pass does not send,
 * in under a third of its time (CONTRIBUTING.md#tests).
 */
const POSTGRES = onPostgres();
const FUZZ_SEED = Number.parseInt(process.env.FUZZ_SEED ?? (POSTGRES ? '20261128' : '20260914'), 10);
const RUNS = Number.parseInt(process.env.FUZZ_RUNS ?? (POSTGRES ? '30' : '100'), 10);
const PROJECT = POSTGRES ? 'proof:postgres' : 'proof';
const SHRINK = process.env.FUZZ_SHRINK === '1';
/** Requests sent at once in each run of an operation's property (1: one after another). */
const PARALLEL = Math.max(1, Number.parseInt(process.env.FUZZ_PARALLEL ?? '1', 10));
/** Request kinds (label prefixes, comma-separated) left out of the per-operation properties, for triage. */
const SKIP = (process.env.FUZZ_SKIP ?? '').split(',').filter(Boolean);
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// ---------------------------------------------------------------------------------------------
// The appliance, a local webhook receiver, and a seeded institution
// ---------------------------------------------------------------------------------------------

/** Never limits: the fuzzer sends thousands of requests a minute with one key and one session. */
const unlimited: RateLimitStore = { hit: async () => 1 };

const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const app = await startTestAppliance({
  rateLimitStore: unlimited,
  // Webhook URLs may point at 127.0.0.1 (the receiver above): nothing is ever sent elsewhere.
  config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [3600], sweepSeconds: 3600, timeoutMs: 2_000 } },
});
const port = app.port;

let stopped = false;
async function shutdown(): Promise<void> {
  if (stopped) return;
  stopped = true;
  await app.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
}

/** A setup step: if it fails, the appliance and the receiver are stopped before the error goes on. */
async function settingUp<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await shutdown();
    throw error;
  }
}

const { demo, outsider, shared, own, draft, doc } = await settingUp(async () => {
  const demo = await seedDemo(app.ctx.db, { portalUrl: app.origin, dataDir: app.ctx.config.dataDir });
  // Another institution, whose ids must never open anything here.
  const other = await makeSchool(app, { name: 'Elsewhere College' });
  return {
    demo,
    outsider: await makePerson(app, other.key, 'students', 'Olive Outsider'),
    shared: await createCurriculum(app.ctx.db, { name: 'Fractions', concepts: ['Equivalent fractions', 'Adding fractions'], publish: true }),
    own: await createCurriculum(app.ctx.db, {
      name: 'Local history',
      concepts: ['The founding', 'The mill'],
      institution_id: demo.institution.id,
      publish: true,
    }),
    draft: await createCurriculum(app.ctx.db, { name: 'Unfinished', concepts: ['One'], institution_id: demo.institution.id }),
    doc: (await (await fetch(`${app.origin}/v1/openapi.json`)).json()) as OpenApiDocument,
  };
});
const key: TestKey = { id: 'demo', key: demo.key, auth: `Bearer ${demo.key}` };
const operations = operationsOf(doc);

/** An extra path of /v1 that is not an operation: the API reference (the document is one, `GET /openapi.json`). */
const extras: Operation[] = [{ id: 'docs', method: 'get', path: '/docs/', auth: 'none', pathParams: [], query: [], body: null, produces: 'text/html' }];
/** Answers in their own format, not the envelope: the reference page, and the document (plain JSON, as generators expect). */
const RAW_EXTRAS = new Set(['docs', 'getOpenApiDocument']);

// ---------------------------------------------------------------------------------------------
// Statistics and failures
// ---------------------------------------------------------------------------------------------

const stats = {
  requests: 0,
  covered: new Set<string>(),
  failures: [] as string[],
  byLabel: new Map<string, number>(),
  byStatus: new Map<string, number>(),
  /** Per operation: answers by status, to see that valid-ish requests get past validation. */
  byOperation: new Map<string, Map<number, number>>(),
};

afterAll(async () => {
  const labels = [...stats.byLabel.entries()].sort(([a], [b]) => a.localeCompare(b));
  const families = new Map<string, number>();
  for (const [label, count] of labels) families.set(label.split(':')[0]!, (families.get(label.split(':')[0]!) ?? 0) + count);
  console.log(`fuzz request kinds: ${[...families.entries()].map(([family, count]) => `${family}=${count}`).join(', ')}`);
  console.log(
    `fuzz answers: ${[...stats.byStatus.entries()]
      .sort()
      .map(([status, count]) => `${status}=${count}`)
      .join(', ')}`,
  );
  if (process.env.FUZZ_VERBOSE === '1') {
    for (const [id, statuses] of stats.byOperation)
      console.log(
        `  ${id}: ${[...statuses.entries()]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
      );
  }
  const opCount = operations.filter((op) => stats.covered.has(op.id)).length;
  console.log(`fuzz: ${stats.requests} requests, ${opCount} operations, ${stats.failures.length} failures (seed ${FUZZ_SEED}, ${RUNS} runs per operation)`);
  if (stats.failures.length > 0) console.log(`fuzz failures:\n${stats.failures.map((f) => `  - ${f}`).join('\n')}`);
  await shutdown();
});

// ---------------------------------------------------------------------------------------------
// Talking to the appliance
// ---------------------------------------------------------------------------------------------

interface Learner {
  token: string;
  person: { id: string; login_email: string };
  examIds: string[];
  attemptIds: string[];
  fileRefs: string[];
  /** The session's own device seat: releasing it would end the session the fuzzer acts with. */
  seatId: string | undefined;
}

let learner: Learner | null = null;

async function api(method: string, path: string, body?: unknown, auth = key.auth): Promise<{ status: number; body: { success: boolean; data: unknown } }> {
  const answer = await sendRaw(port, {
    method,
    target: `/v1${path}`,
    headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? null : Buffer.from(JSON.stringify(body)),
  });
  return { status: answer.status, body: JSON.parse(answer.body.toString('utf8') || 'null') };
}

async function ok<T>(method: string, path: string, body?: unknown, auth = key.auth): Promise<T> {
  const res = await api(method, path, body, auth);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body).slice(0, 500)}`).toBe(200);
  return res.body.data as T;
}

async function upload(path: string, auth: string, name: string, content: Buffer): Promise<{ ref: string; sha256: string }> {
  const boundary = 'seedBoundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const answer = await sendRaw(port, {
    method: 'POST',
    target: `/v1${path}`,
    headers: { Authorization: auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  expect(answer.status, `upload ${path}: ${answerSummary(answer)}`).toBe(200);
  return (JSON.parse(answer.body.toString('utf8')) as { data: { ref: string; sha256: string } }).data;
}

const items = async <T>(path: string) => {
  const data = await ok<{ items: T[] } | T[]>('GET', path);
  return Array.isArray(data) ? data : data.items;
};

/** A student with a session, a class, exams of both apps assigned, open attempts and an uploaded file. */
async function provisionLearner(): Promise<Learner> {
  const stamp = Math.random().toString(36).slice(2, 8);
  const teacher = await makePerson(app, key, 'faculty', `Fuzz Teacher ${stamp}`);
  const person = await makePerson(app, key, 'students', `Fuzz Learner ${stamp}`);
  const group = await ok<{ id: string }>('POST', '/groups', { name: `Fuzz class ${stamp}`, faculty_id: teacher.id, student_ids: [person.id] });
  // Fuzzing PUT /institution/config may have narrowed the allowed toolchains: use one of them.
  const config = await ok<{ allowed_toolchains: string[] }>('GET', '/institution/config');
  const toolchain = config.allowed_toolchains[0] ?? 'python-3.12';
  const examIds: string[] = [];
  for (const [index, appName] of (['learning', 'code', 'learning', 'code', 'learning'] as const).entries()) {
    const exam = await ok<{ id: string }>('POST', '/exams', { faculty_id: teacher.id, title: `Fuzz exam ${index} ${stamp}`, app: appName, max_score: 100 });
    if (appName === 'code') {
      const hidden = await upload(`/exams/${exam.id}/files`, key.auth, 'hidden-tests.zip.enc', Buffer.alloc(64, 1));
      await ok('PATCH', `/exams/${exam.id}`, {
        code_spec: {
          toolchain,
          hidden_tests: { file: hidden.ref, iv_b64: Buffer.alloc(12, 2).toString('base64'), sha256: hidden.sha256 },
          commands: { test: 'pytest' },
        },
      });
      await ok('PUT', `/exams/${exam.id}/code-secret`, { hidden_key_b64: Buffer.alloc(32, 3).toString('base64') });
    }
    await ok('POST', `/exams/${exam.id}/publish`);
    await ok('POST', `/exams/${exam.id}/assignments`, { group_ids: [group.id] });
    examIds.push(exam.id);
  }
  await api('POST', '/alpha/enrollments', { curriculum_id: shared.curriculum.id, student_ids: [person.id] });
  const token = await learnerSession(app, key, person, { exchange: { device: { id: `fuzz-device-${stamp}`, name: 'Fuzz laptop' } } });
  const session = `Bearer ${token}`;
  const seatId = (await ok<{ items: Array<{ seat_id: string; current: boolean }> }>('GET', '/app/devices', undefined, session)).items.find(
    (seat) => seat.current,
  )?.seat_id;
  const attemptIds: string[] = [];
  const fileRefs: string[] = [];
  for (const examId of examIds.slice(0, 4)) {
    const attempt = await ok<{ id: string }>('POST', `/app/exams/${examId}/attempts`, {}, session);
    attemptIds.push(attempt.id);
    fileRefs.push((await upload(`/app/attempts/${attempt.id}/files`, session, 'solution.py', Buffer.from('print(1)\n'))).ref);
  }
  // One submitted attempt with a file, so its submission has a signed attachment link.
  await ok(
    'POST',
    `/app/attempts/${attemptIds[3]}/submit`,
    { answers: { text: 'done' }, files: [fileRefs[3]], ai_usage: { interactions: 1, cost_cents: 0 } },
    session,
  );
  return { token, person, examIds, attemptIds, fileRefs, seatId };
}

/** The learner's session still opens /app, with exams to take; otherwise a fresh learner. */
async function ensureLearner(): Promise<Learner> {
  if (learner) {
    const me = await api('GET', '/app/me', undefined, `Bearer ${learner.token}`);
    const exams = me.status === 200 ? await api('GET', '/app/exams', undefined, `Bearer ${learner.token}`) : null;
    const open = exams?.status === 200 ? ((exams.body.data as { items: unknown[] }).items ?? []) : [];
    if (me.status === 200 && open.length >= 3) return learner;
  }
  learner = await provisionLearner();
  return learner;
}

// ---------------------------------------------------------------------------------------------
// Pools of real values
// ---------------------------------------------------------------------------------------------

type Pools = Record<string, string[]>;
let pools: Pools = {};
let signedLinks: string[] = [];

const ids = (list: Array<{ id: string }>) => list.map((item) => item.id);

/** Keeps a few of what the fuzzer deletes, so later operations still find live ones. */
async function replenish(): Promise<void> {
  const endpoints = await items<{ id: string }>('/webhooks/endpoints');
  for (let i = endpoints.length; i < 3; i++) await api('POST', '/webhooks/endpoints', { url: receiverUrl, events: ['*'] });
  const groups = await items<{ id: string }>('/groups?limit=200');
  if (groups.length < 6) {
    const teacher = await makePerson(app, key, 'faculty', 'Replenish Teacher');
    const members = (await items<{ id: string; status: string }>('/students?status=active&limit=4')).map((s) => s.id);
    for (let i = groups.length; i < 6; i++) await api('POST', '/groups', { name: `Refill ${i}`, faculty_id: teacher.id, student_ids: members });
  }
  const guardians = await items<{ id: string }>('/guardians?limit=200');
  const someone = (await items<{ id: string }>('/students?status=active&limit=1'))[0];
  for (let i = guardians.length; i < 4 && someone; i++) {
    await api('POST', '/guardians', { student_id: someone.id, guardian_email: `refill${i}.${Date.now()}@example.org`, guardian_type: 'guardian' });
  }
}

/** `{parent}/{child}` targets that exist together: a group's member, an exam's group, a license's seat. */
let pairs: Record<string, string[]> = {};

async function refreshPools(): Promise<void> {
  await replenish();
  const current = await ensureLearner();
  const students = await items<{ id: string; login_email: string }>('/students?limit=200');
  const faculty = await items<{ id: string; login_email: string }>('/faculty?limit=200');
  const licenses = await items<{ id: string; user_id: string }>('/licenses?limit=200');
  const seats: string[] = [];
  const seatPairs: string[] = [];
  for (const license of licenses.slice(-12)) {
    for (const seat of await items<{ seat_id: string }>(`/licenses/${license.id}/devices`)) {
      seats.push(seat.seat_id);
      seatPairs.push(`/v1/licenses/${license.id}/devices/${seat.seat_id}/revoke`);
    }
  }
  const batches = await items<{ id: string; status: string }>('/coupons/batches?limit=200');
  const codes: string[] = [];
  for (const batch of batches.filter((b) => b.status === 'approved').slice(0, 3)) {
    codes.push(...((await ok<{ codes?: Array<{ code: string }> }>('GET', `/coupons/batches/${batch.id}`)).codes ?? []).slice(0, 10).map((c) => c.code));
  }
  const curricula = await items<{ id: string; concepts: Array<{ id: string }> }>('/alpha/curricula?limit=200');
  const submissions = await items<{ id: string }>('/submissions?limit=200');
  signedLinks = [];
  for (const submission of submissions.slice(-6)) {
    const detail = await ok<{ attachments: Array<{ url: string }> }>('GET', `/submissions/${submission.id}`);
    for (const attachment of detail.attachments) {
      const url = new URL(attachment.url);
      signedLinks.push(`${url.pathname}${url.search}`);
    }
  }
  // Deliveries go with their endpoint: after the fuzzer deleted endpoints, an event makes new ones.
  let deliveries = ids(await items('/webhooks/deliveries?limit=200'));
  if (deliveries.length === 0) {
    await api('POST', '/students', { full_name: 'Event Maker' });
    deliveries = ids(await items('/webhooks/deliveries?limit=200'));
  }
  const events = await items<{ id: string; type: string; created_at: string }>('/events?limit=200');
  const examFiles: string[] = [];
  const launchTokens: string[] = [];
  for (const person of [current.person, ...students.slice(0, 8)]) {
    // Fuzzing may have suspended some of them: those answer 409 and add nothing.
    const minted = await api('POST', '/sso/tokens', { email: person.login_email, app: 'learning', ttl_seconds: 300 });
    if (minted.status === 200) launchTokens.push(new URL((minted.body.data as { launch_url: string }).launch_url).searchParams.get('token') ?? '');
  }
  const exams = await items<{ id: string; code_spec: { hidden_tests?: { file?: string } } | null }>('/exams?limit=200');
  for (const exam of exams) if (exam.code_spec?.hidden_tests?.file) examFiles.push(exam.code_spec.hidden_tests.file);

  const groups = ids(await items('/groups?limit=200'));
  pairs = { removeGroupMember: [], unassignExam: [], revokeLicenseDevice: [] };
  for (const group of groups.slice(0, 6)) {
    for (const member of (await ok<{ members: Array<{ id: string }> }>('GET', `/groups/${group}`)).members.slice(0, 3))
      pairs.removeGroupMember!.push(`/v1/groups/${group}/members/${member.id}`);
  }
  for (const exam of exams.slice(0, 8).map((e) => e.id)) {
    for (const assignment of await items<{ group_id: string }>(`/exams/${exam}/assignments`))
      pairs.unassignExam!.push(`/v1/exams/${exam}/assignments/${assignment.group_id}`);
  }
  pairs.revokeLicenseDevice = seatPairs;

  const studentIds = [...ids(students), ...students.slice(0, 5).map((s) => s.login_email), outsider.id];
  const facultyIds = [...ids(faculty), ...faculty.slice(0, 3).map((f) => f.login_email)];
  pools = {
    students: studentIds,
    studentEmails: students.map((s) => s.login_email),
    faculty: facultyIds,
    groups,
    licenses: ids(licenses),
    seats,
    guardians: ids(await items('/guardians?limit=200')),
    exams: [...ids(exams), current.examIds[0]!],
    submissions: ids(submissions),
    batches: ids(batches),
    codes,
    curricula: [...ids(curricula), draft.curriculum.id],
    concepts: curricula.flatMap((c) => c.concepts.map((concept) => concept.id)),
    enrollments: ids(await items('/alpha/enrollments?limit=200')),
    endpoints: ids(await items('/webhooks/endpoints')),
    deliveries,
    events: events.map((e) => e.created_at),
    eventTypes: ['*', 'exam.*', 'student.*', 'exam.graded', 'submission.created', 'nope.*', '**', 'exam.', '.*'],
    fileRefs: [...current.fileRefs, ...examFiles, ...signedLinks.map((link) => link.split('/')[3]!.split('?')[0]!)],
    examFiles,
    launchTokens,
    redirects: [`exam:${current.examIds[0]}`, 'exam:exm_nope', 'home', `exam:${exams[0]?.id ?? 'x'}`],
  };
}

/** Real values for a field or query parameter, by name. */
function poolFor(name: string): readonly string[] {
  switch (name) {
    case 'student_id':
    case 'student_ids':
    case 'user_id':
      return pools.students ?? [];
    case 'email':
      return [...(pools.studentEmails ?? []), ...(pools.faculty ?? []).filter((f) => f.includes('@'))];
    case 'faculty_id':
    case 'guide_id':
      return pools.faculty ?? [];
    case 'group_id':
    case 'group_ids':
      return pools.groups ?? [];
    case 'exam_id':
      return pools.exams ?? [];
    case 'curriculum_id':
      return pools.curricula ?? [];
    case 'concept_id':
      return pools.concepts ?? [];
    case 'code':
      return pools.codes ?? [];
    case 'endpoint_id':
      return pools.endpoints ?? [];
    case 'type':
    case 'event_type':
    case 'events':
      return pools.eventTypes ?? [];
    case 'since':
    case 'updated_since':
    case 'expires_before':
      return pools.events ?? [];
    case 'files':
      return learner?.fileRefs ?? [];
    case 'file':
    case 'starter':
    case 'sample_tests':
      return pools.examFiles ?? [];
    case 'token':
      return pools.launchTokens ?? [];
    case 'redirect':
      return pools.redirects ?? [];
    case 'toolchain':
      return ['python-3.12', 'node-20'];
    case 'iv_b64':
      return [Buffer.alloc(12, 5).toString('base64'), 'q83vEjRWeJASNFZ4'];
    case 'hidden_key_b64':
      return [Buffer.alloc(32, 7).toString('base64'), Buffer.alloc(31, 7).toString('base64')];
    default:
      return [];
  }
}

/** Real ids for a path parameter, by the segment before it. */
function pathPool(op: Operation, param: string): readonly string[] {
  const segments = op.path.split('/');
  const before = segments[segments.indexOf(`{${param}}`) - 1] ?? '';
  const learnerSide = op.path.startsWith('/app/');
  switch (before) {
    case 'students':
    case 'members':
      return pools.students ?? [];
    case 'wallets':
      return pools.studentEmails ?? [];
    case 'faculty':
      return pools.faculty ?? [];
    case 'groups':
    case 'assignments':
      return pools.groups ?? [];
    case 'licenses':
      return pools.licenses ?? [];
    case 'devices':
      return (pools.seats ?? []).filter((seat) => !learnerSide || seat !== learner?.seatId);
    case 'guardians':
      return pools.guardians ?? [];
    case 'exams':
      return learnerSide ? (learner?.examIds ?? []) : (pools.exams ?? []);
    case 'attempts':
      return learner?.attemptIds ?? [];
    case 'submissions':
      return pools.submissions ?? [];
    case 'batches':
      return pools.batches ?? [];
    case 'enrollments':
      return pools.enrollments ?? [];
    case 'endpoints':
      return pools.endpoints ?? [];
    case 'deliveries':
      return pools.deliveries ?? [];
    case 'files':
      return pools.fileRefs ?? [];
    default:
      return [];
  }
}

const genContext: PlanContext = {
  schemas: doc.components?.schemas ?? {},
  poolFor,
  pathPool,
  localUrls: [receiverUrl, `${receiverUrl}?x=1`, 'http://127.0.0.1:9/closed'],
  validTarget: (op) => {
    if (op.id === 'downloadFile' && signedLinks.length > 0) {
      return fc.oneof(
        fc.constantFrom(...signedLinks),
        fc.constantFrom(...signedLinks).map((link) => link.replace(/signature=./, 'signature=0')),
      );
    }
    const known = pairs[op.id] ?? [];
    return known.length > 0 ? fc.constantFrom(...known) : undefined;
  },
};

// More seed data through the API: a webhook endpoint at the local receiver, an approved coupon
// batch, a merit allowance, enrollments; then the pools.
await settingUp(async () => {
  await ok('POST', '/webhooks/endpoints', { url: receiverUrl, description: 'fuzz receiver', events: ['*'] });
  const batch = await ok<{ id: string }>('POST', '/coupons/batches', {
    name: 'Fuzz prizes',
    total_coupons: 30,
    value_cents: 100,
    expiry_date: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  });
  await approveBatch(app.ctx.db, batch.id);
  await setAllowance(app.ctx.db, demo.institution.id, 100_000_000);
  await ensureLearner();
  await ok('POST', '/alpha/enrollments', {
    curriculum_id: own.curriculum.id,
    student_ids: (await items<{ id: string }>('/students?limit=5')).map((s) => s.id),
  });
  await refreshPools();
});

// ---------------------------------------------------------------------------------------------
// Sending one plan and judging the answer
// ---------------------------------------------------------------------------------------------

function authorizationFor(op: Operation, plan: Plan): string | undefined {
  const session = learner ? `Bearer ${learner.token}` : undefined;
  switch (plan.credential) {
    case 'none':
      return undefined;
    case 'literal':
      return plan.authLiteral;
    case 'wrong-kind':
      return op.auth === 'key' ? session : key.auth;
    case 'valid':
      return op.auth === 'key' ? key.auth : op.auth === 'session' ? session : undefined;
  }
}

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join(',');

function prototypeProblems(): string[] {
  const now = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
  const probe = {} as Record<string, unknown>;
  return now !== prototypeKeys || probe.polluted !== undefined || probe.isAdmin !== undefined ? ['Object.prototype was polluted'] : [];
}

function requestIdProblems(plan: Plan, answer: RawAnswer): string[] {
  const sent = Object.entries(plan.headers).find(([name]) => name.toLowerCase() === 'x-request-id')?.[1];
  const got = String(answer.headers['x-request-id'] ?? '');
  if (sent === undefined) return [];
  if (REQUEST_ID.test(sent) && got !== sent) return [`X-Request-Id ${JSON.stringify(sent)} not echoed (got ${JSON.stringify(got)})`];
  if (!REQUEST_ID.test(sent) && got === sent) return ['a malformed X-Request-Id was echoed'];
  return [];
}

async function execute(op: Operation, plan: Plan): Promise<void> {
  const headers = { ...plan.headers };
  const authorization = authorizationFor(op, plan);
  if (authorization !== undefined) headers.Authorization = authorization;
  let answer: RawAnswer;
  try {
    answer = await sendRaw(port, { method: plan.method, target: plan.target, headers, body: plan.body });
  } catch (error) {
    // No answer at all (reset, hang): as much a failure as a 500.
    const line = `${op.method.toUpperCase()} ${op.path} no answer: ${(error as Error).message}\n      ${describePlan(plan, app.origin)}`;
    stats.failures.push(line);
    throw new Error(line, { cause: error });
  }
  stats.requests += 1;
  stats.covered.add(op.id);
  stats.byLabel.set(plan.label, (stats.byLabel.get(plan.label) ?? 0) + 1);
  stats.byStatus.set(String(answer.status), (stats.byStatus.get(String(answer.status)) ?? 0) + 1);
  const statuses = stats.byOperation.get(op.id) ?? new Map<number, number>();
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  stats.byOperation.set(op.id, statuses);
  if (answer.status === 200 && plan.method.toLowerCase() === 'delete') forgetDeleted(op, plan.target);
  if (process.env.FUZZ_DEBUG && op.id === process.env.FUZZ_DEBUG && plan.credential === 'valid')
    console.log(`DEBUG [${plan.label}] ${plan.target} -> ${answerSummary(answer).replace(/\s+/g, ' ')}`);
  const expectation: Expectation = plan.credential === 'valid' || plan.expectAlways ? plan.expect : { kind: 'any' };
  const sameOperation = plan.method.toLowerCase() === op.method;
  const problems = [
    ...answerProblems(answer, {
      produces: sameOperation || RAW_EXTRAS.has(op.id) ? op.produces : 'application/json',
      method: plan.method,
      expect: expectation,
      rawSuccess: RAW_EXTRAS.has(op.id),
    }),
    ...requestIdProblems(plan, answer),
    ...prototypeProblems(),
  ];
  if (problems.length > 0) {
    const line = `${op.method.toUpperCase()} ${op.path} ${problems.join('; ')}\n      ${describePlan(plan, app.origin)}\n      -> ${answerSummary(answer)}${serverLogOf(answer)}`;
    stats.failures.push(line);
    throw new Error(line);
  }
}

/** For a 5xx, what the server logged about that request (the error and its cause), so a failure in CI explains itself. */
function serverLogOf(answer: RawAnswer): string {
  if (answer.status < 500) return '';
  const requestId = String(answer.headers['x-request-id'] ?? '');
  const lines = app.logLines().filter((entry) => entry.request_id === requestId);
  return lines.length ? `\n      server log: ${lines.map((entry) => JSON.stringify(entry)).join('\n      ')}` : '';
}

/** After a 200 DELETE, its target is gone: later requests should not keep hitting 404 on it. */
function forgetDeleted(op: Operation, target: string): void {
  const path = target.split('?')[0]!;
  if (pairs[op.id]) pairs[op.id] = pairs[op.id]!.filter((known) => known !== path);
  if (op.pathParams.length !== 1) return;
  let gone: string;
  try {
    gone = decodeURIComponent(path.split('/').pop() ?? '');
  } catch {
    return;
  }
  for (const name of Object.keys(pools)) pools[name] = pools[name]!.filter((value) => value !== gone);
}

async function stillAlive(): Promise<void> {
  const answer = await sendRaw(port, { method: 'GET', target: '/v1/me', headers: { Authorization: key.auth }, body: null });
  stats.requests += 1;
  expect(answer.status, `GET /v1/me after the property: ${answerSummary(answer)}`).toBe(200);
}

/** A seed per operation, derived from FUZZ_SEED, so one operation's runs do not depend on another's. */
function seedFor(name: string): number {
  let hash = FUZZ_SEED | 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

async function assertProperty<T>(name: string, property: fc.IAsyncProperty<[T]>, numRuns: number): Promise<void> {
  const seed = seedFor(name);
  const failuresBefore = stats.failures.length;
  try {
    await fc.assert(property, { numRuns, seed, endOnFailure: !SHRINK, verbose: 0 });
  } catch (error) {
    const failure = stats.failures.length > failuresBefore ? `\n${stats.failures[stats.failures.length - 1]}` : '';
    throw new Error(
      `${name}: reproduce with FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${numRuns} npx vitest run --project ${PROJECT} tests/fuzz.test.ts -t ${JSON.stringify(name)} (property seed ${seed})${failure}\n${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await stillAlive();
  }
}

const jsonBodyOperations = operations.filter((op) => ['post', 'put', 'patch'].includes(op.method) && op.body?.mediaType !== 'multipart/form-data');
const uploadOperations = operations.filter((op) => op.body?.mediaType === 'multipart/form-data');
const integerQueryOperations = operations.filter((op) => op.query.some((p) => resolveSchema(p.schema, genContext).type === 'integer'));

/** A valid target for an operation: real ids in the path, no query. */
function realTarget(op: Operation): string {
  return `/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathPool(op, name)[0] ?? 'x'))}`;
}

/** An operation and a plan for it, printed as the plan's curl line in a counterexample. */
function aimed(op: Operation, plan: Plan): { op: Operation; plan: Plan } {
  return Object.defineProperty({ op, plan }, fc.toStringMethod, { value: () => describePlan(plan), enumerable: false });
}

function fixedPlan(op: Operation, fields: Partial<Plan> & Pick<Plan, 'label' | 'expect'>): Plan {
  return printable({ method: op.method, target: realTarget(op), headers: {}, body: null, credential: 'valid', ...fields });
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

describe('fuzz: the document', () => {
  it(`lists the operations (${operations.length})`, () => {
    expect(operations.length).toBeGreaterThan(90);
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
  });
});

describe('fuzz: request shapes known to have crashed', () => {
  it('bad percent escapes in a path segment answer 400 bad_request, with or without a key', { timeout: 120_000 }, async () => {
    const targets = [
      '/v1/students/%ZZ',
      '/v1/files/%ZZ',
      '/portal/api/institutions/%ZZ/keys',
      '/v1/exams/%E0%A4%A/files',
      '/v1/app/attempts/%ED%A0%80/files',
      '/v1/groups/x/members/%',
    ];
    const sent: Plan[] = [];
    for (const credential of ['valid', 'none'] as const) {
      for (const target of targets) {
        const method = target.endsWith('/files') ? 'POST' : 'GET';
        sent.push(
          printable({
            label: 'path-bad-escape',
            method,
            target,
            headers: {},
            body: null,
            credential,
            expect: { kind: 'status', status: 400, error: 'bad_request' },
            expectAlways: true,
          }),
        );
      }
      // Outside every router, the static portal falls through to the 404 envelope: either is fine.
      sent.push(
        printable({
          label: 'path-bad-escape',
          method: 'GET',
          target: '/%ZZ',
          headers: {},
          body: null,
          credential,
          expect: { kind: 'status-in', statuses: [400, 404] },
          expectAlways: true,
        }),
      );
    }
    const pseudo: Operation = { id: 'bad-escape', method: 'get', path: '/', auth: 'key', pathParams: [], query: [], body: null, produces: 'application/json' };
    for (const plan of sent) await execute(pseudo, plan);
    await stillAlive();
  });

  it('every bad escape in every path parameter answers 400 bad_request (fast-check)', { timeout: 120_000 }, async () => {
    const withParams = operations.filter((op) => op.pathParams.length > 0);
    const arb = fc.tuple(fc.constantFrom(...withParams), fc.constantFrom(...BAD_ESCAPES), fc.nat(), fc.boolean()).map(([op, escape, which, keyed]) => {
      const index = which % op.pathParams.length;
      let i = 0;
      const target = `/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => (i++ === index ? escape : encodeURIComponent(pathPool(op, name)[0] ?? 'x')))}`;
      return aimed(op, {
        label: `path-bad-escape:${escape}`,
        method: op.method,
        target,
        headers: {},
        body: null,
        credential: keyed ? 'valid' : 'none',
        expect: { kind: 'status', status: 400, error: 'bad_request' },
        expectAlways: true,
      });
    });
    await assertProperty(
      'bad escapes',
      fc.asyncProperty(arb, async ({ op, plan }) => execute(op, plan)),
      60,
    );
  });

  it('Content-Encoding gzip (or deflate, or unknown) with a plain body answers 4xx on every JSON route', { timeout: 120_000 }, async () => {
    for (const op of jsonBodyOperations) {
      for (const encoding of ['gzip', 'deflate', 'x-unknown']) {
        await execute(
          op,
          fixedPlan(op, {
            label: `content-encoding:${encoding}-with-plain-body`,
            headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
            body: Buffer.from('{"a":1}'),
            expect: { kind: 'client-error' },
          }),
        );
      }
    }
    await stillAlive();
  });

  it('JSON nested 10,000 levels deep answers 422 validation_error on every JSON route', { timeout: 120_000 }, async () => {
    for (const op of jsonBodyOperations) {
      for (const shape of ['array', 'object'] as const) {
        await execute(
          op,
          fixedPlan(op, {
            label: `deep-json:10000:${shape}`,
            headers: { 'Content-Type': 'application/json' },
            body: deepJson(10_000, shape),
            expect: { kind: 'status', status: 422, error: 'validation_error' },
          }),
        );
      }
    }
    await stillAlive();
  });

  it('whole numbers in the query written as 1e2, 0x10, 1.0 … answer 422 validation_error', { timeout: 120_000 }, async () => {
    for (const op of integerQueryOperations) {
      for (const param of op.query.filter((p) => resolveSchema(p.schema, genContext).type === 'integer')) {
        for (const form of NUMBER_FORMS) {
          await execute(
            op,
            fixedPlan(op, {
              label: `query-number-form:${param.name}=${JSON.stringify(form)}`,
              target: `${realTarget(op)}?${param.name}=${encodeURIComponent(form)}`,
              expect: { kind: 'status', status: 422, error: 'validation_error' },
            }),
          );
        }
      }
    }
    await stillAlive();
  });

  it('malformed multipart on the two upload routes answers 422 validation_error (fast-check)', { timeout: 120_000 }, async () => {
    // Targets that take uploads: a fresh draft exam, a fresh learner's open attempt.
    learner = await provisionLearner();
    const teacher = await makePerson(app, key, 'faculty', 'Upload Teacher');
    const exam = await ok<{ id: string }>('POST', '/exams', { faculty_id: teacher.id, title: 'Upload target', app: 'code' });
    const targets = new Map([
      ['uploadExamFile', `/v1/exams/${exam.id}/files`],
      ['uploadLearnerAttemptFile', `/v1/app/attempts/${learner.attemptIds[0]}/files`],
    ]);
    const arb = fc
      .tuple(
        fc.constantFrom(...uploadOperations),
        uploadShape.filter((shape) => shape.malformed),
      )
      .map(([op, shape]) =>
        aimed(
          op,
          fixedPlan(op, {
            label: shape.label,
            target: targets.get(op.id) ?? realTarget(op),
            headers: { 'Content-Type': shape.contentType },
            body: shape.body,
            expect: { kind: 'status', status: 422, error: 'validation_error' },
          }),
        ),
      );
    await assertProperty(
      'malformed multipart',
      fc.asyncProperty(arb, async ({ op, plan }) => execute(op, plan)),
      80,
    );
  });
});

describe('fuzz: every operation of /v1/openapi.json', () => {
  let sinceRefresh = 0;
  for (const op of [...operations, ...extras]) {
    const name = `${op.method.toUpperCase()} ${op.path}`;
    it(name, { timeout: 120_000 }, async () => {
      if (op.auth === 'session') await ensureLearner();
      if (++sinceRefresh >= 8) {
        sinceRefresh = 0;
        await refreshPools();
      }
      const kinds = planArb(op, genContext, [...operations, ...extras]);
      const kept = SKIP.length === 0 ? kinds : kinds.filter((plan) => !SKIP.some((prefix) => plan.label.startsWith(prefix)));
      const plans = fc.array(kept, { minLength: PARALLEL, maxLength: PARALLEL });
      const property = fc.asyncProperty(plans, async (batch) => {
        await Promise.all(batch.map((plan) => execute(op, plan)));
      });
      // After deleting, the next operation starts from refreshed (and replenished) pools.
      if (op.method === 'delete') sinceRefresh = 8;
      await assertProperty(name, property, RUNS);
    });
  }
});
