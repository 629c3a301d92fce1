import { Anchor, Button, Group, Select, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, type Page } from '../../api/client';
import { DataTable, formatDate, QueryError, Section, StatusBadge, WholeNumberInput, type EmptyState } from '../../components';
import { areaKey, dataPath, personPath, useFacultyOptions, type License } from './data';

export function Mono({ children }: { children: ReactNode }) {
  return (
    <Text span size="sm" ff="monospace">
      {children}
    </Text>
  );
}

/** A student or faculty id linked to their page. */
export function PersonLink({ institutionId, id, label }: { institutionId: string; id: string; label?: string }) {
  return (
    <Anchor component={Link} to={personPath(institutionId, id)} size="sm" ff={label ? undefined : 'monospace'} onClick={(event) => event.stopPropagation()}>
      {label ?? id}
    </Anchor>
  );
}

/** A detail page's load states: skeleton, the error (404 included) said plainly, then the page. */
export function DetailState({ isPending, error, children }: { isPending: boolean; error: unknown; children: () => ReactNode }) {
  if (error) return <QueryError error={error} />;
  if (isPending) {
    return (
      <Stack gap="sm" aria-busy="true" aria-label="Loading">
        <Skeleton height={36} width="40%" />
        <Skeleton height={80} />
        <Skeleton height={200} />
      </Stack>
    );
  }
  return <>{children()}</>;
}

export function BackLink({ to, label }: { to: string; label: string }) {
  return (
    <Button variant="default" component={Link} to={to} relative="path">
      {label}
    </Button>
  );
}

/**
 * A search box that applies on Enter (or the button), not on every key: each search is one
 * request, and the API's filters are exact matches that a half-typed value would never hit.
 */
export function SearchBox({ label, placeholder, description, value, onSearch, width = 320 }: {
  label: string;
  placeholder?: string;
  description?: string;
  value: string;
  onSearch(value: string): void;
  width?: number;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form onSubmit={submit} role="search" aria-label={label}>
      <Group gap={6} align="flex-end" wrap="nowrap">
        <TextInput label={label} description={description} placeholder={placeholder} value={text} onChange={(event) => setText(event.currentTarget.value)} w={width} maxLength={320} />
        <Button type="submit" variant="light">
          Search
        </Button>
      </Group>
    </form>
  );
}

export const LICENSE_DAYS = { min: 1, max: 3650, default: 365 };

/** The length of the license a new student or teacher starts with. */
export function LicenseDaysInput({ value, onChange }: { value: number; onChange(days: number): void }) {
  return (
    <WholeNumberInput
      label="License length (days)"
      min={LICENSE_DAYS.min}
      max={LICENSE_DAYS.max}
      required
      value={value}
      onChange={onChange}
      fallback={LICENSE_DAYS.default}
    />
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
    queryFn: () => api.get<Page<License>>(dataPath(institutionId, '/licenses'), { user_id: holderId, limit: 50 }),
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

/** Narrows a list to one owning teacher. */
export function OwnerFilter({ institutionId, value, onChange, width }: { institutionId: string; value: string; onChange(facultyId: string | null): void; width: number }) {
  const faculty = useFacultyOptions(institutionId);
  return (
    <Select
      label="Owner"
      placeholder="Any teacher"
      data={(faculty.data?.items ?? []).map((teacher) => ({ value: teacher.id, label: teacher.full_name }))}
      value={value || null}
      onChange={onChange}
      clearable
      searchable
      nothingFoundMessage="No teacher by that name"
      w={width}
    />
  );
}
