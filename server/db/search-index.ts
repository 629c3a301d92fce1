import type sqlite3 from 'sqlite3';
import { SQLITE_SEARCH_TABLES } from './migrations/20261206000000-people-search.js';
import { allRows } from './sqlite-file.js';

/**
 * SQLite's index of people's search text (migration 20261206000000-people-search), seen from a
 * backup or a restore. It is derived data: `people.search_text` is the truth, and the index can
 * always be made again from it.
 */

/**
 * `PRAGMA integrity_check` asks FTS5 to check its inverted index with a write-shaped statement,
 * which a read-only connection refuses; the pragma then reports this line. The index's pages are
 * still checked (its shadow tables are ordinary tables), and a restore checks the index itself
 * on its read-write copy (`remakeSearchIndexIfStale`).
 */
export function isReadOnlyFtsCheck(problem: string): boolean {
  return /^unable to validate the inverted index for FTS5 table main\.people_search: attempt to write a readonly database$/.test(problem);
}

const run = (db: sqlite3.Database, sql: string) =>
  new Promise<void>((resolve, reject) => db.run(sql, (error: Error | null) => (error ? reject(error) : resolve())));

/**
 * Checks the search index of a database about to be restored (opened read-write, not yet in
 * service) against the people it indexes, and makes it again from them when it is damaged or
 * incomplete. Answers whether it did; a database from before the index has none to check.
 */
export async function remakeSearchIndexIfStale(db: sqlite3.Database): Promise<boolean> {
  const [table] = await allRows(db, "SELECT 1 FROM sqlite_master WHERE name = 'people_search'");
  if (!table) return false;
  let healthy: boolean;
  try {
    await run(db, "INSERT INTO people_search (people_search) VALUES ('integrity-check')");
    const [counts] = await allRows<{ people: number; rows: number; indexed: number }>(
      db,
      'SELECT (SELECT count(*) FROM people) AS people, (SELECT count(*) FROM people_search_rows) AS rows, (SELECT count(*) FROM people_search) AS indexed',
    );
    healthy = counts!.people === counts!.rows && counts!.rows === counts!.indexed;
  } catch {
    healthy = false;
  }
  if (healthy) return false;
  await run(db, 'BEGIN');
  try {
    // Dropped and made again, as the migration made them: a damaged FTS5 table may refuse a DELETE.
    // The triggers on `people` name the tables, and find the new ones.
    await run(db, 'DROP TABLE people_search');
    await run(db, 'DROP TABLE IF EXISTS people_search_rows');
    for (const sql of SQLITE_SEARCH_TABLES) await run(db, sql);
    await run(db, 'COMMIT');
  } catch (error) {
    await run(db, 'ROLLBACK');
    throw error;
  }
  return true;
}
