import { Select } from '@mantine/core';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo } from 'react';
import { DataTable, FilterBar, formatDate, PageHeader, pagesOf, StatusBadge, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { useExamOptions } from '../exams/exams';
import { PersonLink } from '../people/people';
import { NamedId, useNames } from '../shared/names';
import { usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import { SUBMISSION_STATUSES, type Submission } from './submissions';

const FILTERS = ['exam_id', 'student_id', 'status'] as const;

export function SubmissionsPage() {
  const institution = useInstitution();
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const submissions = usePagedList(institution.id, 'submissions', { ...filters, sort }, page);
  const names = useNames(
    institution.id,
    (submissions.data?.items ?? []).flatMap((submission) => [submission.student_id, submission.exam_id]),
  );
  const exams = useExamOptions(institution.id);
  const examTitle = useMemo(() => new Map((exams.data?.items ?? []).map((exam) => [exam.id, exam.title])), [exams.data]);

  const columns = useMemo<ColumnDef<Submission>[]>(
    () => [
      {
        header: 'Exam',
        id: 'exam',
        cell: ({ row }) => <NamedId id={row.original.exam_id} name={names.get(row.original.exam_id)?.name ?? examTitle.get(row.original.exam_id)} />,
      },
      {
        header: 'Student',
        id: 'student',
        cell: ({ row }) => <PersonLink institutionId={institution.id} id={row.original.student_id} label={names.get(row.original.student_id)?.name} />,
      },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Score', id: 'score', meta: { sort: 'score' }, cell: ({ row }) => row.original.score ?? '—' },
      { header: 'Submitted', id: 'submitted', meta: { sort: 'submitted_at' }, cell: ({ row }) => formatDate(row.original.submitted_at) },
    ],
    [examTitle, institution.id, names],
  );

  return (
    <>
      <PageHeader title="Submissions" description="What students handed in, oldest first. Open one to read it, grade it, ask for a resubmission or void it." />
      <FilterBar filtered={filtered} onClear={clear}>
        <Select
          label="Exam"
          placeholder="Any exam"
          data={(exams.data?.items ?? []).map((exam) => ({ value: exam.id, label: exam.title }))}
          value={filters.exam_id || null}
          onChange={(value) => setFilters({ exam_id: value })}
          clearable
          searchable
          nothingFoundMessage="No exam by that title"
          w={280}
        />
        <SearchBox
          label="Student"
          placeholder="Id or login email"
          value={filters.student_id}
          onSearch={(value) => setFilters({ student_id: value })}
          width={260}
        />
        <Select
          label="Status"
          placeholder="Any status"
          data={SUBMISSION_STATUSES.map((status) => ({ value: status, label: status.replaceAll('_', ' ') }))}
          value={filters.status || null}
          onChange={(value) => setFilters({ status: value })}
          clearable
          w={220}
        />
      </FilterBar>
      <DataTable
        label="Submissions"
        columns={columns}
        data={submissions.data?.items}
        isLoading={submissions.isPending}
        error={submissions.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(submissions.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'No submission matches', description: 'Clear the filters to see every submission.' }
            : { title: 'No submissions yet', description: 'Students submit from the learning and coding apps; their work appears here.' }
        }
      />
    </>
  );
}
