import type { Migration } from '../migrate.js';

/**
 * Every list is read from an index that matches its filter and its order, so a page
 * costs the same at 1,000 rows as at 100,000 (docs/decisions/list-indexes.md). Each index is the
 * list's equality filters, then its ORDER BY columns with the `id` tie-breaker; the plans are
 * asserted in tests/query-plans.test.ts. Plain column indexes: PostgreSQL reads them alike.
 */
const LIST_INDEXES: Array<[table: string, columns: string[]]> = [
  // GET /v1/students and /v1/faculty, all or by status; `email` and `group_id` are looked up first.
  ['people', ['institution_id', 'role', 'created_at', 'id']],
  ['people', ['institution_id', 'role', 'status', 'created_at', 'id']],
  ['group_members', ['institution_id', 'group_id', 'student_id']],
  ['groups', ['institution_id', 'created_at', 'id']],
  ['groups', ['institution_id', 'faculty_id', 'created_at', 'id']],
  ['licenses', ['institution_id', 'created_at', 'id']],
  ['licenses', ['institution_id', 'user_id', 'created_at', 'id']],
  ['licenses', ['institution_id', 'type', 'created_at', 'id']],
  // `status=active` is also `expires_at > now`: checked in the index, and counted without the table.
  ['licenses', ['institution_id', 'status', 'created_at', 'id', 'expires_at']],
  ['exams', ['institution_id', 'created_at', 'id']],
  ['exams', ['institution_id', 'faculty_id', 'created_at', 'id']],
  ['exams', ['institution_id', 'status', 'created_at', 'id']],
  ['exams', ['institution_id', 'app', 'created_at', 'id']],
  ['exam_assignments', ['institution_id', 'group_id', 'assigned_at', 'exam_id']],
  ['attempts', ['institution_id', 'exam_id', 'started_at', 'id']],
  ['submissions', ['institution_id', 'submitted_at', 'id']],
  ['submissions', ['institution_id', 'exam_id', 'submitted_at', 'id']],
  ['submissions', ['institution_id', 'student_id', 'submitted_at', 'id']],
  ['submissions', ['institution_id', 'status', 'submitted_at', 'id']],
  ['webhook_deliveries', ['institution_id', 'created_at', 'id']],
  ['webhook_deliveries', ['institution_id', 'endpoint_id', 'created_at', 'id']],
  ['webhook_deliveries', ['institution_id', 'status', 'created_at', 'id']],
  ['coupon_batches', ['institution_id', 'created_at', 'id']],
  ['coupon_redemptions', ['institution_id', 'redeemed_at', 'id']],
  ['coupon_redemptions', ['institution_id', 'student_id', 'redeemed_at', 'id']],
  ['merit_ledger', ['institution_id', 'created_at', 'id']],
  ['merit_ledger', ['institution_id', 'student_id', 'created_at', 'id']],
  ['guardian_links', ['institution_id', 'created_at', 'id']],
  ['guardian_links', ['institution_id', 'student_id', 'created_at', 'id']],
  ['guardian_links', ['institution_id', 'verified', 'created_at', 'id']],
  ['guardian_reports', ['institution_id', 'created_at', 'id']],
  ['guardian_reports', ['institution_id', 'student_id', 'created_at', 'id']],
  ['alpha_enrollments', ['institution_id', 'created_at', 'id']],
  ['alpha_enrollments', ['institution_id', 'student_id', 'created_at', 'id']],
  ['alpha_enrollments', ['institution_id', 'curriculum_id', 'created_at', 'id']],
  ['alpha_enrollments', ['institution_id', 'status', 'created_at', 'id']],
  ['portal_audit_log', ['institution_id', 'created_at', 'id']],
];

export const listIndexes: Migration = {
  name: '20261127000000-list-indexes',
  async up({ queryInterface: qi, transaction }) {
    for (const [table, columns] of LIST_INDEXES) {
      await qi.addIndex(table, columns, { transaction });
    }
  },
};
