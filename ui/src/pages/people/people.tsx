import { Anchor } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Link, useNavigate } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, formatDate, Section, StatusBadge, type EmptyState } from '../../components';
import type { Faculty } from '../faculty/faculty';
import type { License } from '../licenses/licenses';
import { areaKey } from '../shared/areas';
import { Mono } from '../shared/common';
import type { Student } from '../students/students';

/** What students and faculty members share: their status, their pages, their licenses. */
export type PersonStatus = Student['status'] | Faculty['status'];

/** Where a person's page is, from the id's prefix (licenses hold students and faculty alike). */
export const personPath = (institutionId: string, userId: string) =>
  `/i/${institutionId}/${userId.startsWith('fac_') ? 'faculty' : 'students'}/${encodeURIComponent(userId)}`;

/** A student or faculty member linked to their page: by name when it is known (the id on hover), else by id. */
export function PersonLink({ institutionId, id, label }: { institutionId: string; id: string; label?: string }) {
  return (
    <Anchor
      component={Link}
      to={personPath(institutionId, id)}
      size="sm"
      ff={label ? undefined : 'monospace'}
      title={label ? id : undefined}
      onClick={(event) => event.stopPropagation()}
    >
      {label ?? id}
    </Anchor>
  );
}

const licenseColumns: ColumnDef<License>[] = [
  { header: 'License', id: 'id', cell: ({ row }) => <Mono>{row.original.id}</Mono> },
  { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Expires', id: 'expires', cell: ({ row }) => formatDate(row.original.expires_at) },
];

/** A student's or teacher's licenses, on their page. */
export function HolderLicenses({ institutionId, holderId, empty }: { institutionId: string; holderId: string; empty: EmptyState }) {
  const navigate = useNavigate();
  const licenses = useQuery({
    queryKey: [...areaKey(institutionId, 'licenses'), 'of', holderId],
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/licenses', { params: { path: { institution: institutionId }, query: { user_id: holderId, limit: 50 } } })),
  });
  return (
    <Section title="License">
      <DataTable
        label="Licenses"
        columns={licenseColumns}
        data={licenses.data?.items}
        isLoading={licenses.isPending}
        error={licenses.error}
        getRowId={(item) => item.id}
        onRowClick={(item) => navigate(`/i/${institutionId}/licenses/${item.id}`)}
        empty={empty}
      />
    </Section>
  );
}
