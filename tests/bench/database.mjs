// Direct SQL into the appliance's database for the loader (load-data.mjs), on SQLite (the file in
// the data folder, sqlite3) or PostgreSQL (DATABASE_URL, pg). Statements are written once with
// `:name` parameters and the few fragments where the two dialects differ come from the driver:
// a run of numbers 1..count, zero-padding, a timestamp from epoch milliseconds, a JSON object.
import { createRequire } from 'node:module';
import path from 'node:path';
import { root } from './appliance.mjs';

const requireFromRoot = createRequire(path.join(root, 'package.json'));

/** The bench's database: `{ databaseFile }` for SQLite, `{ databaseUrl }` for PostgreSQL. */
export const openDatabase = async (target) => (target.databaseUrl ? openPostgres(target.databaseUrl) : openSqlite(target.databaseFile));

/** Milliseconds since the epoch of a stored DATE: SQLite keeps `YYYY-MM-DD HH:MM:SS.sss +00:00`, pg reads a Date. */
export const storedMs = (value) => (value instanceof Date ? value.getTime() : Date.parse(value.replace(' +00:00', 'Z').replace(' ', 'T')));

function openSqlite(databaseFile) {
  const sqlite3 = requireFromRoot('sqlite3');
  const db = new sqlite3.Database(databaseFile);
  db.configure('busyTimeout', 60_000);
  // sqlite3 refuses a named parameter the statement does not use: pass only those it names.
  const used = (sql, params) =>
    Object.fromEntries(
      Object.entries(params)
        .filter(([name]) => sql.includes(`:${name}`))
        .map(([name, value]) => [`:${name}`, value]),
    );
  const run = (sql, params = {}) => new Promise((resolve, reject) => db.run(sql, used(sql, params), (err) => (err ? reject(err) : resolve())));
  const all = (sql, params = {}) => new Promise((resolve, reject) => db.all(sql, used(sql, params), (err, rows) => (err ? reject(err) : resolve(rows))));
  return {
    run,
    all,
    async transaction(work) {
      await run('BEGIN IMMEDIATE');
      try {
        await work();
        await run('COMMIT');
      } catch (error) {
        await run('ROLLBACK');
        throw error;
      }
    },
    close: () => new Promise((resolve) => db.close(() => resolve())),
    // The appliance never runs ANALYZE on SQLite (no sqlite_stat1): measure the planner it ships with.
    refreshStatistics: async () => {},
    // Made by SQLite itself (a recursive CTE).
    sequence: (count) => `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count})`,
    padded: (expr, width) => `printf('%0${width}d', ${expr})`,
    // Sequelize's own format for DATE on SQLite.
    stamp: (msExpr) => `strftime('%Y-%m-%d %H:%M:%f', (${msExpr}) / 1000.0, 'unixepoch') || ' +00:00'`,
    jsonObject: (...pairs) => `json_object(${pairs.join(', ')})`,
  };
}

async function openPostgres(databaseUrl) {
  const pg = requireFromRoot('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // `:name` to `$n`, numbered in order of first use; `::type` casts are not parameters.
  const numbered = (sql, params) => {
    const names = [];
    const text = sql.replace(/(?<![:\w]):([a-z]\w*)/gi, (_, name) => {
      if (!(name in params)) throw new Error(`no value for :${name}`);
      if (!names.includes(name)) names.push(name);
      return `$${names.indexOf(name) + 1}`;
    });
    return [text, names.map((name) => params[name])];
  };
  const all = async (sql, params = {}) => (await client.query(...numbered(sql, params))).rows;
  return {
    run: async (sql, params = {}) => {
      await all(sql, params);
    },
    all,
    async transaction(work) {
      await client.query('BEGIN');
      try {
        await work();
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    close: () => client.end(),
    // Autovacuum analyzes a table within a minute of a bulk load; the bench measures seconds after it.
    refreshStatistics: () => all('ANALYZE'),
    sequence: (count) => `WITH seq(n) AS (SELECT generate_series(1, (${count})::int))`,
    padded: (expr, width) => `lpad((${expr})::text, ${width}, '0')`,
    // DATE is `timestamp with time zone` on PostgreSQL; whole milliseconds, as the appliance writes.
    stamp: (msExpr) => `(timestamptz 'epoch' + (${msExpr})::bigint * interval '1 millisecond')`,
    jsonObject: (...pairs) => `json_build_object(${pairs.join(', ')})`,
  };
}
