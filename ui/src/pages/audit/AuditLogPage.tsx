import { Code, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import type { z } from 'zod';
import type { auditEntrySchema } from '../../../../server/routes/audit/audit';
import { api, type Page } from '../../api/client';
import { DataTable, formatDateSeconds, PageHeader, pagesOf } from '../../components';
import { useInstitution } from '../../session';

/** An entry of the portal's audit log (type-only import of server/routes/audit/audit.ts). */
type AuditEntry = z.input<typeof auditEntrySchema>;

const columns: ColumnDef<AuditEntry>[] = [
  { header: 'When', id: 'when', cell: ({ row }) => formatDateSeconds(row.original.occurred_at) },
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
    cell: ({ row }) =>
      Object.entries(row.original.target)
        .filter(([name]) => name !== 'id')
        .map(([name, value]) => `${name} ${value}`)
        .join(', ') || '—',
  },
  { header: 'From', id: 'ip', cell: ({ row }) => row.original.ip ?? '—' },
];

/** One page of a portal audit log, newest first, from `path`. */
function AuditLogTable({ path, queryKey }: { path: string; queryKey: readonly unknown[] }) {
  const [page, setPage] = useState(1);
  const log = useQuery({
    queryKey: [...queryKey, page],
    queryFn: () => api.get<Page<AuditEntry>>(path, { page, limit: 50 }),
    placeholderData: keepPreviousData,
  });
  return (
    <DataTable
      label="Audit log"
      columns={columns}
      data={log.data?.items}
      isLoading={log.isPending}
      error={log.error}
      getRowId={(row) => row.id}
      empty={{ title: 'Nothing yet', description: 'Changes made in the portal (keys, developers, webhooks, settings) are listed here.' }}
      pagination={pagesOf(log.data, setPage)}
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
  return (
    <>
      <PageHeader title="Audit log" description="Every change made in the portal on this appliance, by anyone. Kept for a year." />
      <AuditLogTable path="/operator/audit-log" queryKey={['operator', 'audit-log']} />
    </>
  );
}
