import { z } from './zod.js';

export type SortDirection = 'ASC' | 'DESC';

/** A list's requested order: one of its sortable columns (as the wire names it), and which way. */
export interface ListSort<C extends string = string> {
  column: C;
  direction: SortDirection;
}

/**
 * The `sort` query of a list: `column` ascending or `-column` descending, among the list's natural
 * columns (docs/decisions/sorted-lists.md). Absent, the list keeps its usual order, so callers
 * that never send it see no change.
 */
export function sortQuery<const C extends string>(columns: readonly [C, ...C[]], usual: string) {
  const values = columns.flatMap((column) => [column, `-${column}`]) as [string, ...string[]];
  const named = columns.map((column) => `\`${column}\``).join(', ');
  return z
    .enum(values)
    .optional()
    .transform((value): ListSort<C> | undefined =>
      value === undefined ? undefined : value.startsWith('-') ? { column: value.slice(1) as C, direction: 'DESC' } : { column: value as C, direction: 'ASC' },
    )
    .openapi({
      description:
        `Order of the list: ${named}, ascending, or descending with a leading \`-\` (\`-${columns[0]}\`). ` +
        `Ties are broken by creation time, then id, in the same direction. Without it: ${usual}.`,
      example: columns[0],
    });
}
