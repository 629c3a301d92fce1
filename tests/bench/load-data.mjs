// Data for the benchmark: students through the API (`POST /v1/students/bulk`, 200 a call) until a
// time budget runs out, then the rest by direct SQL in the shape the API writes (a person, a
// license and a `student.created` event each); events topped up by direct SQL. The report says
// how many rows came each way. `database` is the appliance's database: `{ databaseFile }` on
// SQLite, `{ databaseUrl }` on PostgreSQL (database.mjs).
import { api } from './appliance.mjs';
import { openDatabase, storedMs } from './database.mjs';
import { benchName } from './names.mjs';

export const BULK_SIZE = 200;

/** A number from a call's tag, so each call combines the names differently. */
const seedOf = (tag) => [...tag].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) % 100_003, 0);

/** `count` students for one bulk call, with names as a district has them (names.mjs); `tag` keeps student ids unique across calls. */
export function bulkBody(tag, count = BULK_SIZE) {
  const seed = seedOf(tag);
  return {
    students: Array.from({ length: count }, (_, i) => ({ full_name: benchName(seed, i), student_id: `${tag}-${i}` })),
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

/** Runs `work(db)` on the appliance's database and closes it. */
async function withDatabase(database, work) {
  const db = await openDatabase(database);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

// PostgreSQL takes an untyped `:base + 2 * n` for an integer, too small for epoch milliseconds.
const BIGINT = (param) => `CAST(${param} AS BIGINT)`;

/**
 * `count` more students by SQL, as the API would have made them, created one millisecond apart
 * before every existing row; every 50th suspended. Answers how many. People's triggers keep
 * `person_counts` right on both databases.
 */
export async function topUpStudents({ database, institutionId, count, tag }) {
  if (count <= 0) return 0;
  return withDatabase(database, async (db) => {
    const [{ login_email: email }] = await db.all("SELECT login_email FROM people WHERE institution_id = :inst AND role = 'student' LIMIT 1", {
      inst: institutionId,
    });
    const [{ oldest }] = await db.all('SELECT min(created_at) AS oldest FROM events WHERE institution_id = :inst', { inst: institutionId });
    // Events one millisecond apart, before every existing event: created_at stays unique per institution.
    const base = storedMs(oldest) - 2 * count - 60_000;
    const params = { count, inst: institutionId, tag, domain: email.slice(email.indexOf('@')), base };
    const id = (prefix) => `'${prefix}_' || :tag || ${db.padded('n', 20)}`;
    const at = db.stamp(`${BIGINT(':base')} + 2 * n`);
    await db.transaction(async () => {
      await db.run(
        `${db.sequence(':count')} INSERT INTO people (id, institution_id, role, login_email, full_name, external_id, status, search_text, created_at, updated_at)
         SELECT ${id('stu')}, :inst, 'student', 'sql.' || :tag || n || :domain, 'Sql ' || :tag || ' Student' || n, :tag || '-sql-' || n,
                CASE WHEN n % 50 = 0 THEN 'suspended' ELSE 'active' END,
                ' sql ' || lower(:tag) || ' student' || n || ' ' || lower(:tag) || ' sql ' || n || ' sql ' || lower(:tag) || n || ' ', ${at}, ${at} FROM seq`,
        params,
      );
      await db.run(
        `${db.sequence(':count')} INSERT INTO licenses (id, institution_id, user_id, type, status, starts_at, expires_at, created_at, updated_at)
         SELECT ${id('lic')}, :inst, ${id('stu')}, 'student', 'active', ${at}, ${db.stamp(`${BIGINT(':base')} + 2 * n + 31536000000`)}, ${at}, ${at} FROM seq`,
        params,
      );
      await db.run(
        `${db.sequence(':count')} INSERT INTO events (id, institution_id, type, data, created_at)
         SELECT ${id('evt')}, :inst, 'student.created', ${db.jsonObject("'student_id'", id('stu'), "'license_id'", id('lic'))}, ${at} FROM seq`,
        params,
      );
    });
    return count;
  });
}

/** Events by SQL up to `target` for the institution, two milliseconds apart before every existing one. */
export async function topUpEvents({ database, institutionId, target, tag }) {
  return withDatabase(database, async (db) => {
    const [row] = await db.all('SELECT count(*) AS n, min(created_at) AS oldest FROM events WHERE institution_id = :inst', { inst: institutionId });
    const existing = Number(row.n);
    const count = target - existing;
    if (count <= 0) return { existing, viaSql: 0 };
    const base = storedMs(row.oldest) - 2 * count - 60_000;
    const data = db.jsonObject(
      "'submission_id'",
      "'sub_bench' || n",
      "'exam_id'",
      "'exm_bench'",
      "'student_id'",
      "'stu_bench' || (n % 1000)",
      "'score'",
      'n % 101',
    );
    await db.run(
      `${db.sequence(':count')} INSERT INTO events (id, institution_id, type, data, created_at)
       SELECT 'evt_' || :tag || 'x' || ${db.padded('n', 19)}, :inst, 'exam.graded', ${data}, ${db.stamp(`${BIGINT(':base')} + 2 * n`)} FROM seq`,
      { count, inst: institutionId, tag, base },
    );
    return { existing, viaSql: count };
  });
}

/**
 * Every 100th student of the institution, in order of creation, joins the group (about 1%).
 * Answers the member count.
 */
export async function fillGroup({ database, institutionId, groupId }) {
  return withDatabase(database, async (db) => {
    await db.run(
      `INSERT INTO group_members (institution_id, group_id, student_id, added_at, student_created_at)
       SELECT institution_id, :group, id, created_at, created_at FROM (
         SELECT institution_id, id, created_at, row_number() OVER (ORDER BY created_at, id) AS position
           FROM people WHERE institution_id = :inst AND role = 'student'
       ) AS students WHERE position % 100 = 0
       ON CONFLICT DO NOTHING`,
      { group: groupId, inst: institutionId },
    );
    const [{ n }] = await db.all('SELECT count(*) AS n FROM group_members WHERE group_id = :group', { group: groupId });
    return Number(n);
  });
}

/** The planner's statistics as a database in service would have them after the load (database.mjs). */
export async function refreshStatistics({ database }) {
  await withDatabase(database, (db) => db.refreshStatistics());
}

/** Query values for the list filters and `since` values spread over the institution's events. */
export async function sampleValues({ database, institutionId, count = 200 }) {
  return withDatabase(database, async (db) => {
    const students = await db.all(
      `SELECT login_email, external_id FROM people WHERE institution_id = :inst AND role = 'student' ORDER BY random() LIMIT :count`,
      { inst: institutionId, count },
    );
    const events = await db.all(`SELECT created_at FROM events WHERE institution_id = :inst ORDER BY random() LIMIT :count`, { inst: institutionId, count });
    const [{ total }] = await db.all(`SELECT count(*) AS total FROM people WHERE institution_id = :inst AND role = 'student'`, { inst: institutionId });
    return {
      emails: students.map((s) => s.login_email),
      studentIds: students.map((s) => s.external_id),
      since: events.map((e) => new Date(storedMs(e.created_at)).toISOString()),
      students: Number(total),
    };
  });
}
