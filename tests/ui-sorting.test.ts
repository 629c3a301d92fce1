// @tier unit
// What a press on a sortable column header does to a server-sorted list (ui/src/components/sorting.ts):
// ascending, descending, back to the usual order; a column that is the usual order only flips.
import { describe, expect, it } from 'vitest';
import { nextSort } from '../ui/src/components/sorting.js';

describe('nextSort', () => {
  it('cycles a column through ascending, descending and the usual order', () => {
    expect(nextSort('', 'full_name')).toBe('full_name');
    expect(nextSort('full_name', 'full_name')).toBe('-full_name');
    expect(nextSort('-full_name', 'full_name')).toBe('');
  });

  it('starts another column ascending, whatever the current one is', () => {
    expect(nextSort('-full_name', 'created_at')).toBe('created_at');
    expect(nextSort('student_id', 'full_name')).toBe('full_name');
  });

  it('flips the column of a newest-first list between its two directions, sending nothing for the usual one', () => {
    expect(nextSort('', 'created_at', '-created_at')).toBe('created_at');
    expect(nextSort('created_at', 'created_at', '-created_at')).toBe('');
    expect(nextSort('', 'occurred_at', '-occurred_at')).toBe('occurred_at');
  });

  it('leaves a newest-first list for another column and comes back to the usual order', () => {
    expect(nextSort('', 'status', '-created_at')).toBe('status');
    expect(nextSort('status', 'status', '-created_at')).toBe('-status');
    expect(nextSort('-status', 'status', '-created_at')).toBe('');
  });
});
