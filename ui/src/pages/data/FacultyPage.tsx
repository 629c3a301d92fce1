import { Button, Select, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { DataTable, FilterBar, formatDate, FormModal, NameCell, PageHeader, pagesOf, StatusBadge, useApiMutation, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { LICENSE_DAYS, LicenseDaysInput, SearchBox } from './common';
import { areaKey, dataPath, usePagedList, type Faculty } from './data';

function CreateFacultyModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [fullName, setFullName] = useState('');
  const [facultyId, setFacultyId] = useState('');
  const [licenseDays, setLicenseDays] = useState<number>(LICENSE_DAYS.default);
  const close = () => {
    setFullName('');
    setFacultyId('');
    setLicenseDays(LICENSE_DAYS.default);
    onClose();
  };
  const create = useApiMutation({
    mutationFn: () =>
      api.post<Faculty>(dataPath(institution.id, '/faculty'), {
        full_name: fullName.trim(),
        ...(facultyId.trim() ? { faculty_id: facultyId.trim() } : {}),
        license_days: licenseDays,
      }),
    invalidate: [areaKey(institution.id, 'faculty'), areaKey(institution.id, 'licenses')],
    success: (teacher) => `${teacher.full_name} can sign in as ${teacher.login_email}.`,
    onSuccess: close,
  });
  return (
    <FormModal opened={opened} title="Add a faculty member" submitLabel="Add faculty member" loading={create.isPending} disabled={!fullName.trim()} onSubmit={() => create.mutate()} onClose={close}>
      <TextInput label="Full name" required maxLength={200} value={fullName} onChange={(event) => setFullName(event.currentTarget.value)} data-autofocus />
      <TextInput label="Faculty ID" description="Your school's own identifier; optional, unique." maxLength={100} value={facultyId} onChange={(event) => setFacultyId(event.currentTarget.value)} />
      <LicenseDaysInput value={licenseDays} onChange={setLicenseDays} />
      <Text size="xs" c="dimmed">
        The generated login email is what groups and exams name as their owner.
      </Text>
    </FormModal>
  );
}

const FILTERS = ['email', 'status'] as const;

export function FacultyPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const [creating, create] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered } = useUrlFilters(FILTERS);
  const faculty = usePagedList<Faculty>(institution.id, 'faculty', filters, page);

  const columns = useMemo<ColumnDef<Faculty>[]>(
    () => [
      { header: 'Name', id: 'name', cell: ({ row }) => <NameCell name={row.original.full_name} detail={row.original.login_email} mono /> },
      { header: 'Faculty ID', id: 'faculty_id', cell: ({ row }) => row.original.faculty_id ?? '—' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Added', id: 'created', cell: ({ row }) => formatDate(row.original.created_at) },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Faculty"
        description="Teachers own groups and exams. Each gets a login email and a license when added."
        actions={<Button onClick={create.open}>Add faculty member</Button>}
      />
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox label="Find by email" placeholder="name@…" description="Login email, exact." value={filters.email} onSearch={(value) => setFilters({ email: value })} />
        <Select
          label="Status"
          placeholder="Any status"
          data={['active', 'suspended']}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={160}
        />
      </FilterBar>
      <DataTable
        label="Faculty"
        columns={columns}
        data={faculty.data?.items}
        isLoading={faculty.isPending}
        error={faculty.error}
        getRowId={(row) => row.id}
        onRowClick={(row) => navigate(row.id)}
        pagination={pagesOf(faculty.data, setPage)}
        empty={
          filtered
            ? { title: 'Nobody matches', description: 'The email must match a whole login email. Clear the filters to see everyone.' }
            : { title: 'No faculty yet', description: 'Groups and exams need an owning teacher: add one first.', action: <Button onClick={create.open}>Add faculty member</Button> }
        }
      />
      <CreateFacultyModal opened={creating} onClose={create.close} />
    </>
  );
}
