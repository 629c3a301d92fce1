import { Select } from '@mantine/core';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { DataTable, FilterBar, formatDate, NameCell, PageHeader, pagesOf, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { OwnerFilter } from '../faculty/OwnerFilter';
import { useTeacherNames } from '../faculty/faculty';
import { usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import { NamedId } from '../shared/names';
import { EXAM_TYPES, type Exam } from './exams';

const FILTERS = ['q', 'status', 'app', 'exam_type', 'faculty_id'] as const;

export function ExamsPage() {
  const institution = useInstitution();
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const exams = usePagedList(institution.id, 'exams', { ...filters, sort }, page);
  const teacherName = useTeacherNames(institution.id);

  const columns = useMemo<ColumnDef<Exam>[]>(
    () => [
      {
        header: 'Exam',
        id: 'title',
        meta: { sort: 'title' },
        cell: ({ row }) => (
          <NameCell name={row.original.title} detail={`${row.original.exam_type} · ${row.original.app === 'code' ? 'coding app' : 'learning app'}`} />
        ),
      },
      { header: 'Owner', id: 'owner', cell: ({ row }) => <NamedId id={row.original.faculty_id} name={teacherName.get(row.original.faculty_id)} /> },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Due', id: 'due', meta: { sort: 'due_date' }, cell: ({ row }) => formatDate(row.original.due_date) },
      { header: 'Max score', id: 'max', cell: ({ row }) => row.original.max_score ?? '—' },
    ],
    [teacherName],
  );

  return (
    <>
      <PageHeader
        title="Exams"
        description="Exams, quizzes and assignments your LMS created through the API, oldest first. Open one for its groups, numbers and scores."
      />
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox label="Search exams" placeholder="Part of the title" value={filters.q} onSearch={(value) => setFilters({ q: value })} width={260} />
        <Select
          label="Status"
          placeholder="Any"
          data={['draft', 'published', 'closed']}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={140}
        />
        <Select
          label="App"
          placeholder="Any"
          data={[
            { value: 'learning', label: 'Learning' },
            { value: 'code', label: 'Coding' },
          ]}
          value={filters.app || null}
          onChange={(value) => setFilters({ app: value })}
          clearable
          w={130}
        />
        <Select
          label="Type"
          placeholder="Any"
          data={[...EXAM_TYPES]}
          value={filters.exam_type || null}
          onChange={(value) => setFilters({ exam_type: value })}
          clearable
          w={150}
        />
        <OwnerFilter institutionId={institution.id} value={filters.faculty_id} onChange={(value) => setFilters({ faculty_id: value })} width={220} />
      </FilterBar>
      <DataTable
        label="Exams"
        columns={columns}
        data={exams.data?.items}
        isLoading={exams.isPending}
        error={exams.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(exams.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'No exam matches', description: 'Clear the filters to see every exam.' }
            : { title: 'No exams yet', description: 'Exams appear here as your LMS creates them through the API (POST /v1/exams).' }
        }
      />
    </>
  );
}
