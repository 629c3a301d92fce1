import { Button, Menu, Select, Text } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, FormModal, RowActions, Section, useApiMutation } from '../../components';
import type { Group } from '../groups/groups';
import { areaKey } from '../shared/areas';

/** Groups and students change together: a membership shows on both pages. */
const invalidated = (institutionId: string) => [areaKey(institutionId, 'groups'), areaKey(institutionId, 'students')];

/** Adds the student to one group, chosen by name (the first 50 matches of what is typed). */
function AddToGroupModal({
  institutionId,
  studentId,
  memberOf,
  opened,
  onClose,
}: {
  institutionId: string;
  studentId: string;
  memberOf: ReadonlySet<string>;
  opened: boolean;
  onClose(): void;
}) {
  const [search, setSearch] = useState('');
  const [typed] = useDebouncedValue(search, 250);
  const [groupId, setGroupId] = useState<string | null>(null);
  const close = () => {
    setSearch('');
    setGroupId(null);
    onClose();
  };
  const choices = useQuery({
    queryKey: [...areaKey(institutionId, 'groups'), 'choices', typed],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/groups', {
          params: { path: { institution: institutionId }, query: { q: typed || undefined, sort: 'name', limit: 50 } },
        }),
      ),
    enabled: opened,
  });
  const add = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/groups/{id}/members', {
          params: { path: { institution: institutionId, id: groupId ?? '' } },
          body: { student_ids: [studentId] },
        }),
      ),
    invalidate: invalidated(institutionId),
    success: 'Added to the group.',
    onSuccess: close,
  });
  const data = (choices.data?.items ?? []).map((group) => ({
    value: group.id,
    label: memberOf.has(group.id) ? `${group.name} (already a member)` : group.name,
    disabled: memberOf.has(group.id),
  }));
  return (
    <FormModal
      opened={opened}
      title="Add to a group"
      submitLabel="Add"
      loading={add.isPending}
      disabled={!groupId}
      onSubmit={() => add.mutate()}
      onClose={close}
    >
      <Select
        label="Group"
        placeholder="Type part of its name"
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        filter={({ options }) => options}
        data={data}
        value={groupId}
        onChange={setGroupId}
        nothingFoundMessage={choices.isPending ? 'Looking…' : 'No group has that in its name.'}
        data-autofocus
      />
      <Text size="xs" c="dimmed">
        The student sees the group&apos;s published exams at once; a webhook tells your LMS of the new member.
      </Text>
    </FormModal>
  );
}

/** The groups a student is in, on the student's page: open one, add to another, or take the student out. */
export function StudentGroups({ institutionId, studentId, studentName }: { institutionId: string; studentId: string; studentName: string }) {
  const groups = useQuery({
    queryKey: [...areaKey(institutionId, 'groups'), 'of-student', studentId],
    queryFn: () =>
      call(
        portal.GET('/institutions/{institution}/groups', {
          params: { path: { institution: institutionId }, query: { student_id: studentId, sort: 'name', limit: 200 } },
        }),
      ),
  });
  const [adding, add] = useDisclosure(false);
  const [leaving, setLeaving] = useState<Group | null>(null);
  const remove = useApiMutation({
    mutationFn: (group: Group) =>
      call(
        portal.DELETE('/institutions/{institution}/groups/{id}/members/{studentId}', {
          params: { path: { institution: institutionId, id: group.id, studentId } },
        }),
      ),
    invalidate: invalidated(institutionId),
    success: 'Taken out of the group.',
    onSuccess: () => setLeaving(null),
  });

  const columns: ColumnDef<Group>[] = [
    { header: 'Group', accessorKey: 'name' },
    { header: 'Members', accessorKey: 'student_count' },
    { header: 'Created', id: 'created', accessorKey: 'created_at', cell: ({ row }) => formatDate(row.original.created_at) },
    {
      header: '',
      id: 'actions',
      cell: ({ row }) => (
        <RowActions name={row.original.name}>
          <Menu.Item color="red" onClick={() => setLeaving(row.original)}>
            Take out of this group
          </Menu.Item>
        </RowActions>
      ),
    },
  ];
  const memberOf = new Set((groups.data?.items ?? []).map((group) => group.id));

  return (
    <Section
      title="Groups"
      actions={
        <Button size="xs" variant="light" onClick={add.open}>
          Add to a group
        </Button>
      }
    >
      <DataTable
        label="Groups"
        columns={columns}
        data={groups.data?.items}
        isLoading={groups.isPending}
        error={groups.error}
        getRowId={(group) => group.id}
        rowLink={(group) => `/i/${institutionId}/groups/${group.id}`}
        empty={{ title: 'In no group', description: 'Add the student to a class or section: its exams then reach them.' }}
      />
      <AddToGroupModal institutionId={institutionId} studentId={studentId} memberOf={memberOf} opened={adding} onClose={add.close} />
      <ConfirmModal
        opened={leaving !== null}
        title="Take out of this group?"
        confirmLabel="Take out"
        color="red"
        loading={remove.isPending}
        onConfirm={() => leaving && remove.mutate(leaving)}
        onClose={() => setLeaving(null)}
      >
        {leaving ? `${studentName} leaves ${leaving.name}. Their submissions stay; the group's exams no longer reach them.` : null}
      </ConfirmModal>
    </Section>
  );
}
