import type { Migration } from '../migrate.js';

/**
 * Lists sort by their natural columns (`sort=full_name`, `-expires_at`, …), and a sorted
 * page must cost what the usual one does (docs/decisions/sorted-lists.md). Each index is the
 * list's equality filters, then the sort column and the tie-breakers the order adds (creation
 * time, id), so the page is read from it in either direction and stops after `limit` rows.
 * Orders by creation time (ascending or descending) use the list indexes of
 * 20261127000000-list-indexes.
 */
const SORT_INDEXES: Array<[table: string, columns: string[]]> = [
  ['people', ['institution_id', 'role', 'full_name', 'created_at', 'id']],
  // The portal's students and faculty pages filter by status, sorted by name.
  ['people', ['institution_id', 'role', 'status', 'full_name', 'created_at', 'id']],
  ['people', ['institution_id', 'role', 'external_id', 'created_at', 'id']],
  ['groups', ['institution_id', 'name', 'created_at', 'id']],
  ['licenses', ['institution_id', 'expires_at', 'created_at', 'id']],
  ['licenses', ['institution_id', 'starts_at', 'created_at', 'id']],
  ['exams', ['institution_id', 'title', 'created_at', 'id']],
  ['exams', ['institution_id', 'due_date', 'created_at', 'id']],
  ['submissions', ['institution_id', 'score', 'submitted_at', 'id']],
  // An exam's submissions by score: the grade book's order.
  ['submissions', ['institution_id', 'exam_id', 'score', 'submitted_at', 'id']],
];

export const sortIndexes: Migration = {
  name: '20261129000000-sort-indexes',
  async up({ queryInterface: qi, transaction }) {
    for (const [table, columns] of SORT_INDEXES) {
      await qi.addIndex(table, columns, { transaction });
    }
  },
};
