/** How a press on a sortable column header changes a server-sorted list's `sort` query. */

/**
 * The next server sort after a press on `column`: ascending, then descending, then the list's usual
 * order (''); a column that is the usual order just flips between its two directions.
 */
export function nextSort(current: string, column: string, usual = ''): string {
  const shown = current || usual;
  const next = shown === column ? `-${column}` : shown === `-${column}` ? '' : column;
  if (next === '' && usual.replace(/^-/, '') === column) return shown === column ? `-${column}` : column;
  return next === usual ? '' : next;
}
