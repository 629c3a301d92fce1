import { Button, Group, Modal, NumberInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { DataTable, formatDate, PageHeader, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { FormButtons, SearchBox } from './common';
import { areaKey, dataPath, usePagedList, useUrlFilters, type Faculty } from './data';

const LICENSE_DAYS = { min: 1, max: 3650, default: 365 };

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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a faculty member">
      <form onSubmit={submit} aria-label="Add a faculty member">
        <Stack>
          <TextInput label="Full name" required maxLength={200} value={fullName} onChange={(event) => setFullName(event.currentTarget.value)} data-autofocus />
          <TextInput label="Faculty ID" description="Your school's own identifier; optional, unique." maxLength={100} value={facultyId} onChange={(event) => setFacultyId(event.currentTarget.value)} />
          <NumberInput
            label="License length (days)"
            min={LICENSE_DAYS.min}
            max={LICENSE_DAYS.max}
            clampBehavior="strict"
            allowDecimal={false}
            required
            value={licenseDays}
            onChange={(value) => setLicenseDays(typeof value === 'number' ? value : Number(value) || LICENSE_DAYS.default)}
          />
          <Text size="xs" c="dimmed">
            The generated login email is what groups and exams name as their owner.
          </Text>
          <FormButtons submitLabel="Add faculty member" loading={create.isPending} disabled={!fullName.trim()} onCancel={close} />
        </Stack>
      </form>
    </Modal>
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
      {
        header: 'Name',
        id: 'name',
        cell: ({ row }) => (
          <Stack gap={0}>
            <Text size="sm" fw={500}>
              {row.original.full_name}
            </Text>
            <Text size="xs" c="dimmed" ff="monospace">
              {row.original.login_email}
            </Text>
          </Stack>
        ),
      },
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
      <Group mb="md" align="flex-end" wrap="wrap" gap="sm">
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
        {filtered ? (
          <Button variant="subtle" onClick={clear}>
            Clear filters
          </Button>
        ) : null}
      </Group>
      <DataTable
        label="Faculty"
        columns={columns}
        data={faculty.data?.items}
        isLoading={faculty.isPending}
        error={faculty.error}
        getRowId={(row) => row.id}
        onRowClick={(row) => navigate(row.id)}
        pagination={faculty.data ? { page: faculty.data.page, totalPages: faculty.data.totalPages, total: faculty.data.total, onChange: setPage } : undefined}
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
