import type { ListSort } from '../validation/sort.js';

export type OrderItem = [column: string, direction: 'ASC' | 'DESC'];

/**
 * The ORDER BY of a sorted page: the requested column, then `tieBreakers` (creation time and id)
 * in the same direction, so every order is total and a page read backwards is the same page
 * (cutPage). Each list has an index of the same columns behind its institution
 * (migration 20261129000000-sort-indexes), so the page is read from it in order.
 */
export function sortedOrder<C extends string>(
  sort: ListSort<C> | undefined,
  columnOf: Record<C, string>,
  usual: OrderItem[],
  tieBreakers: readonly string[] = ['created_at', 'id'],
): OrderItem[] {
  if (!sort) return usual;
  const column = columnOf[sort.column];
  return [column, ...tieBreakers.filter((tie) => tie !== column)].map((name) => [name, sort.direction]);
}

type Sortable = string | number | Date | null | undefined;

function compareValues(a: Sortable, b: Sortable): number {
  // Missing values first ascending, as SQLite sorts NULL.
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  const left = a instanceof Date ? a.getTime() : a;
  const right = b instanceof Date ? b.getTime() : b;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Sorts rows already in memory (a handful an exact filter found) in `order`, as the database would. */
export function compareInOrder<T>(order: readonly OrderItem[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const [column, direction] of order) {
      const row = (value: T) => (value as Record<string, Sortable>)[column];
      const result = compareValues(row(a), row(b));
      if (result !== 0) return direction === 'ASC' ? result : -result;
    }
    return 0;
  };
}
