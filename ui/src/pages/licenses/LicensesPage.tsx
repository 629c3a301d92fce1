import { Card, Group, Select, SimpleGrid, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { DataTable, FilterBar, formatDate, PageHeader, pagesOf, QueryError, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { PersonLink } from '../people/people';
import { useNames } from '../shared/names';
import { usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import { LicenseCharts } from './LicenseCharts';
import { useLicenseSummary, type License } from './licenses';
import { useNavigate } from 'react-router';

function SummaryCards({ institutionId }: { institutionId: string }) {
  const summary = useLicenseSummary(institutionId);
  if (summary.error) return <QueryError error={summary.error} />;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} mb="lg">
      {(['student', 'faculty'] as const).map((type) => (
        <Card key={type} withBorder padding="md" radius="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600} mb={6}>
            {type === 'student' ? 'Student licenses' : 'Faculty licenses'}
          </Text>
          {summary.data ? (
            <Group gap="xl">
              {(['active', 'expired', 'revoked'] as const).map((status) => (
                <Stack key={status} gap={0}>
                  <Text size="xl" fw={700}>
                    {summary.data.by_type[type][status]}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {status}
                  </Text>
                </Stack>
              ))}
            </Group>
          ) : (
            <Skeleton height={48} />
          )}
        </Card>
      ))}
    </SimpleGrid>
  );
}

const FILTERS = ['user_id', 'status', 'type', 'expires_before'] as const;

/** `<input type="date">` gives a day; the API wants an instant: the start of that day, local time. */
const dayToInstant = (day: string) => (day ? new Date(`${day}T00:00:00`).toISOString() : null);
const instantToDay = (iso: string) => {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
};

export function LicensesPage() {
  const navigate = useNavigate();
  const institution = useInstitution();
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const licenses = usePagedList(institution.id, 'licenses', { ...filters, sort }, page);
  const names = useNames(
    institution.id,
    (licenses.data?.items ?? []).map((license) => license.user_id),
  );

  const columns = useMemo<ColumnDef<License>[]>(
    () => [
      {
        header: 'Holder',
        id: 'holder',
        cell: ({ row }) => <PersonLink institutionId={institution.id} id={row.original.user_id} label={names.get(row.original.user_id)?.name} />,
      },
      { header: 'Type', accessorKey: 'type' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Starts', id: 'starts', meta: { sort: 'starts_at' }, cell: ({ row }) => formatDate(row.original.starts_at) },
      { header: 'Expires', id: 'expires', meta: { sort: 'expires_at' }, cell: ({ row }) => formatDate(row.original.expires_at) },
    ],
    [institution.id, names],
  );

  return (
    <>
      <PageHeader
        title="Licenses"
        description="Every student and teacher receives a license when added. Extend one to keep access going; revoke it to end access and free its devices."
      />
      <SummaryCards institutionId={institution.id} />
      <LicenseCharts institutionId={institution.id} />
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox label="Holder" placeholder="Id or login email" value={filters.user_id} onSearch={(value) => setFilters({ user_id: value })} width={260} />
        <Select
          label="Status"
          placeholder="Any status"
          data={['active', 'expired', 'revoked']}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={150}
        />
        <Select
          label="Type"
          placeholder="Any type"
          data={['student', 'faculty']}
          value={filters.type || null}
          onChange={(value) => setFilters({ type: value })}
          clearable
          w={150}
        />
        <TextInput
          label="Expires before"
          type="date"
          value={instantToDay(filters.expires_before)}
          onChange={(event) => setFilters({ expires_before: dayToInstant(event.currentTarget.value) })}
          w={170}
        />
      </FilterBar>
      <DataTable
        label="Licenses"
        columns={columns}
        data={licenses.data?.items}
        isLoading={licenses.isPending}
        error={licenses.error}
        getRowId={(row) => row.id}
        // The first cell is already a link (the holder's page), and a link may not hold another: the row opens the license.
        onRowClick={(row) => navigate(row.id)}
        pagination={pagesOf(licenses.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'No license matches', description: 'Clear the filters to see every license.' }
            : { title: 'No licenses yet', description: 'Licenses are granted as students and faculty are added.' }
        }
      />
    </>
  );
}
