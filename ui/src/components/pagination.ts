import type { Page } from '../api/portal';
import type { TablePagination } from './DataTable';

/** DataTable's pager for a page-numbered list; none until the first page has arrived. */
export function pagesOf(page: Page<unknown> | undefined, onChange: (page: number) => void): TablePagination | undefined {
  return page ? { page: page.page, totalPages: page.totalPages, total: page.total, onChange } : undefined;
}
