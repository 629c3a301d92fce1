import type { Migration } from '../migrate.js';

/**
 * The `total` of GET /v1/students and /v1/faculty, without counting the institution's people at
 * each request (a `count(*)` over 100,000 index entries costs more than the rest of the
 * request). The database keeps one row per (institution, role, status) up to date with triggers,
 * so the count is exact whatever writes a person: the API, the CLI, a restore or an operator's
 * SQL (docs/decisions/counted-totals.md). SQLite and PostgreSQL write triggers differently, so
 * each has its own; the table and the counts are the same.
 */
const TABLE = [
  `CREATE TABLE person_counts (
     institution_id VARCHAR(40) NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
     role VARCHAR(16) NOT NULL,
     status VARCHAR(16) NOT NULL,
     total INTEGER NOT NULL,
     PRIMARY KEY (institution_id, role, status)
   )`,
  `INSERT INTO person_counts (institution_id, role, status, total)
     SELECT institution_id, role, status, count(*) FROM people GROUP BY institution_id, role, status`,
];

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER person_counts_insert AFTER INSERT ON people BEGIN
     INSERT INTO person_counts (institution_id, role, status, total) VALUES (NEW.institution_id, NEW.role, NEW.status, 1)
       ON CONFLICT (institution_id, role, status) DO UPDATE SET total = total + 1;
   END`,
  `CREATE TRIGGER person_counts_delete AFTER DELETE ON people BEGIN
     UPDATE person_counts SET total = total - 1
       WHERE institution_id = OLD.institution_id AND role = OLD.role AND status = OLD.status;
   END`,
  `CREATE TRIGGER person_counts_update AFTER UPDATE OF institution_id, role, status ON people
   WHEN OLD.institution_id IS NOT NEW.institution_id OR OLD.role IS NOT NEW.role OR OLD.status IS NOT NEW.status BEGIN
     UPDATE person_counts SET total = total - 1
       WHERE institution_id = OLD.institution_id AND role = OLD.role AND status = OLD.status;
     INSERT INTO person_counts (institution_id, role, status, total) VALUES (NEW.institution_id, NEW.role, NEW.status, 1)
       ON CONFLICT (institution_id, role, status) DO UPDATE SET total = total + 1;
   END`,
];

/** One function for the three cases; `IS DISTINCT FROM` is PostgreSQL's `IS NOT`. */
const POSTGRES_TRIGGERS = [
  `CREATE FUNCTION person_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP IN ('DELETE', 'UPDATE') THEN
       UPDATE person_counts SET total = total - 1
         WHERE institution_id = OLD.institution_id AND role = OLD.role AND status = OLD.status;
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN
       INSERT INTO person_counts (institution_id, role, status, total) VALUES (NEW.institution_id, NEW.role, NEW.status, 1)
         ON CONFLICT (institution_id, role, status) DO UPDATE SET total = person_counts.total + 1;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER person_counts_insert AFTER INSERT ON people FOR EACH ROW EXECUTE FUNCTION person_counts_follow()`,
  `CREATE TRIGGER person_counts_delete AFTER DELETE ON people FOR EACH ROW EXECUTE FUNCTION person_counts_follow()`,
  `CREATE TRIGGER person_counts_update AFTER UPDATE OF institution_id, role, status ON people FOR EACH ROW
   WHEN (OLD.institution_id IS DISTINCT FROM NEW.institution_id OR OLD.role IS DISTINCT FROM NEW.role OR OLD.status IS DISTINCT FROM NEW.status)
   EXECUTE FUNCTION person_counts_follow()`,
];

export const personCounts: Migration = {
  name: '20261128000000-person-counts',
  async up({ queryInterface: qi, transaction }) {
    const dialect = qi.sequelize.getDialect();
    if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`person_counts triggers are written for SQLite and PostgreSQL, not ${dialect}`);
    for (const sql of [...TABLE, ...(dialect === 'sqlite' ? SQLITE_TRIGGERS : POSTGRES_TRIGGERS)]) await qi.sequelize.query(sql, { transaction });
  },
};
