import { Anchor, Center, Group, Pagination, Skeleton, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type Header, type SortingState } from '@tanstack/react-table';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { QueryError } from './QueryError';
import { nextSort } from './sorting';

declare module '@tanstack/react-table' {
  // The column's `sort` value on the wire (`full_name`), for a list the server sorts.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData, TValue> {
    sort?: string;
  }
}

/** A list the server sorts: `value` is the `sort` query (`full_name`, `-full_name`, or '' for the list's usual order). */
export interface ServerSort {
  value: string;
  onChange(value: string): void;
  /** The list's order without `sort` when it is one of the sortable columns (`-created_at` for the newest first). */
  usual?: string;
}

export interface EmptyState {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
}

export interface TablePagination {
  page: number;
  totalPages: number;
  total?: number;
  onChange(page: number): void;
}

interface DataTableProps<T> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: ColumnDef<T, any>[];
  data: T[] | undefined;
  isLoading: boolean;
  error?: unknown;
  empty: EmptyState;
  onRowClick?(row: T): void;
  /**
   * Where a row leads (a route path, relative as for `navigate`): the row opens it on click or
   * Enter, and its first cell is a real link, so it opens in a new tab too. Not for a table whose
   * first cell holds a link already (a link may not hold another): use onRowClick there.
   */
  rowLink?(row: T): string;
  getRowId?(row: T): string;
  pagination?: TablePagination;
  /** The table's accessible name. */
  label?: string;
  /**
   * Paged lists: the server's order, set by the headers of columns with `meta.sort`. Lists held
   * whole (no `pagination`) sort in the browser instead, by every column with an accessor.
   */
  sort?: ServerSort;
}

type Direction = 'ascending' | 'descending' | 'none';

/** Names for the pager's arrow buttons, which show only an icon. */
const CONTROL_LABELS = { first: 'First page', previous: 'Previous page', next: 'Next page', last: 'Last page' } as const;

/** A column header that sorts: a button saying what a press does, the direction in `aria-sort` on the cell. */
function SortHeader({ label, direction, onSort }: { label: ReactNode; direction: Direction; onSort(): void }) {
  const arrow = direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕';
  return (
    <UnstyledButton onClick={onSort} fz="sm" fw={700} style={{ whiteSpace: 'nowrap', display: 'inline-flex', gap: 4, alignItems: 'center' }}>
      {label}
      <Text span size="xs" c={direction === 'none' ? 'dimmed' : undefined} aria-hidden="true">
        {arrow}
      </Text>
    </UnstyledButton>
  );
}

function serverDirection(current: string, column: string): Direction {
  return current === column ? 'ascending' : current === `-${column}` ? 'descending' : 'none';
}

/** Every list in the portal: loading skeleton, error, empty state, rows, pages. */
export function DataTable<T>({ columns, data, isLoading, error, empty, onRowClick: onClick, rowLink, getRowId, pagination, label, sort }: DataTableProps<T>) {
  const navigate = useNavigate();
  const onRowClick = rowLink ? (row: T) => navigate(rowLink(row)) : onClick;
  const sortsInBrowser = !sort && !pagination;
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data: data ?? [],
    columns,
    getCoreRowModel: getCoreRowModel(),
    ...(sortsInBrowser ? { getSortedRowModel: getSortedRowModel(), state: { sorting }, onSortingChange: setSorting } : { manualSorting: true }),
    enableSorting: sortsInBrowser,
    enableSortingRemoval: true,
    ...(getRowId ? { getRowId: (row: T) => getRowId(row) } : {}),
  });

  /** The header cell of `header`: a sort button where the column sorts, its direction in `aria-sort`. */
  const headerCell = (header: Header<T, unknown>) => {
    const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
    const serverColumn = sort ? header.column.columnDef.meta?.sort : undefined;
    if (serverColumn && sort) {
      const direction = serverDirection(sort.value || (sort.usual ?? ''), serverColumn);
      return (
        <Table.Th key={header.id} aria-sort={direction}>
          <SortHeader label={label} direction={direction} onSort={() => sort.onChange(nextSort(sort.value, serverColumn, sort.usual))} />
        </Table.Th>
      );
    }
    if (sortsInBrowser && header.column.getCanSort() && label) {
      const current = header.column.getIsSorted();
      const direction: Direction = current === 'asc' ? 'ascending' : current === 'desc' ? 'descending' : 'none';
      return (
        <Table.Th key={header.id} aria-sort={direction}>
          <SortHeader
            label={label}
            direction={direction}
            onSort={() => setSorting(current === 'desc' ? [] : [{ id: header.column.id, desc: current === 'asc' }])}
          />
        </Table.Th>
      );
    }
    return <Table.Th key={header.id}>{label}</Table.Th>;
  };

  if (error) return <QueryError error={error} />;
  if (isLoading) {
    return (
      <Stack gap="xs" aria-busy="true" aria-label="Loading">
        {[0, 1, 2, 3].map((index) => (
          <Skeleton key={index} height={32} radius="sm" />
        ))}
      </Stack>
    );
  }
  if (!data || data.length === 0) {
    return (
      <Center py="xl" data-testid="empty-state">
        <Stack align="center" gap="xs" maw={480}>
          <Text fw={600}>{empty.title}</Text>
          {empty.description ? (
            <Text c="dimmed" size="sm" ta="center">
              {empty.description}
            </Text>
          ) : null}
          {empty.action}
        </Stack>
      </Center>
    );
  }

  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover={Boolean(onRowClick)} verticalSpacing="xs" aria-label={label}>
          <Table.Thead>
            {table.getHeaderGroups().map((group) => (
              <Table.Tr key={group.id}>{group.headers.map(headerCell)}</Table.Tr>
            ))}
          </Table.Thead>
          <Table.Tbody>
            {table.getRowModel().rows.map((row) => (
              <Table.Tr
                key={row.id}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                onKeyDown={
                  onRowClick
                    ? (event) => {
                        if (event.key === 'Enter') onRowClick(row.original);
                      }
                    : undefined
                }
                tabIndex={onRowClick ? 0 : undefined}
                style={onRowClick ? { cursor: 'pointer' } : undefined}
              >
                {row.getVisibleCells().map((cell, index) => {
                  const content = flexRender(cell.column.columnDef.cell, cell.getContext());
                  return (
                    <Table.Td key={cell.id}>
                      {rowLink && index === 0 ? (
                        <Anchor component={Link} to={rowLink(row.original)} c="inherit" underline="hover" onClick={(event) => event.stopPropagation()}>
                          {content}
                        </Anchor>
                      ) : (
                        content
                      )}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {pagination && pagination.totalPages > 1 ? (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {pagination.total !== undefined ? `${pagination.total} in all` : ''}
          </Text>
          <nav aria-label="Pages">
            <Pagination
              value={pagination.page}
              total={pagination.totalPages}
              onChange={pagination.onChange}
              size="sm"
              getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
              getControlProps={(control) => ({ 'aria-label': CONTROL_LABELS[control] })}
            />
          </nav>
        </Group>
      ) : null}
    </Stack>
  );
}
