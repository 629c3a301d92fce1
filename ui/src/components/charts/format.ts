const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const month = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A UTC day of the stats (`2026-11-28`) as a short label, `Nov 28`: the same day for every viewer. */
export const formatDay = (value: string) => day.format(new Date(`${value}T00:00:00Z`));

/** A UTC month of the stats (`2026-11`), `Nov 2026`. */
export const formatMonth = (value: string) => month.format(new Date(`${value}-01T00:00:00Z`));

/** `n` with its noun, `1 student`, `3 students`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The sum of `value(row)` over `rows`. */
export const sumOf = <T>(rows: readonly T[], value: (row: T) => number) => rows.reduce((sum, row) => sum + value(row), 0);
