import { Button, Select } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { call, portal } from '../../api/portal';
import { DataTable, FilterBar, formatDate, NameCell, PageHeader, pagesOf, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { AddPersonModal } from '../people/AddPersonModal';
import { ImportWizard } from '../imports/ImportWizard';
import { studentImport } from '../imports/kinds';
import { areaKey, PICKER_LIMIT, usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import type { Student } from './students';

const FILTERS = ['q', 'email', 'student_id', 'status', 'group_id'] as const;

export function StudentsPage() {
  const institution = useInstitution();
  const [creating, create] = useDisclosure(false);
  const [importing, importer] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const students = usePagedList(institution.id, 'students', { ...filters, sort }, page);
  const groups = useQuery({
    queryKey: [...areaKey(institution.id, 'groups'), 'options'],
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/groups', { params: { path: { institution: institution.id }, query: { limit: PICKER_LIMIT } } })),
    staleTime: 30_000,
  });

  const columns = useMemo<ColumnDef<Student>[]>(
    () => [
      {
        header: 'Name',
        id: 'name',
        meta: { sort: 'full_name' },
        cell: ({ row }) => <NameCell name={row.original.full_name} detail={row.original.login_email} mono />,
      },
      { header: 'Student ID', id: 'student_id', meta: { sort: 'student_id' }, cell: ({ row }) => row.original.student_id ?? '—' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Added', id: 'created', meta: { sort: 'created_at' }, cell: ({ row }) => formatDate(row.original.created_at) },
    ],
    [],
  );

  // One box: a whole e-mail address (login or personal) is matched exactly, anything else is
  // part of a name, student ID or login e-mail (`q`, whatever its case and accents).
  const searched = filters.q || filters.email || filters.student_id;
  const search = (value: string) =>
    setFilters(value.includes('@') && !value.startsWith('@') ? { email: value, q: null, student_id: null } : { q: value, email: null, student_id: null });

  return (
    <>
      <PageHeader
        title="Students"
        description="Everyone provisioned by the portal or the API. Each student gets a login email and a license when added."
        actions={
          <>
            <Button variant="default" onClick={importer.open}>
              Import
            </Button>
            <Button onClick={create.open}>Add student</Button>
          </>
        }
      />
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox
          label="Find a student"
          placeholder="Name, student ID or e-mail"
          description="Part of a name or student ID (accents optional), or a whole e-mail address."
          value={searched}
          onSearch={search}
        />
        <Select
          label="Status"
          placeholder="Any status"
          data={['active', 'suspended']}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={160}
        />
        <Select
          label="Group"
          placeholder="Any group"
          data={(groups.data?.items ?? []).map((group) => ({ value: group.id, label: group.name }))}
          value={filters.group_id || null}
          onChange={(value) => setFilters({ group_id: value })}
          clearable
          searchable
          nothingFoundMessage="No group by that name"
          w={240}
        />
      </FilterBar>
      <DataTable
        label="Students"
        columns={columns}
        data={students.data?.items}
        isLoading={students.isPending}
        error={students.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(students.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'No student matches', description: 'Try fewer letters or another part of the name. Clear the filters to see everyone.' }
            : {
                title: 'No students yet',
                description: 'Add them here, import a list, or provision them from your SIS through the API.',
                action: <Button onClick={create.open}>Add student</Button>,
              }
        }
      />
      <AddPersonModal area="students" opened={creating} onClose={create.close} />
      <ImportWizard
        kind={studentImport}
        opened={importing}
        onClose={importer.close}
        invalidate={[areaKey(institution.id, 'students'), areaKey(institution.id, 'licenses')]}
      />
    </>
  );
}
