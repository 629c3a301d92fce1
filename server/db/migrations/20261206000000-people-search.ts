import { DataTypes, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Migration } from '../migrate.js';
import { searchTextOf, type Searchable } from '../search-text.js';

/**
 * `q` on GET /v1/students and /v1/faculty finds part of a name, id or
 * login e-mail, whatever its case and accents. Each person gets `search_text` (server/db/search-text.ts:
 * the three folded, in JavaScript, since neither database folds "Ø" to "o"), filled here for the
 * people already stored, and an index that serves a match of any part of it
 * (docs/decisions/people-search.md):
 *
 * - PostgreSQL: a GIN trigram index (`pg_trgm`, part of PostgreSQL's standard contrib) on the
 *   column; `search_text LIKE '%sorens%'` is planned on it.
 * - SQLite: an FTS5 table with the trigram tokenizer, and beside it `people_search_rows`: per
 *   person an integer key (FTS5 rows are keyed by integers, and `people`'s rowid may change at a
 *   VACUUM, its key being text) with the columns a list filters and sorts by. A search reads the
 *   FTS5 matches, then those narrow rows by their integer key, and `people` only for the page.
 *   Triggers on `people` keep both.
 */

/** SQLite's tables of the search index: kept by triggers, made again from `people`, never copied elsewhere. */
export const SQLITE_SEARCH_TABLE_PREFIX = 'people_search';

/**
 * The index's two tables (the narrow rows cascade with their institution, like every table that
 * has an institution_id), and their rows made from `people`; a restore uses them too, to make a
 * damaged index again (server/db/search-index.ts).
 */
export const SQLITE_SEARCH_TABLES = [
  `CREATE TABLE people_search_rows (
     search_rowid INTEGER PRIMARY KEY,
     person_id VARCHAR(40) NOT NULL UNIQUE,
     institution_id VARCHAR(40) NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
     role VARCHAR(16) NOT NULL,
     status VARCHAR(16) NOT NULL,
     external_id VARCHAR(100),
     full_name VARCHAR(200) NOT NULL,
     created_at DATETIME NOT NULL
   )`,
  `CREATE VIRTUAL TABLE people_search USING fts5(search_text, tokenize = 'trigram')`,
  // However a row goes (its person deleted, or its institution, by cascade), its FTS row goes with it.
  `CREATE TRIGGER people_search_rows_delete AFTER DELETE ON people_search_rows BEGIN
     DELETE FROM people_search WHERE rowid = OLD.search_rowid;
   END`,
  `INSERT INTO people_search_rows (person_id, institution_id, role, status, external_id, full_name, created_at)
     SELECT id, institution_id, role, status, external_id, full_name, created_at FROM people ORDER BY created_at, id`,
  `INSERT INTO people_search (rowid, search_text)
     SELECT rows.search_rowid, people.search_text FROM people_search_rows AS rows JOIN people ON people.id = rows.person_id`,
];

const ROW_OF_NEW = '(SELECT search_rowid FROM people_search_rows WHERE person_id = NEW.id)';

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER people_search_insert AFTER INSERT ON people BEGIN
     INSERT INTO people_search_rows (person_id, institution_id, role, status, external_id, full_name, created_at)
       VALUES (NEW.id, NEW.institution_id, NEW.role, NEW.status, NEW.external_id, NEW.full_name, NEW.created_at);
     INSERT INTO people_search (rowid, search_text) VALUES (${ROW_OF_NEW}, NEW.search_text);
   END`,
  `CREATE TRIGGER people_search_update_row AFTER UPDATE OF institution_id, role, status, external_id, full_name, created_at ON people BEGIN
     UPDATE people_search_rows
        SET institution_id = NEW.institution_id, role = NEW.role, status = NEW.status,
            external_id = NEW.external_id, full_name = NEW.full_name, created_at = NEW.created_at
      WHERE person_id = NEW.id;
   END`,
  `CREATE TRIGGER people_search_update_text AFTER UPDATE OF search_text ON people WHEN OLD.search_text IS NOT NEW.search_text BEGIN
     UPDATE people_search SET search_text = NEW.search_text WHERE rowid = ${ROW_OF_NEW};
   END`,
  `CREATE TRIGGER people_search_delete AFTER DELETE ON people BEGIN
     DELETE FROM people_search_rows WHERE person_id = OLD.id;
   END`,
];

const POSTGRES_INDEX = [`CREATE INDEX people_search_text ON people USING gin (search_text gin_trgm_ops)`];

/** People are read and written this many at a time while their search text is filled. */
const BATCH = 500;

/** Fills `search_text` for the people already stored, a batch at a time in key order. */
async function fillSearchText(sequelize: Sequelize, transaction: Transaction): Promise<void> {
  const dialect = sequelize.getDialect();
  let after = '';
  for (;;) {
    const rows = await sequelize.query<Searchable & { id: string }>(
      'SELECT id, full_name, external_id, login_email FROM people WHERE id > :after ORDER BY id LIMIT :limit',
      { replacements: { after, limit: BATCH }, type: QueryTypes.SELECT, transaction },
    );
    if (rows.length === 0) return;
    const values = rows.map((_row, index) => `(:id${index}, :text${index})`).join(', ');
    const replacements: Record<string, string> = {};
    rows.forEach((row, index) => {
      replacements[`id${index}`] = row.id;
      replacements[`text${index}`] = searchTextOf(row);
    });
    // One statement per batch; SQLite names a VALUES list's columns column1, column2.
    const sql =
      dialect === 'sqlite'
        ? `UPDATE people SET search_text = batch.column2 FROM (VALUES ${values}) AS batch WHERE people.id = batch.column1`
        : `UPDATE people SET search_text = batch.text FROM (VALUES ${values}) AS batch (id, text) WHERE people.id = batch.id`;
    await sequelize.query(sql, { replacements, transaction });
    after = rows[rows.length - 1]!.id;
  }
}

export const peopleSearch: Migration = {
  name: '20261206000000-people-search',
  async up({ queryInterface: qi, transaction }) {
    const sequelize = qi.sequelize;
    const dialect = sequelize.getDialect();
    if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`the people search index is written for SQLite and PostgreSQL, not ${dialect}`);
    await qi.addColumn('people', 'search_text', { type: DataTypes.TEXT, allowNull: false, defaultValue: '' }, { transaction });
    await fillSearchText(sequelize, transaction);
    if (dialect === 'postgres') {
      try {
        await sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm', { transaction });
      } catch (error) {
        throw new Error(
          `PostgreSQL's pg_trgm extension is needed to find people by name (docs/install.md#postgresql): ${(error as Error).message}. ` +
            'Install PostgreSQL\'s contrib modules, or run "CREATE EXTENSION pg_trgm" as a superuser in this database, then start again.',
          { cause: error },
        );
      }
    }
    for (const sql of dialect === 'sqlite' ? [...SQLITE_SEARCH_TABLES, ...SQLITE_TRIGGERS] : POSTGRES_INDEX) await sequelize.query(sql, { transaction });
  },
};
