// @tier integration
// @databases sqlite: a SQLite file migrated part way (migrateTo); the same migrations run on PostgreSQL at every start of the postgres project
// The two migrations behind the students list's cost (docs/decisions/list-indexes.md), on a data folder an older
// CampusBridge left: kept person counts start from the people already there, and memberships
// already there get their students' creation time, so a group's list keeps its order.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../server/db/index.js';
import { migrations } from '../server/db/migrations/index.js';
import { tempDataDirs } from './helpers/appliance.js';

const FIRST = '20261128000000-person-counts';
/** The migration just before them: the data folder an older version left. */
const BEFORE = migrations[migrations.findIndex((migration) => migration.name === FIRST) - 1]!.name;
const makeDataDir = tempDataDirs('campusbridge-list-migrations-');

describe('list migrations on an older data folder', () => {
  it('counts the people already there and orders the memberships already there by their students', async () => {
    const file = path.join(makeDataDir(), 'campusbridge.sqlite');
    const older = await connectDatabase(file, undefined, { migrateTo: BEFORE });
    const at = (minute: number) => `2026-01-01 00:${String(minute).padStart(2, '0')}:00.000 +00:00`;
    await older.sequelize.query(
      `INSERT INTO institutions (id, name, status, config, email_domain, created_at, updated_at)
       VALUES ('inst_old', 'Old School', 'approved', '{}', 'old.campusbridge.local', :at, :at)`,
      { replacements: { at: at(0) } },
    );
    for (const [id, role, status, minute] of [
      ['stu_b', 'student', 'active', 2],
      ['stu_a', 'student', 'active', 1],
      ['stu_c', 'student', 'suspended', 3],
      ['fac_a', 'faculty', 'active', 4],
    ] as const) {
      await older.sequelize.query(
        `INSERT INTO people (id, institution_id, role, login_email, full_name, status, created_at, updated_at)
         VALUES (:id, 'inst_old', :role, :email, :id, :status, :at, :at)`,
        { replacements: { id, role, status, email: `${id}@old.campusbridge.local`, at: at(minute) } },
      );
    }
    await older.sequelize.query(
      `INSERT INTO groups (id, institution_id, name, description, faculty_id, created_at, updated_at)
       VALUES ('grp_old', 'inst_old', 'Class', '', 'fac_a', :at, :at)`,
      { replacements: { at: at(5) } },
    );
    // Joined in another order than the students were created.
    for (const [student, minute] of [
      ['stu_c', 6],
      ['stu_b', 7],
      ['stu_a', 8],
    ] as const) {
      await older.sequelize.query(`INSERT INTO group_members (institution_id, group_id, student_id, added_at) VALUES ('inst_old', 'grp_old', :student, :at)`, {
        replacements: { student, at: at(minute) },
      });
    }
    await older.close();

    const db = await connectDatabase(file);
    try {
      expect(db.migrationsApplied).toEqual(expect.arrayContaining([FIRST, '20261128010000-group-member-order']));
      const counts = await db.models.PersonCount.findAll({
        order: [
          ['role', 'ASC'],
          ['status', 'ASC'],
        ],
        raw: true,
      });
      expect(counts.map((row) => [row.role, row.status, row.total])).toEqual([
        ['faculty', 'active', 1],
        ['student', 'active', 2],
        ['student', 'suspended', 1],
      ]);
      const members = await db.models.GroupMember.findAll({ order: [['student_created_at', 'ASC']] });
      expect(members.map((row) => [row.student_id, row.student_created_at.toISOString()])).toEqual([
        ['stu_a', '2026-01-01T00:01:00.000Z'],
        ['stu_b', '2026-01-01T00:02:00.000Z'],
        ['stu_c', '2026-01-01T00:03:00.000Z'],
      ]);
    } finally {
      await db.close();
    }
  });
});
