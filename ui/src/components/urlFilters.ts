import { useSearchParams } from 'react-router';

/**
 * List filters and the page kept in the URL, so Back and shared links restore the view. Changing
 * a filter returns to the first page.
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
  const clear = () => setSearch(new URLSearchParams());
  const filtered = names.some((name) => filters[name]);
  return { filters, page, setFilters, setPage, clear, filtered };
}
