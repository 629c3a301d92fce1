import type { Migration } from '../migrate.js';

/**
 * Issue 15: the `total` of GET /v1/students and /v1/faculty without counting the institution's
 * people at each request (a `count(*)` over 100,000 index entries costs more than the rest of the
 * request). The database keeps one row per (institution, role, status) up to date with triggers,
 * so the count is exact whatever writes a person: the API, the CLI, a restore or an operator's
 * SQL (docs/decisions.md#counted-totals). The triggers are SQLite's; the PostgreSQL port of
 * issue 18 adds its own.
 */
const STATEMENTS = [
  `CREATE TABLE person_counts (
     institution_id VARCHAR(40) NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
     role VARCHAR(16) NOT NULL,
     status VARCHAR(16) NOT NULL,
     total INTEGER NOT NULL,
     PRIMARY KEY (institution_id, role, status)
   )`,
  `INSERT INTO person_counts (institution_id, role, status, total)
     SELECT institution_id, role, status, count(*) FROM people GROUP BY institution_id, role, status`,
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

export const personCounts: Migration = {
  name: '20261128000000-person-counts',
  async up({ queryInterface: qi, transaction }) {
    const dialect = qi.sequelize.getDialect();
    if (dialect !== 'sqlite') throw new Error(`person_counts triggers are written for SQLite, not ${dialect}`);
    for (const sql of STATEMENTS) await qi.sequelize.query(sql, { transaction });
  },
};
