import { Button, Group as Row, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, Fact, Facts, formatDate, FormModal, PageHeader, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { ImportWizard } from '../imports/ImportWizard';
import { memberImport } from '../imports/kinds';
import { PersonLink } from '../people/people';
import { areaKey } from '../shared/areas';
import { BackLink, DetailState, Mono } from '../shared/common';
import { useNames } from '../shared/names';
import { rejectedNote, useOwnerOptions } from './GroupsPage';
import { GROUP_LABELS, splitRefs, type GroupDetail, type GroupMember } from './groups';

type Exam = GroupDetail['exams'][number];

function EditGroupModal({ group, ownerName, onClose }: { group: GroupDetail; ownerName: string | undefined; onClose(): void }) {
  const institution = useInstitution();
  const owners = useOwnerOptions(institution.id);
  const [name, setName] = useState(group.name);
  const [description, setDescription] = useState(group.description);
  const [owner, setOwner] = useState<string | null>(group.faculty_id);
  const update = useApiMutation({
    mutationFn: () =>
      call(
        portal.PATCH('/institutions/{institution}/groups/{id}', {
          params: { path: { institution: institution.id, id: group.id } },
          body: {
            name: name.trim(),
            description,
            // Sent only when changed: a PATCH naming the owner re-checks that they are active.
            ...(owner !== group.faculty_id ? { faculty_id: owner } : {}),
          },
        }),
      ),
    invalidate: [areaKey(institution.id, 'groups')],
    success: 'Group updated.',
    onSuccess: onClose,
    labels: GROUP_LABELS,
  });
  return (
    <FormModal
      opened
      title="Edit group"
      size="lg"
      submitLabel="Save"
      loading={update.isPending}
      disabled={!name.trim() || !owner}
      onSubmit={() => update.mutate()}
      onClose={onClose}
    >
      <TextInput
        label={GROUP_LABELS.name}
        required
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={update.fieldErrors.name}
        data-autofocus
      />
      <Textarea
        label={GROUP_LABELS.description}
        maxLength={2000}
        autosize
        minRows={2}
        value={description}
        onChange={(event) => setDescription(event.currentTarget.value)}
        error={update.fieldErrors.description}
      />
      <Select
        label={GROUP_LABELS.faculty_id}
        error={update.fieldErrors.faculty_id}
        required
        data={
          owners.options.some((option) => option.value === group.faculty_id)
            ? owners.options
            : [...owners.options, { value: group.faculty_id, label: ownerName ?? group.faculty_id }]
        }
        value={owner}
        onChange={setOwner}
        searchable
        allowDeselect={false}
      />
    </FormModal>
  );
}

function AddMembersModal({ group, onClose }: { group: GroupDetail; onClose(): void }) {
  const institution = useInstitution();
  const [refs, setRefs] = useState('');
  const add = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/groups/{id}/members', {
          params: { path: { institution: institution.id, id: group.id } },
          body: { student_ids: splitRefs(refs) },
        }),
      ),
    invalidate: [areaKey(institution.id, 'groups'), areaKey(institution.id, 'students')],
    success: (result) => `${result.added.length} added.${rejectedNote(result.rejected_student_ids)}`,
    onSuccess: onClose,
    labels: GROUP_LABELS,
  });
  return (
    <FormModal
      opened
      title={`Add students to ${group.name}`}
      formLabel="Add students"
      submitLabel="Add"
      loading={add.isPending}
      disabled={splitRefs(refs).length === 0}
      onSubmit={() => add.mutate()}
      onClose={onClose}
    >
      <Textarea
        label={GROUP_LABELS.student_ids}
        description="Student ids or login emails, separated by commas, spaces or new lines. Students already in the group are left as they are."
        error={add.fieldErrors.student_ids}
        autosize
        minRows={3}
        maxRows={10}
        value={refs}
        onChange={(event) => setRefs(event.currentTarget.value)}
        data-autofocus
      />
    </FormModal>
  );
}

