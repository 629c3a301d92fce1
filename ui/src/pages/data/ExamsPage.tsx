import { Button, Group, Select, Stack, Text } from '@mantine/core';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { DataTable, formatDate, PageHeader, StatusBadge } from '../../components';
import { useInstitution } from '../../session';
import { SearchBox } from './common';
import { EXAM_TYPES, useFacultyOptions, usePagedList, useUrlFilters, type Exam } from './data';

const FILTERS = ['q', 'status', 'app', 'exam_type', 'faculty_id'] as const;

export function ExamsPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { filters, page, setFilters, setPage, clear, filtered } = useUrlFilters(FILTERS);
  const exams = usePagedList<Exam>(institution.id, 'exams', filters, page);
  const faculty = useFacultyOptions(institution.id);
  const teacherName = useMemo(() => new Map((faculty.data?.items ?? []).map((teacher) => [teacher.id, teacher.full_name])), [faculty.data]);

  const columns = useMemo<ColumnDef<Exam>[]>(
    () => [
      {
        header: 'Exam',
        id: 'title',
        cell: ({ row }) => (
          <Stack gap={0}>
            <Text size="sm" fw={500}>
              {row.original.title}
            </Text>
            <Text size="xs" c="dimmed">
              {row.original.exam_type} · {row.original.app === 'code' ? 'coding app' : 'learning app'}
            </Text>
          </Stack>
        ),
      },
      { header: 'Owner', id: 'owner', cell: ({ row }) => teacherName.get(row.original.faculty_id) ?? row.original.faculty_id },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Due', id: 'due', cell: ({ row }) => formatDate(row.original.due_date) },
      { header: 'Max score', id: 'max', cell: ({ row }) => row.original.max_score ?? '—' },
    ],
    [teacherName],
  );

  return (
    <>
      <PageHeader title="Exams" description="Exams, quizzes and assignments your LMS created through the API, oldest first. Open one for its groups, numbers and scores." />
      <Group mb="md" align="flex-end" wrap="wrap" gap="sm">
        <SearchBox label="Search exams" placeholder="Part of the title" value={filters.q} onSearch={(value) => setFilters({ q: value })} width={260} />
        <Select label="Status" placeholder="Any" data={['draft', 'published', 'closed']} value={filters.status || null} onChange={(value) => setFilters({ status: value })} clearable w={140} />
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
        <Select label="Type" placeholder="Any" data={[...EXAM_TYPES]} value={filters.exam_type || null} onChange={(value) => setFilters({ exam_type: value })} clearable w={150} />
        <Select
          label="Owner"
          placeholder="Any teacher"
          data={(faculty.data?.items ?? []).map((teacher) => ({ value: teacher.id, label: teacher.full_name }))}
          value={filters.faculty_id || null}
          onChange={(value) => setFilters({ faculty_id: value })}
          clearable
          searchable
          w={220}
        />
        {filtered ? (
          <Button variant="subtle" onClick={clear}>
            Clear filters
          </Button>
        ) : null}
      </Group>
      <DataTable
        label="Exams"
        columns={columns}
        data={exams.data?.items}
        isLoading={exams.isPending}
        error={exams.error}
        getRowId={(row) => row.id}
        onRowClick={(row) => navigate(row.id)}
        pagination={exams.data ? { page: exams.data.page, totalPages: exams.data.totalPages, total: exams.data.total, onChange: setPage } : undefined}
        empty={
          filtered
            ? { title: 'No exam matches', description: 'Clear the filters to see every exam.' }
            : { title: 'No exams yet', description: 'Exams appear here as your LMS creates them through the API (POST /v1/exams).' }
        }
      />
    </>
  );
}
