import { Button, Select } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { DataTable, FilterBar, formatDate, NameCell, PageHeader, pagesOf, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { ImportWizard } from '../imports/ImportWizard';
import { facultyImport } from '../imports/kinds';
import { AddPersonModal } from '../people/AddPersonModal';
import { areaKey, usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import type { Faculty } from './faculty';

const FILTERS = ['q', 'email', 'status'] as const;

export function FacultyPage() {
  const institution = useInstitution();
  const [creating, create] = useDisclosure(false);
  const [importing, importer] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const faculty = usePagedList(institution.id, 'faculty', { ...filters, sort }, page);

  const columns = useMemo<ColumnDef<Faculty>[]>(
    () => [
      {
        header: 'Name',
        id: 'name',
        meta: { sort: 'full_name' },
        cell: ({ row }) => <NameCell name={row.original.full_name} detail={row.original.login_email} mono />,
      },
      { header: 'Faculty ID', id: 'faculty_id', meta: { sort: 'faculty_id' }, cell: ({ row }) => row.original.faculty_id ?? '—' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Added', id: 'created', meta: { sort: 'created_at' }, cell: ({ row }) => formatDate(row.original.created_at) },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Faculty"
        description="Teachers own groups and exams. Each gets a login email and a license when added."
        actions={
          <>
            <Button variant="default" onClick={importer.open}>
              Import
            </Button>
            <Button onClick={create.open}>Add faculty member</Button>
          </>
        }
      />
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox
          label="Find a faculty member"
          placeholder="Name, faculty ID or e-mail"
          description="Part of a name or faculty ID (accents optional), or a whole login e-mail."
          value={filters.q || filters.email}
          onSearch={(value) => setFilters(value.includes('@') && !value.startsWith('@') ? { email: value, q: null } : { q: value, email: null })}
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
      </FilterBar>
      <DataTable
        label="Faculty"
        columns={columns}
        data={faculty.data?.items}
        isLoading={faculty.isPending}
        error={faculty.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(faculty.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'Nobody matches', description: 'Try fewer letters or another part of the name. Clear the filters to see everyone.' }
            : {
                title: 'No faculty yet',
                description: 'Groups and exams need an owning teacher: add one first.',
                action: <Button onClick={create.open}>Add faculty member</Button>,
              }
        }
      />
      <AddPersonModal area="faculty" opened={creating} onClose={create.close} />
      <ImportWizard
        kind={facultyImport}
        opened={importing}
        onClose={importer.close}
        invalidate={[areaKey(institution.id, 'faculty'), areaKey(institution.id, 'licenses')]}
      />
    </>
  );
}
