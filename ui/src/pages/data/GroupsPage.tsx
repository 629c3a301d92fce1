import { Button, Group, Modal, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { DataTable, formatDate, PageHeader, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { FormButtons, SearchBox } from './common';
import { areaKey, dataPath, splitRefs, useFacultyOptions, usePagedList, useUrlFilters, type Group as GroupRow, type GroupWrite } from './data';

/** Owner choices: active teachers (a suspended one is refused as owner). */
export function useOwnerOptions(institutionId: string) {
  const faculty = useFacultyOptions(institutionId);
  const options = (faculty.data?.items ?? [])
    .filter((teacher) => teacher.status === 'active')
    .map((teacher) => ({ value: teacher.id, label: `${teacher.full_name} (${teacher.login_email})` }));
  return { options, isLoading: faculty.isPending };
}

export const rejectedNote = (rejected: string[]) => (rejected.length > 0 ? ` Not students of this institution, skipped: ${rejected.join(', ')}.` : '');

function CreateGroupModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const navigate = useNavigate();
  const owners = useOwnerOptions(institution.id);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [owner, setOwner] = useState<string | null>(null);
  const [members, setMembers] = useState('');
  const close = () => {
    setName('');
    setDescription('');
    setOwner(null);
    setMembers('');
    onClose();
  };
  const create = useApiMutation({
    mutationFn: () =>
      api.post<GroupWrite>(dataPath(institution.id, '/groups'), {
        name: name.trim(),
        description,
        faculty_id: owner,
        ...(splitRefs(members).length > 0 ? { student_ids: splitRefs(members) } : {}),
      }),
    invalidate: [areaKey(institution.id, 'groups'), areaKey(institution.id, 'students')],
    success: (group) => `Group “${group.name}” created with ${group.student_count} students.${rejectedNote(group.rejected_student_ids)}`,
    onSuccess: (group) => {
      close();
      navigate(group.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Modal opened={opened} onClose={close} title="Create a group" size="lg">
      <form onSubmit={submit} aria-label="Create a group">
        <Stack>
          <TextInput label="Name" required maxLength={200} placeholder="Physics 101 – Section B" value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
          <Textarea label="Description" maxLength={2000} autosize minRows={2} value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
          <Select
            label="Owning teacher"
            required
            placeholder={owners.isLoading ? 'Loading faculty…' : 'Choose a teacher'}
            data={owners.options}
            value={owner}
            onChange={setOwner}
            searchable
            nothingFoundMessage="No active faculty member by that name"
          />
          <Textarea
            label="Students (optional)"
            description="Student ids or login emails, separated by commas, spaces or new lines. Members can also be added later."
            autosize
            minRows={2}
            maxRows={8}
            value={members}
            onChange={(event) => setMembers(event.currentTarget.value)}
          />
          <FormButtons submitLabel="Create group" loading={create.isPending} disabled={!name.trim() || !owner} onCancel={close} />
        </Stack>
      </form>
    </Modal>
  );
}

const FILTERS = ['q', 'faculty_id'] as const;

export function GroupsPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const [creating, create] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered } = useUrlFilters(FILTERS);
  const groups = usePagedList<GroupRow>(institution.id, 'groups', filters, page);
  const faculty = useFacultyOptions(institution.id);
  const teacherName = useMemo(() => new Map((faculty.data?.items ?? []).map((teacher) => [teacher.id, teacher.full_name])), [faculty.data]);

  const columns = useMemo<ColumnDef<GroupRow>[]>(
    () => [
      {
        header: 'Group',
        id: 'name',
        cell: ({ row }) => (
          <Stack gap={0}>
            <Text size="sm" fw={500}>
              {row.original.name}
            </Text>
            {row.original.description ? (
              <Text size="xs" c="dimmed" lineClamp={1} maw={420}>
                {row.original.description}
              </Text>
            ) : null}
          </Stack>
        ),
      },
      { header: 'Owner', id: 'owner', cell: ({ row }) => teacherName.get(row.original.faculty_id) ?? row.original.faculty_id },
      { header: 'Students', accessorKey: 'student_count' },
      { header: 'Created', id: 'created', cell: ({ row }) => formatDate(row.original.created_at) },
    ],
    [teacherName],
  );

  return (
    <>
      <PageHeader
        title="Groups"
        description="Classes and sections. Exams are assigned to groups, and reach every student in them."
        actions={<Button onClick={create.open}>Create group</Button>}
      />
      <Group mb="md" align="flex-end" wrap="wrap" gap="sm">
        <SearchBox label="Search groups" placeholder="Part of the name" value={filters.q} onSearch={(value) => setFilters({ q: value })} />
        <Select
          label="Owner"
          placeholder="Any teacher"
          data={(faculty.data?.items ?? []).map((teacher) => ({ value: teacher.id, label: teacher.full_name }))}
          value={filters.faculty_id || null}
          onChange={(value) => setFilters({ faculty_id: value })}
          clearable
          searchable
          nothingFoundMessage="No teacher by that name"
          w={240}
        />
        {filtered ? (
          <Button variant="subtle" onClick={clear}>
            Clear filters
          </Button>
        ) : null}
      </Group>
      <DataTable
        label="Groups"
        columns={columns}
        data={groups.data?.items}
        isLoading={groups.isPending}
        error={groups.error}
        getRowId={(row) => row.id}
        onRowClick={(row) => navigate(row.id)}
        pagination={groups.data ? { page: groups.data.page, totalPages: groups.data.totalPages, total: groups.data.total, onChange: setPage } : undefined}
        empty={
          filtered
            ? { title: 'No group matches', description: 'Clear the filters to see every group.' }
            : { title: 'No groups yet', description: 'Create a class, name its teacher and add its students.', action: <Button onClick={create.open}>Create group</Button> }
        }
      />
      <CreateGroupModal opened={creating} onClose={create.close} />
    </>
  );
}
