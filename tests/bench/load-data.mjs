// Data for the benchmark: students through the API (`POST /v1/students/bulk`, 200 a call) until a
// time budget runs out, then the rest by direct SQL in the shape the API writes (a person, a
// license and a `student.created` event each); events topped up by direct SQL. The report says
// how many rows came each way.
import { createRequire } from 'node:module';
import path from 'node:path';
import { api, root } from './appliance.mjs';

const sqlite3 = createRequire(path.join(root, 'package.json'))('sqlite3');
export const BULK_SIZE = 200;

function open(databaseFile) {
  const db = new sqlite3.Database(databaseFile);
  db.configure('busyTimeout', 60_000);
  // sqlite3 refuses a named parameter the statement does not use: pass only those it names.
  const used = (sql, params) => Object.fromEntries(Object.entries(params).filter(([name]) => sql.includes(name)));
  const run = (sql, params = {}) => new Promise((resolve, reject) => db.run(sql, used(sql, params), (err) => (err ? reject(err) : resolve())));
  const all = (sql, params = {}) => new Promise((resolve, reject) => db.all(sql, used(sql, params), (err, rows) => (err ? reject(err) : resolve(rows))));
  const close = () => new Promise((resolve) => db.close(() => resolve()));
  return { run, all, close };
}

/** `count` students for one bulk call; `tag` keeps names and student ids unique across calls. */
export function bulkBody(tag, count = BULK_SIZE) {
  return {
    students: Array.from({ length: count }, (_, i) => ({ full_name: `Bench ${tag} Student${i}`, student_id: `${tag}-${i}` })),
  };
}

