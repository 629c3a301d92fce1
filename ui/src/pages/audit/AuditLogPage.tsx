import { Code, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import type { auditEntrySchema } from '../../../../server/routes/audit/schema';
import { call, portal } from '../../api/portal';
import { DataTable, formatDateSeconds, PageHeader, pagesOf } from '../../components';
import { useInstitution } from '../../session';
import { KIND_WORDS, kindOfId, useNames, useOperatorNames } from '../shared/names';

/** An entry of the portal's audit log (type-only import of server/routes/audit/audit.ts). */
type AuditEntry = z.input<typeof auditEntrySchema>;

/** What the table needs of a name: the institution's and the operator's names both have these. */
type Names = ReadonlyMap<string, { kind: keyof typeof KIND_WORDS; name: string }>;

const nowrap = { whiteSpace: 'nowrap' } as const;
const whatCode = { display: 'block', maxWidth: '13rem', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } as const;

/** The ids an entry is about, each once; the entry's own institution is left out (it is the page, or its own column). */
function targetIds(entry: AuditEntry): string[] {
  return [...new Set(Object.values(entry.target))].filter((id) => id !== entry.institution_id);
}

/**
 * An entry's targets, one a line, by kind and name ("Key CI key"), the id on hover; by kind and id
 * where there is no name to show (a record since deleted; institution data in the operator's log).
 */
function Targets({ entry, names }: { entry: AuditEntry; names: Names }) {
  const ids = targetIds(entry);
  if (ids.length === 0) return <>—</>;
  return (
    // Ids are long and unbroken: they wrap inside the column rather than push From out of sight.
    <div style={{ overflowWrap: 'anywhere', minWidth: '11rem' }}>
      {ids.map((id) => {
        const named = names.get(id);
        const kind = named?.kind ?? kindOfId(id);
        return (
          <div key={id} title={id}>
            {kind ? (
              <Text span size="xs" c="dimmed">
                {/* "Submission by Ada", but "Submission sub_…" */}
                {named ? KIND_WORDS[kind] : KIND_WORDS[kind].replace(/ (by|of)$/, '')}{' '}
              </Text>
            ) : null}
            {named ? named.name : <Code fz="xs">{id}</Code>}
          </div>
        );
      })}
    </div>
  );
}

function auditColumns(names: Names, withInstitution: boolean): ColumnDef<AuditEntry>[] {
  /** The operator's column: the institution each entry is about, by name ("Appliance" for appliance-wide ones). */
  const institution: ColumnDef<AuditEntry> = {
    header: 'Institution',
    id: 'institution',
    cell: ({ row }) => {
      const id = row.original.institution_id;
      return id ? <span title={id}>{names.get(id)?.name ?? id}</span> : 'Appliance';
    },
  };
  return [
    { header: 'When', id: 'when', meta: { sort: 'occurred_at' }, cell: ({ row }) => <span style={nowrap}>{formatDateSeconds(row.original.occurred_at)}</span> },
    ...(withInstitution ? [institution] : []),
    { header: 'Who', accessorKey: 'actor_email' },
    {
      header: 'What',
      id: 'what',
      cell: ({ row }) => (
        <>
          <Text size="sm">{row.original.description}</Text>
          {/* The call behind it on one line, cut short; the whole of it on hover (a path wrapped over five lines made a page of 40 entries 6,000 px tall). */}
          <Code fz="xs" title={row.original.action} style={whatCode}>
            {row.original.action}
          </Code>
        </>
      ),
    },
    { header: 'On', id: 'target', cell: ({ row }) => <Targets entry={row.original} names={names} /> },
    { header: 'From', id: 'ip', cell: ({ row }) => <span style={nowrap}>{row.original.ip ?? '—'}</span> },
  ];
}

/**
 * One page of a portal audit log, newest first: the institution's, or (`institutionId` null) the
 * appliance's. Its targets are named in one request for the page, by the institution's names or the operator's.
 */
function AuditLogTable({ queryKey, institutionId }: { queryKey: readonly unknown[]; institutionId: string | null }) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState('');
  const log = useQuery({
    queryKey: [...queryKey, sort, page],
    queryFn: () => {
      // The table's sort is a string; the server checks it.
      const query = { sort, page, limit: 50 } as never;
      return institutionId
        ? call(portal.GET('/institutions/{id}/audit-log', { params: { path: { id: institutionId }, query } }))
        : call(portal.GET('/operator/audit-log', { params: { query } }));
    },
    placeholderData: keepPreviousData,
  });
  const entries = log.data?.items ?? [];
  const ids = entries.flatMap((entry) => [...targetIds(entry), ...(institutionId ? [] : [entry.institution_id])]);
  // Both hooks run (hooks always do); the one this log does not use has no ids and asks nothing.
  const institutionNames = useNames(institutionId ?? '', institutionId ? ids : []);
  const operatorNames = useOperatorNames(institutionId ? [] : ids);
  const names = institutionId ? institutionNames : operatorNames;
  const columns = useMemo(() => auditColumns(names, institutionId === null), [names, institutionId]);
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
      <AuditLogTable queryKey={['institution', institution.id, 'audit-log']} institutionId={institution.id} />
    </>
  );
}

/** The operator's view: every institution's entries and the appliance-wide ones (mail server, curricula). */
export function OperatorAuditLogPage() {
  return (
    <>
      <PageHeader title="Audit log" description="Every change made in the portal on this appliance, by anyone. Kept for a year." />
      <AuditLogTable queryKey={['operator', 'audit-log']} institutionId={null} />
    </>
  );
}
