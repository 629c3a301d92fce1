import { Code, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import type { auditEntrySchema } from '../../../../server/routes/audit/audit';
import { api, type Page } from '../../api/client';
import { DataTable, formatDateSeconds, PageHeader, pagesOf } from '../../components';
import { useInstitution } from '../../session';
import { operatorKey, type OperatorInstitution } from '../operator/operator';

/** An entry of the portal's audit log (type-only import of server/routes/audit/audit.ts). */
type AuditEntry = z.input<typeof auditEntrySchema>;

const nowrap = { whiteSpace: 'nowrap' } as const;

const columns: ColumnDef<AuditEntry>[] = [
  { header: 'When', id: 'when', meta: { sort: 'occurred_at' }, cell: ({ row }) => <span style={nowrap}>{formatDateSeconds(row.original.occurred_at)}</span> },
  { header: 'Who', accessorKey: 'actor_email' },
  {
    header: 'What',
    id: 'what',
    cell: ({ row }) => (
      <>
        <Text size="sm">{row.original.description}</Text>
        <Code fz="xs">{row.original.action}</Code>
      </>
    ),
  },
  {
    header: 'On',
    id: 'target',
    // Ids are long and unbroken: they wrap inside the column rather than push From out of sight.
    cell: ({ row }) => (
      <span style={{ overflowWrap: 'anywhere' }}>
        {Object.entries(row.original.target)
          .filter(([name]) => name !== 'id')
          .map(([name, value]) => `${name} ${value}`)
          .join(', ') || '—'}
      </span>
    ),
  },
  { header: 'From', id: 'ip', cell: ({ row }) => <span style={nowrap}>{row.original.ip ?? '—'}</span> },
];

/** The operator's columns: the institution each entry is about, by name ("Appliance" for appliance-wide ones), after When. */
function operatorColumns(institutionName: (id: string) => string): ColumnDef<AuditEntry>[] {
  const institution: ColumnDef<AuditEntry> = {
    header: 'Institution',
    id: 'institution',
    cell: ({ row }) => (row.original.institution_id ? institutionName(row.original.institution_id) : 'Appliance'),
  };
  return [columns[0]!, institution, ...columns.slice(1)];
}

/** One page of a portal audit log, newest first, from `path`. */
function AuditLogTable({ path, queryKey, tableColumns = columns }: { path: string; queryKey: readonly unknown[]; tableColumns?: ColumnDef<AuditEntry>[] }) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState('');
  const log = useQuery({
    queryKey: [...queryKey, sort, page],
    queryFn: () => api.get<Page<AuditEntry>>(path, { sort, page, limit: 50 }),
    placeholderData: keepPreviousData,
  });
  return (
    <DataTable
      label="Audit log"
      columns={tableColumns}
      data={log.data?.items}
      isLoading={log.isPending}
      error={log.error}
      getRowId={(row) => row.id}
      empty={{ title: 'Nothing yet', description: 'Changes made in the portal (keys, developers, webhooks, settings) are listed here.' }}
      pagination={pagesOf(log.data, setPage)}
      sort={{
        value: sort,
        usual: '-occurred_at',
        onChange: (value) => {
          setSort(value);
          setPage(1);
        },
      }}
    />
  );
}

export function AuditLogPage() {
  const institution = useInstitution();
  return (
    <>
      <PageHeader title="Audit log" description="Every change made in the portal for this institution: who, what, when and from where. Kept for a year." />
      <AuditLogTable path={`/institutions/${institution.id}/audit-log`} queryKey={['institution', institution.id, 'audit-log']} />
    </>
  );
}

/** The operator's view: every institution's entries and the appliance-wide ones (mail server, curricula). */
export function OperatorAuditLogPage() {
  const institutions = useQuery({ queryKey: operatorKey('institutions'), queryFn: () => api.get<OperatorInstitution[]>('/operator/institutions') });
  const names = useMemo(() => new Map((institutions.data ?? []).map((institution) => [institution.id, institution.name])), [institutions.data]);
  const tableColumns = useMemo(() => operatorColumns((id) => names.get(id) ?? id), [names]);
  return (
    <>
      <PageHeader title="Audit log" description="Every change made in the portal on this appliance, by anyone. Kept for a year." />
      <AuditLogTable path="/operator/audit-log" queryKey={['operator', 'audit-log']} tableColumns={tableColumns} />
    </>
  );
}
