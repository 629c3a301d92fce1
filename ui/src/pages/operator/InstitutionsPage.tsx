import { Button, Checkbox, Group, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, FormModal, NameCell, PageHeader, StatusBadge, useApiMutation } from '../../components';
import { sessionQueryKey } from '../../session';
import { InstitutionAdminsModal } from './InstitutionAdminsModal';
import { operatorKey, type OperatorInstitution } from './operator';

const institutionsKey = operatorKey('institutions');

/** The form's labels by API field: shown on the inputs, and in a refusal's words. */
const CREATE_LABELS = { name: 'Name', approve: 'Approve now' } as const;

function CreateModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [name, setName] = useState('');
  const [approve, setApprove] = useState(true);
  const create = useApiMutation({
    mutationFn: () => call(portal.POST('/operator/institutions', { body: { name: name.trim(), approve } })),
    invalidate: [institutionsKey, operatorKey('allowances')],
    success: (created) => `${created.name} created (${created.status}).`,
    labels: CREATE_LABELS,
    onSuccess: () => {
      setName('');
      onClose();
    },
  });
  return (
    <FormModal opened={opened} title="New institution" submitLabel="Create" loading={create.isPending} onSubmit={() => create.mutate()} onClose={onClose}>
      <TextInput
        label={CREATE_LABELS.name}
        required
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={create.fieldErrors.name}
        data-autofocus
      />
      <Checkbox
        label={CREATE_LABELS.approve}
        error={create.fieldErrors.approve}
        description="A pending institution can be set up, but its API keys are refused until you approve it."
        checked={approve}
        onChange={(event) => setApprove(event.currentTarget.checked)}
      />
    </FormModal>
  );
}

type Change = { institution: OperatorInstitution; action: 'approve' | 'suspend' };

function StatusChangeModal({ change, onClose }: { change: Change | null; onClose(): void }) {
  const apply = useApiMutation({
    mutationFn: ({ institution, action }: Change) =>
      action === 'approve'
        ? call(portal.POST('/operator/institutions/{id}/approve', { params: { path: { id: institution.id } } }))
        : call(portal.POST('/operator/institutions/{id}/suspend', { params: { path: { id: institution.id } } })),
    invalidate: [institutionsKey, sessionQueryKey],
    success: (updated) => (updated.status === 'suspended' ? `${updated.name} suspended. Its API keys are refused from now on.` : `${updated.name} approved.`),
    onSuccess: onClose,
  });
  const suspending = change?.action === 'suspend';
  const wasSuspended = change?.institution.status === 'suspended';
  return (
    <ConfirmModal
      opened={change !== null}
      title={suspending ? 'Suspend this institution?' : wasSuspended ? 'Lift the suspension?' : 'Approve this institution?'}
      confirmLabel={suspending ? 'Suspend' : 'Approve'}
      color={suspending ? 'red' : undefined}
      loading={apply.isPending}
      onConfirm={() => change && apply.mutate(change)}
      onClose={onClose}
    >
      <Text size="sm">
        {suspending ? (
          <>
            Every API key of <b>{change?.institution.name}</b> is refused from its next request, its webhooks pause and its members cannot open it in the
            portal. Approving it again restores all of this without new keys.
          </>
        ) : (
          <>
            <b>{change?.institution.name}</b> can use the API with its keys{wasSuspended ? ' again, and its paused webhook deliveries go out' : ''}.
          </>
        )}
      </Text>
    </ConfirmModal>
  );
}

export function InstitutionsPage() {
  const [creating, { open: openCreate, close: closeCreate }] = useDisclosure(false);
  const [change, setChange] = useState<Change | null>(null);
  const [adminsOf, setAdminsOf] = useState<OperatorInstitution | null>(null);
  const institutions = useQuery({ queryKey: institutionsKey, queryFn: () => call(portal.GET('/operator/institutions')) });

  const columns = useMemo<ColumnDef<OperatorInstitution>[]>(
    () => [
      {
        header: 'Institution',
        id: 'name',
        accessorFn: (row) => row.name,
        cell: ({ row }) => <NameCell name={row.original.name} detail={row.original.id} mono />,
      },
      { header: 'Status', id: 'status', accessorFn: (row) => row.status, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Created', id: 'created', accessorFn: (row) => row.created_at, cell: ({ row }) => formatDate(row.original.created_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => {
          const institution = row.original;
          const status =
            institution.status === 'approved' ? (
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                onClick={() => setChange({ institution, action: 'suspend' })}
                aria-label={`Suspend ${institution.name}`}
              >
                Suspend
              </Button>
            ) : (
              <Button
                size="compact-xs"
                variant="light"
                onClick={() => setChange({ institution, action: 'approve' })}
                aria-label={`${institution.status === 'suspended' ? 'Lift suspension of' : 'Approve'} ${institution.name}`}
              >
                {institution.status === 'suspended' ? 'Lift suspension' : 'Approve'}
              </Button>
            );
          return (
            <Group gap={4} wrap="nowrap">
              <Button size="compact-xs" variant="subtle" onClick={() => setAdminsOf(institution)} aria-label={`Admins of ${institution.name}`}>
                Admins
              </Button>
              {status}
            </Group>
          );
        },
      },
    ],
    [],
  );

  return (
    <>
      <PageHeader
        title="Institutions"
        description="Every institution on this appliance. Only approved institutions can use the API; suspending one stops its keys at once, and approving it again restores them. Admins: who can open each one in the portal, and inviting its admin."
        actions={<Button onClick={openCreate}>New institution</Button>}
      />
      <DataTable
        label="Institutions"
        columns={columns}
        data={institutions.data}
        isLoading={institutions.isPending}
        error={institutions.error}
        getRowId={(row) => row.id}
        empty={{ title: 'No institutions yet', action: <Button onClick={openCreate}>New institution</Button> }}
      />
      <CreateModal opened={creating} onClose={closeCreate} />
      <StatusChangeModal change={change} onClose={() => setChange(null)} />
      <InstitutionAdminsModal institution={adminsOf} onClose={() => setAdminsOf(null)} />
    </>
  );
}
