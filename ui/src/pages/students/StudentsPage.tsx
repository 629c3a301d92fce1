import { Alert, Button, Select, Table, Text, Textarea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, type Page } from '../../api/client';
import { DataTable, FilterBar, formatDate, FormModal, NameCell, PageHeader, pagesOf, StatusBadge, useApiMutation, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import type { Group as GroupRow } from '../groups/groups';
import { AddPersonModal } from '../people/AddPersonModal';
import { areaKey, dataPath, PICKER_LIMIT, usePagedList } from '../shared/areas';
import { Mono, SearchBox } from '../shared/common';
import { MAX_BULK, type BulkResult, type Student } from './students';

/** One student per line: `Full name, student ID, personal email` (the last two optional). */
function parseBulk(text: string) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [fullName = '', studentId = '', personalEmail = ''] = line.split(',').map((cell) => cell.trim());
      return { full_name: fullName, ...(studentId ? { student_id: studentId } : {}), ...(personalEmail ? { personal_email: personalEmail } : {}) };
    });
}

interface ImportResult {
  rows: ReturnType<typeof parseBulk>;
  answer: BulkResult;
}

function BulkImportModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [text, setText] = useState('');
  const [result, setResult] = useState<ImportResult | null>(null);
  const rows = parseBulk(text);
  const close = () => {
    setText('');
    setResult(null);
    onClose();
  };
  const importAll = useApiMutation({
    mutationFn: (students: ReturnType<typeof parseBulk>) => api.post<BulkResult>(dataPath(institution.id, '/students/bulk'), { students }),
    invalidate: [areaKey(institution.id, 'students'), areaKey(institution.id, 'licenses')],
    success: (answer) => `${answer.created} added, ${answer.failed} not added.`,
    onSuccess: (answer, students) => setResult({ rows: students, answer }),
  });
  return (
    <FormModal
      opened={opened}
      title="Import students"
      size="xl"
      submitLabel="Import"
      loading={importAll.isPending}
      disabled={rows.length === 0 || rows.length > MAX_BULK}
      onSubmit={() => importAll.mutate(rows)}
      onClose={close}
      outcome={result ? <ImportResults result={result} /> : null}
    >
      <Textarea
        label="Students, one per line"
        description="Full name, student ID, personal email — the last two are optional. Each gets a 365-day license."
        placeholder={'Ada Lovelace, S-1001, ada.family@example.org\nAlan Turing, S-1002'}
        autosize
        minRows={6}
        maxRows={14}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        data-autofocus
      />
      {rows.length > MAX_BULK ? (
        <Alert color="yellow" role="alert">
          At most {MAX_BULK} students per import; this has {rows.length}.
        </Alert>
      ) : (
        <Text size="sm" c="dimmed">
          {rows.length} {rows.length === 1 ? 'student' : 'students'} to import.
        </Text>
      )}
    </FormModal>
  );
}

function ImportResults({ result }: { result: ImportResult }) {
  return (
    <>
      <Text size="sm">
        {result.answer.created} added, {result.answer.failed} not added. Lines that failed changed nothing; fix them and import them again.
      </Text>
      <Table.ScrollContainer minWidth={560} mah={360}>
        <Table striped aria-label="Import results">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Result</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {result.answer.results.map((item) => (
              <Table.Tr key={item.index}>
                <Table.Td>{item.index + 1}</Table.Td>
                <Table.Td>{result.rows[item.index]?.full_name}</Table.Td>
                <Table.Td>
                  {'error' in item ? (
                    <Text size="sm" c="red">
                      {item.message}
                    </Text>
                  ) : (
                    <Mono>{item.login_email}</Mono>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

const FILTERS = ['email', 'student_id', 'status', 'group_id'] as const;

export function StudentsPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const [creating, create] = useDisclosure(false);
  const [importing, importer] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered } = useUrlFilters(FILTERS);
  const students = usePagedList<Student>(institution.id, 'students', filters, page);
  const groups = useQuery({
    queryKey: [...areaKey(institution.id, 'groups'), 'options'],
    queryFn: () => api.get<Page<GroupRow>>(dataPath(institution.id, '/groups'), { limit: PICKER_LIMIT }),
    staleTime: 30_000,
  });

  const columns = useMemo<ColumnDef<Student>[]>(
    () => [
      { header: 'Name', id: 'name', cell: ({ row }) => <NameCell name={row.original.full_name} detail={row.original.login_email} mono /> },
      { header: 'Student ID', id: 'student_id', cell: ({ row }) => row.original.student_id ?? '—' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Added', id: 'created', cell: ({ row }) => formatDate(row.original.created_at) },
    ],
    [],
  );

  // One box for the two exact-match filters the API has: an email has an @, anything else is a student ID.
  const searched = filters.email || filters.student_id;
  const search = (value: string) => setFilters(value.includes('@') ? { email: value, student_id: null } : { student_id: value, email: null });

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
          placeholder="Email or student ID"
          description="Login email, personal email or student ID, exact."
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
        onRowClick={(row) => navigate(row.id)}
        pagination={pagesOf(students.data, setPage)}
        empty={
          filtered
            ? { title: 'No student matches', description: 'Searches match a whole email or student ID. Clear the filters to see everyone.' }
            : {
                title: 'No students yet',
                description: 'Add them here, import a list, or provision them from your SIS through the API.',
                action: <Button onClick={create.open}>Add student</Button>,
              }
        }
      />
      <AddPersonModal area="students" opened={creating} onClose={create.close} />
      <BulkImportModal opened={importing} onClose={importer.close} />
    </>
  );
}