/** One bulk call; throws unless every student was created. Answers its time in ms. */
export async function bulkCall(origin, key, tag, count = BULK_SIZE) {
  const res = await api(origin, key, 'POST', '/v1/students/bulk', bulkBody(tag, count));
  if (res.status !== 200 || res.body.data.created !== count) throw new Error(`bulk ${tag}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.ms;
}

/** Students through the API, one bulk call after another, until `target` or the budget. */
export async function loadStudentsViaApi({ origin, keys, target, budgetMs, label, onProgress }) {
  const started = performance.now();
  const callMs = [];
  let created = 0;
  for (let call = 0; created < target && performance.now() - started < budgetMs; call += 1) {
    const count = Math.min(BULK_SIZE, target - created);
    callMs.push(await bulkCall(origin, keys[call % keys.length], `${label}${call}`, count));
    created += count;
    if (onProgress && call % 25 === 24) onProgress(created, performance.now() - started);
  }
  return { viaApi: created, callMs, seconds: (performance.now() - started) / 1000 };
}

// Rows numbered 1..:count, made by SQLite itself (a recursive CTE), in one transaction.
const SEQUENCE = 'WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < :count)';
const stamp = (msExpr) => `strftime('%Y-%m-%d %H:%M:%f', (${msExpr}) / 1000.0, 'unixepoch') || ' +00:00'`;

/**
 * `count` more students by SQL, as the API would have made them, created one millisecond apart
 * before every existing row; every 50th suspended. Answers how many.
 */
export async function topUpStudents({ databaseFile, institutionId, count, tag }) {
  if (count <= 0) return 0;
  const db = open(databaseFile);
  try {
    const [{ domain }] = await db.all(
      "SELECT substr(login_email, instr(login_email, '@')) AS domain FROM people WHERE institution_id = :inst AND role = 'student' LIMIT 1",
      { ':inst': institutionId },
    );
    const [{ oldest }] = await db.all('SELECT min(created_at) AS oldest FROM events WHERE institution_id = :inst', { ':inst': institutionId });
    // Events one millisecond apart, before every existing event: created_at stays unique per institution.
    const base = Date.parse(oldest.replace(' +00:00', 'Z').replace(' ', 'T')) - 2 * count - 60_000;
    const params = { ':count': count, ':inst': institutionId, ':tag': tag, ':domain': domain, ':base': base };
    const id = (prefix) => `'${prefix}_' || :tag || printf('%020d', n)`;
    await db.run('BEGIN IMMEDIATE');
    await db.run(
      `${SEQUENCE} INSERT INTO people (id, institution_id, role, login_email, full_name, external_id, status, created_at, updated_at)
       SELECT ${id('stu')}, :inst, 'student', 'sql.' || :tag || n || :domain, 'Sql ' || :tag || ' Student' || n, :tag || '-sql-' || n,
              CASE WHEN n % 50 = 0 THEN 'suspended' ELSE 'active' END, ${stamp(':base + 2 * n')}, ${stamp(':base + 2 * n')} FROM seq`,
      params,
    );
    await db.run(
      `${SEQUENCE} INSERT INTO licenses (id, institution_id, user_id, type, status, starts_at, expires_at, created_at, updated_at)
       SELECT ${id('lic')}, :inst, ${id('stu')}, 'student', 'active', ${stamp(':base + 2 * n')}, ${stamp(':base + 2 * n + 31536000000')},
              ${stamp(':base + 2 * n')}, ${stamp(':base + 2 * n')} FROM seq`,
      params,
    );
    await db.run(
      `${SEQUENCE} INSERT INTO events (id, institution_id, type, data, created_at)
       SELECT ${id('evt')}, :inst, 'student.created', json_object('student_id', ${id('stu')}, 'license_id', ${id('lic')}), ${stamp(':base + 2 * n')} FROM seq`,
      params,
    );
    await db.run('COMMIT');
    return count;
  } finally {
    await db.close();
  }
}

/** Events by SQL up to `target` for the institution, two milliseconds apart before every existing one. */
export async function topUpEvents({ databaseFile, institutionId, target, tag }) {
  const db = open(databaseFile);
  try {
    const [{ n: existing, oldest }] = await db.all('SELECT count(*) AS n, min(created_at) AS oldest FROM events WHERE institution_id = :inst', {
      ':inst': institutionId,
    });
    const count = target - existing;
    if (count <= 0) return { existing, viaSql: 0 };
    const base = Date.parse(oldest.replace(' +00:00', 'Z').replace(' ', 'T')) - 2 * count - 60_000;
    await db.run(
      `${SEQUENCE} INSERT INTO events (id, institution_id, type, data, created_at)
       SELECT 'evt_' || :tag || 'x' || printf('%019d', n), :inst, 'exam.graded',
              json_object('submission_id', 'sub_bench' || n, 'exam_id', 'exm_bench', 'student_id', 'stu_bench' || (n % 1000), 'score', n % 101),
              ${stamp(':base + 2 * n')} FROM seq`,
      { ':count': count, ':inst': institutionId, ':tag': tag, ':base': base },
    );
    return { existing, viaSql: count };
  } finally {
    await db.close();
  }
}

/** Every 100th student of the institution joins the group (about 1%). Answers the member count. */
export async function fillGroup({ databaseFile, institutionId, groupId }) {
  const db = open(databaseFile);
  try {
    await db.run(
      `INSERT OR IGNORE INTO group_members (institution_id, group_id, student_id, added_at, student_created_at)
       SELECT institution_id, :group, id, created_at, created_at FROM people WHERE institution_id = :inst AND role = 'student' AND rowid % 100 = 0`,
      { ':group': groupId, ':inst': institutionId },
    );
    const [{ n }] = await db.all('SELECT count(*) AS n FROM group_members WHERE group_id = :group', { ':group': groupId });
    return n;
  } finally {
    await db.close();
  }
}

/** Query values for the list filters and `since` values spread over the institution's events. */
export async function sampleValues({ databaseFile, institutionId, count = 200 }) {
  const db = open(databaseFile);
  try {
    const students = await db.all(
      `SELECT login_email, external_id FROM people WHERE institution_id = :inst AND role = 'student' ORDER BY random() LIMIT :count`,
      { ':inst': institutionId, ':count': count },
    );
    const events = await db.all(`SELECT created_at FROM events WHERE institution_id = :inst ORDER BY random() LIMIT :count`, {
      ':inst': institutionId,
      ':count': count,
    });
    const [{ total }] = await db.all(`SELECT count(*) AS total FROM people WHERE institution_id = :inst AND role = 'student'`, { ':inst': institutionId });
    const iso = (value) => new Date(Date.parse(value.replace(' +00:00', 'Z').replace(' ', 'T'))).toISOString();
    return {
      emails: students.map((s) => s.login_email),
      studentIds: students.map((s) => s.external_id),
      since: events.map((e) => iso(e.created_at)),
      students: total,
    };
  } finally {
    await db.close();
  }
}
