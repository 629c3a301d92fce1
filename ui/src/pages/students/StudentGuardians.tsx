import { Button, Menu, Select, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, FormModal, RowActions, Section, StatusBadge, useApiMutation } from '../../components';
import { areaKey } from '../shared/areas';

type Guardian = Awaited<ReturnType<typeof listGuardians>>['items'][number];
type Relationship = Guardian['guardian_type'];

const RELATIONSHIPS: Array<{ value: Relationship; label: string }> = [
  { value: 'mother', label: 'Mother' },
  { value: 'father', label: 'Father' },
  { value: 'guardian', label: 'Guardian' },
];

const LABELS = { guardian_email: 'Email', guardian_name: 'Name', guardian_type: 'Relationship' } as const;

const listGuardians = (institution: string, studentId: string) =>
  call(portal.GET('/institutions/{institution}/guardians', { params: { path: { institution }, query: { student_id: studentId, limit: 200 } } }));

const guardiansKey = (institutionId: string, studentId: string) => [...areaKey(institutionId, 'students'), studentId, 'guardians'] as const;

/** Invites a guardian of this student: the school's invitation mail goes out at once. */
function InviteGuardianModal({ institutionId, studentId, opened, onClose }: { institutionId: string; studentId: string; opened: boolean; onClose(): void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [relationship, setRelationship] = useState<Relationship>('mother');
  const close = () => {
    setEmail('');
    setName('');
    setRelationship('mother');
    onClose();
  };
  const invite = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/guardians', {
          params: { path: { institution: institutionId } },
          body: { student_id: studentId, guardian_email: email.trim(), guardian_type: relationship, ...(name.trim() ? { guardian_name: name.trim() } : {}) },
        }),
      ),
    invalidate: [guardiansKey(institutionId, studentId)],
    success: (guardian) => `An invitation is on its way to ${guardian.guardian_email}.`,
    onSuccess: close,
    labels: LABELS,
  });
  const errors = invite.fieldErrors;
  return (
    <FormModal
      opened={opened}
      title="Invite a guardian"
      submitLabel="Send invitation"
      loading={invite.isPending}
      disabled={!email.trim()}
      onSubmit={() => invite.mutate()}
      onClose={close}
    >
      <TextInput
        label={LABELS.guardian_email}
        type="email"
        required
        maxLength={320}
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        error={errors.guardian_email}
        data-autofocus
      />
      <TextInput
        label={LABELS.guardian_name}
        description="Optional: the invitation greets them by it."
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={errors.guardian_name}
      />
      <Select
        label={LABELS.guardian_type}
        data={RELATIONSHIPS}
        allowDeselect={false}
        value={relationship}
        onChange={(value) => setRelationship((value as Relationship | null) ?? 'mother')}
        error={errors.guardian_type}
      />
      <Text size="xs" c="dimmed">
        The guardian gets a link valid for 7 days and confirms with a button on its page; then the weekly reports start.
      </Text>
    </FormModal>
  );
}

/** The student's guardians on the student's page: who is confirmed, who is still invited, and invite, resend or remove. */
export function StudentGuardians({ institutionId, studentId }: { institutionId: string; studentId: string }) {
  const key = guardiansKey(institutionId, studentId);
  const guardians = useQuery({ queryKey: key, queryFn: () => listGuardians(institutionId, studentId) });
  const [inviting, invite] = useDisclosure(false);
  const [removing, setRemoving] = useState<Guardian | null>(null);
  const resend = useApiMutation({
    mutationFn: (guardian: Guardian) =>
      call(portal.POST('/institutions/{institution}/guardians/{id}/resend', { params: { path: { institution: institutionId, id: guardian.id } } })),
    invalidate: [key],
    success: (guardian) => `A new invitation is on its way to ${guardian.guardian_email}; the earlier link no longer works.`,
  });
  const remove = useApiMutation({
    mutationFn: (guardian: Guardian) =>
      call(portal.DELETE('/institutions/{institution}/guardians/{id}', { params: { path: { institution: institutionId, id: guardian.id } } })),
    invalidate: [key],
    success: 'The guardian is removed; no more reports go to them.',
    onSuccess: () => setRemoving(null),
  });

  const columns: ColumnDef<Guardian>[] = [
    {
      header: 'Guardian',
      id: 'guardian',
      cell: ({ row }) => (
        <>
          <Text size="sm">{row.original.guardian_name ?? row.original.guardian_email}</Text>
          {row.original.guardian_name ? (
            <Text size="xs" c="dimmed">
              {row.original.guardian_email}
            </Text>
          ) : null}
        </>
      ),
    },
    { header: 'Relationship', id: 'relationship', cell: ({ row }) => RELATIONSHIPS.find((item) => item.value === row.original.guardian_type)?.label },
    {
      header: 'Status',
      id: 'status',
      cell: ({ row }) =>
        row.original.verified ? (
          <StatusBadge status="accepted" label={`confirmed ${formatDate(row.original.verified_at)}`} />
        ) : (
          <StatusBadge status="pending" label={`invited ${formatDate(row.original.invited_at)}`} />
        ),
    },
    {
      header: '',
      id: 'actions',
      cell: ({ row }) => (
        <RowActions name={row.original.guardian_email}>
          {row.original.verified ? null : <Menu.Item onClick={() => resend.mutate(row.original)}>Resend invitation</Menu.Item>}
          <Menu.Item color="red" onClick={() => setRemoving(row.original)}>
            Remove
          </Menu.Item>
        </RowActions>
      ),
    },
  ];

  return (
    <Section
      title="Guardians"
      actions={
        <Button size="xs" variant="light" onClick={invite.open}>
          Invite a guardian
        </Button>
      }
    >
      <DataTable
        label="Guardians"
        columns={columns}
        data={guardians.data?.items}
        isLoading={guardians.isPending}
        error={guardians.error}
        getRowId={(guardian) => guardian.id}
        empty={{ title: 'No guardian yet', description: 'Invite a parent or guardian: once they confirm, they receive a weekly report by email.' }}
      />
      <InviteGuardianModal institutionId={institutionId} studentId={studentId} opened={inviting} onClose={invite.close} />
      <ConfirmModal
        opened={removing !== null}
        title="Remove this guardian?"
        confirmLabel="Remove"
        color="red"
        loading={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing)}
        onClose={() => setRemoving(null)}
      >
        {removing ? `${removing.guardian_name ?? removing.guardian_email} will no longer receive reports about this student.` : null}
      </ConfirmModal>
    </Section>
  );
}
