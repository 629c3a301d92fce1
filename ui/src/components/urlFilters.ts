import { useSearchParams } from 'react-router';

/**
 * List filters, the sort and the page kept in the URL, so Back and shared links restore the view.
 * Changing a filter or the sort returns to the first page.
 */
export function useUrlFilters<F extends string>(names: readonly F[]) {
  const [search, setSearch] = useSearchParams();
  const filters = Object.fromEntries(names.map((name) => [name, search.get(name) ?? ''])) as Record<F, string>;
  const page = Math.max(1, Number(search.get('page')) || 1);
  const setFilters = (changes: Partial<Record<F, string | null>>) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      for (const [name, value] of Object.entries(changes) as Array<[F, string | null | undefined]>) {
        if (value) next.set(name, value);
        else next.delete(name);
      }
      next.delete('page');
      return next;
    });
  const setPage = (value: number) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      next.set('page', String(value));
      return next;
    });
  /** The server's `sort` (`full_name`, `-full_name`), '' for the list's usual order; not a filter, so Clear keeps it. */
  const sort = search.get('sort') ?? '';
  const setSort = (value: string) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set('sort', value);
      else next.delete('sort');
      next.delete('page');
      return next;
    });
  const clear = () => setSearch(sort ? new URLSearchParams({ sort }) : new URLSearchParams());
  const filtered = names.some((name) => filters[name]);
  return { filters, page, setFilters, setPage, clear, filtered, sort, setSort };
}
