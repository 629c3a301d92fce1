import { Center, Group, Pagination, Skeleton, Stack, Table, Text } from '@mantine/core';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { QueryError } from './QueryError';

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
  getRowId?(row: T): string;
  pagination?: TablePagination;
  /** The table's accessible name. */
  label?: string;
}

/** Every list in the portal: loading skeleton, error, empty state, rows, pages. */
export function DataTable<T>({ columns, data, isLoading, error, empty, onRowClick, getRowId, pagination, label }: DataTableProps<T>) {
  const table = useReactTable({
    data: data ?? [],
    columns,
    getCoreRowModel: getCoreRowModel(),
    ...(getRowId ? { getRowId: (row: T) => getRowId(row) } : {}),
  });

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
              <Table.Tr key={group.id}>
                {group.headers.map((header) => (
                  <Table.Th key={header.id}>{header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}</Table.Th>
                ))}
              </Table.Tr>
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
                {row.getVisibleCells().map((cell) => (
                  <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
                ))}
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
          <Pagination value={pagination.page} total={pagination.totalPages} onChange={pagination.onChange} size="sm" />
        </Group>
      ) : null}
    </Stack>
  );
}