export function GroupDetailPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { groupId = '' } = useParams();
  const [editing, edit] = useDisclosure(false);
  const [adding, adder] = useDisclosure(false);
  const [importing, importer] = useDisclosure(false);
  const [deleting, deleter] = useDisclosure(false);
  const [removing, setRemoving] = useState<GroupMember | null>(null);
  const path = { institution: institution.id, id: groupId };
  const group = useQuery({
    queryKey: [...areaKey(institution.id, 'groups'), 'one', groupId],
    queryFn: () => call(portal.GET('/institutions/{institution}/groups/{id}', { params: { path } })),
  });
  // The owner by name, whoever it is (a picker's list may not reach every teacher).
  const ownerName = useNames(institution.id, [group.data?.faculty_id]).get(group.data?.faculty_id ?? '')?.name;
  const remove = useApiMutation({
    mutationFn: (member: GroupMember) =>
      call(portal.DELETE('/institutions/{institution}/groups/{id}/members/{studentId}', { params: { path: { ...path, studentId: member.id } } })),
    invalidate: [areaKey(institution.id, 'groups'), areaKey(institution.id, 'students')],
    success: (_group, member) => `${member.full_name} removed from the group.`,
    onSuccess: () => setRemoving(null),
  });
  const destroy = useApiMutation({
    mutationFn: () => call(portal.DELETE('/institutions/{institution}/groups/{id}', { params: { path } })),
    // Not the group's own query: refetched, it would flash a 404 before the page leaves.
    invalidate: [
      [...areaKey(institution.id, 'groups'), 'list'],
      [...areaKey(institution.id, 'groups'), 'options'],
      [...areaKey(institution.id, 'groups'), 'of'],
      areaKey(institution.id, 'students'),
    ],
    success: 'Group deleted.',
    onSuccess: () => navigate(`/i/${institution.id}/groups`),
  });

  const memberColumns: ColumnDef<GroupMember>[] = [
    { header: 'Student', id: 'name', cell: ({ row }) => <PersonLink institutionId={institution.id} id={row.original.id} label={row.original.full_name} /> },
    { header: 'Login email', id: 'email', cell: ({ row }) => <Mono>{row.original.login_email}</Mono> },
    { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
    { header: 'Added', id: 'added', cell: ({ row }) => formatDate(row.original.added_at) },
    {
      header: '',
      id: 'actions',
      cell: ({ row }) => (
        <Button size="xs" variant="subtle" color="red" onClick={() => setRemoving(row.original)} aria-label={`Remove ${row.original.full_name}`}>
          Remove
        </Button>
      ),
    },
  ];
  const examColumns: ColumnDef<Exam>[] = [
    { header: 'Exam', accessorKey: 'title' },
    { header: 'App', accessorKey: 'app' },
    { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
    { header: 'Due', id: 'due', cell: ({ row }) => formatDate(row.original.due_date) },
  ];

  return (
    <DetailState isPending={group.isPending} error={group.error}>
      {() => {
        const row = group.data!;
        return (
          <>
            <PageHeader
              title={row.name}
              description={row.description || undefined}
              actions={
                <>
                  <BackLink to=".." label="All groups" />
                  <Button variant="default" onClick={edit.open}>
                    Edit
                  </Button>
                  <Button variant="light" color="red" onClick={deleter.open}>
                    Delete
                  </Button>
                </>
              }
            />
            <Facts>
              <Fact label="Owner">
                <PersonLink institutionId={institution.id} id={row.faculty_id} label={ownerName} />
              </Fact>
              <Fact label="Students">{row.student_count}</Fact>
              <Fact label="Group id">
                <Mono>{row.id}</Mono>
              </Fact>
              <Fact label="Created">{formatDate(row.created_at)}</Fact>
            </Facts>
            <Stack gap="xl">
              <Section title="Members">
                <Row gap="xs">
                  <Button size="xs" onClick={adder.open}>
                    Add students
                  </Button>
                  <Button size="xs" variant="default" onClick={importer.open}>
                    Import members
                  </Button>
                </Row>
                <DataTable
                  label="Members"
                  columns={memberColumns}
                  data={row.members}
                  isLoading={false}
                  getRowId={(member) => member.id}
                  empty={{ title: 'No students in this group', action: <Button onClick={adder.open}>Add students</Button> }}
                />
              </Section>
              <Section title="Exams">
                <DataTable
                  label="Assigned exams"
                  columns={examColumns}
                  data={row.exams}
                  isLoading={false}
                  getRowId={(exam) => exam.id}
                  onRowClick={(exam) => navigate(`/i/${institution.id}/exams/${exam.id}`)}
                  empty={{ title: 'No exam assigned', description: 'Your LMS assigns exams to groups through the API.' }}
                />
              </Section>
            </Stack>
            {editing ? <EditGroupModal group={row} ownerName={ownerName} onClose={edit.close} /> : null}
            {adding ? <AddMembersModal group={row} onClose={adder.close} /> : null}
            <ImportWizard
              kind={memberImport(row.id)}
              opened={importing}
              onClose={importer.close}
              invalidate={[areaKey(institution.id, 'groups'), areaKey(institution.id, 'students')]}
            />
            <ConfirmModal
              opened={removing !== null}
              title="Remove from the group?"
              confirmLabel="Remove"
              color="red"
              loading={remove.isPending}
              onConfirm={() => removing && remove.mutate(removing)}
              onClose={() => setRemoving(null)}
            >
              <Text size="sm">
                {removing?.full_name} leaves {row.name} and no longer sees its exams. Their submissions stay.
              </Text>
            </ConfirmModal>
            <ConfirmModal
              opened={deleting}
              title="Delete this group?"
              confirmLabel="Delete group"
              color="red"
              loading={destroy.isPending}
              onConfirm={() => destroy.mutate()}
              onClose={deleter.close}
            >
              <Text size="sm">
                {row.name} and its {row.student_count} memberships are deleted; the students themselves, and their submissions, stay. This cannot be undone.
              </Text>
            </ConfirmModal>
          </>
        );
      }}
    </DetailState>
  );
}
