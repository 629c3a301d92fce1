import { Button, Select, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, FilterBar, formatDate, FormModal, NameCell, PageHeader, pagesOf, useApiMutation, useUrlFilters } from '../../components';
import { useInstitution } from '../../session';
import { OwnerFilter } from '../faculty/OwnerFilter';
import { useFacultyOptions, useTeacherNames } from '../faculty/faculty';
import { areaKey, usePagedList } from '../shared/areas';
import { SearchBox } from '../shared/common';
import { NamedId } from '../shared/names';
import { GROUP_LABELS, splitRefs, type Group as GroupRow } from './groups';

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
      call(
        portal.POST('/institutions/{institution}/groups', {
          params: { path: { institution: institution.id } },
          body: {
            name: name.trim(),
            description,
            faculty_id: owner,
            ...(splitRefs(members).length > 0 ? { student_ids: splitRefs(members) } : {}),
          },
        }),
      ),
    invalidate: [areaKey(institution.id, 'groups'), areaKey(institution.id, 'students')],
    success: (group) => `Group “${group.name}” created with ${group.student_count} students.${rejectedNote(group.rejected_student_ids)}`,
    onSuccess: (group) => {
      close();
      navigate(group.id);
    },
    labels: GROUP_LABELS,
  });
  return (
    <FormModal
      opened={opened}
      title="Create a group"
      size="lg"
      submitLabel="Create group"
      loading={create.isPending}
      disabled={!name.trim() || !owner}
      onSubmit={() => create.mutate()}
      onClose={close}
    >
      <TextInput
        label={GROUP_LABELS.name}
        required
        maxLength={200}
        placeholder="Physics 101 – Section B"
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={create.fieldErrors.name}
        data-autofocus
      />
      <Textarea
        label={GROUP_LABELS.description}
        maxLength={2000}
        autosize
        minRows={2}
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        error={create.fieldErrors.description}
      />
      <Select
        label={GROUP_LABELS.faculty_id}
        error={create.fieldErrors.faculty_id}
        required
        placeholder={owners.isLoading ? 'Loading faculty…' : 'Choose a teacher'}
        data={owners.options}
        value={owner}
        onChange={setOwner}
        searchable
        nothingFoundMessage="No active faculty member by that name"
      />
      <Textarea
        label={GROUP_LABELS.student_ids}
        description="Optional: student ids or login emails, separated by commas, spaces or new lines. Members can also be added later."
        error={create.fieldErrors.student_ids}
        autosize
        minRows={2}
        maxRows={8}
        value={members}
        onChange={(event) => setMembers(event.currentTarget.value)}
      />
    </FormModal>
  );
}

const FILTERS = ['q', 'faculty_id'] as const;

export function GroupsPage() {
  const institution = useInstitution();
  const [creating, create] = useDisclosure(false);
  const { filters, page, setFilters, setPage, clear, filtered, sort, setSort } = useUrlFilters(FILTERS);
  const groups = usePagedList(institution.id, 'groups', { ...filters, sort }, page);
  const teacherName = useTeacherNames(institution.id);

  const columns = useMemo<ColumnDef<GroupRow>[]>(
    () => [
      {
        header: 'Group',
        id: 'name',
        meta: { sort: 'name' },
        cell: ({ row }) => <NameCell name={row.original.name} detail={row.original.description} maw={420} />,
      },
      { header: 'Owner', id: 'owner', cell: ({ row }) => <NamedId id={row.original.faculty_id} name={teacherName.get(row.original.faculty_id)} /> },
      { header: 'Students', accessorKey: 'student_count' },
      { header: 'Created', id: 'created', meta: { sort: 'created_at' }, cell: ({ row }) => formatDate(row.original.created_at) },
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
      <FilterBar filtered={filtered} onClear={clear}>
        <SearchBox label="Search groups" placeholder="Part of the name" value={filters.q} onSearch={(value) => setFilters({ q: value })} />
        <OwnerFilter institutionId={institution.id} value={filters.faculty_id} onChange={(value) => setFilters({ faculty_id: value })} width={240} />
      </FilterBar>
      <DataTable
        label="Groups"
        columns={columns}
        data={groups.data?.items}
        isLoading={groups.isPending}
        error={groups.error}
        getRowId={(row) => row.id}
        rowLink={(row) => row.id}
        pagination={pagesOf(groups.data, setPage)}
        sort={{ value: sort, onChange: setSort }}
        empty={
          filtered
            ? { title: 'No group matches', description: 'Clear the filters to see every group.' }
            : {
                title: 'No groups yet',
                description: 'Create a class, name its teacher and add its students.',
                action: <Button onClick={create.open}>Create group</Button>,
              }
        }
      />
      <CreateGroupModal opened={creating} onClose={create.close} />
    </>
  );
}
