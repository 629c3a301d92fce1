import { Button, Checkbox, Menu, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import type { invitationSchema, memberChangeSchema, memberSchema, teamSchema } from '../../../../server/routes/developers/developers';
import { api } from '../../api/client';
import { ConfirmModal, DataTable, formatDate, FormModal, PageHeader, RowActions, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution, useSession } from '../../session';
import { keysQueryKey } from '../keys/keys';

/** The portal's developer operations (type-only imports of server/routes/developers/developers.ts). */
type Member = z.input<typeof memberSchema>;
type Invitation = z.input<typeof invitationSchema>;
type MemberChange = z.input<typeof memberChangeSchema>;
type Team = z.input<typeof teamSchema>;

const teamKey = (institutionId: string) => ['institution', institutionId, 'developers'] as const;
const keysRevoked = (change: MemberChange) => (change.revoked_key_ids.length ? ` ${change.revoked_key_ids.length} of their keys revoked.` : '');

function InviteModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [email, setEmail] = useState('');
  const invite = useApiMutation({
    mutationFn: () => api.post<Invitation>(`/institutions/${institution.id}/developers/invitations`, { email: email.trim() }),
    invalidate: [teamKey(institution.id)],
    success: (invitation) => `Invitation mailed to ${invitation.email}; the link works for 7 days.`,
    onSuccess: () => {
      setEmail('');
      onClose();
    },
  });
  return (
    <FormModal
      opened={opened}
      title="Invite a developer"
      submitLabel="Send invitation"
      loading={invite.isPending}
      onSubmit={() => invite.mutate()}
      onClose={onClose}
    >
      <Text size="sm" c="dimmed">
        Developers manage API keys and webhooks for {institution.name}. They cannot see students, licenses or settings.
      </Text>
      <TextInput label="Email" type="email" required value={email} onChange={(event) => setEmail(event.currentTarget.value)} data-autofocus />
    </FormModal>
  );
}

function SuspendModal({ member, onClose }: { member: Member | null; onClose(): void }) {
  const institution = useInstitution();
  const [revokeKeys, setRevokeKeys] = useState(true);
  const suspend = useApiMutation({
    mutationFn: () => api.post<MemberChange>(`/institutions/${institution.id}/developers/${member?.account_id}/suspend`, { revoke_keys: revokeKeys }),
    invalidate: [teamKey(institution.id), keysQueryKey(institution.id)],
    success: (change) => `${change.member.email} suspended.${keysRevoked(change)}`,
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={member !== null}
      title="Suspend this developer?"
      confirmLabel="Suspend"
      color="red"
      loading={suspend.isPending}
      onConfirm={() => suspend.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        <b>{member?.email}</b> will not be able to sign in to {institution.name} until you reactivate them.
      </Text>
      <Checkbox
        label="Also revoke the API keys they created"
        description="Recommended. Keep them only if an integration in production depends on one of them."
        checked={revokeKeys}
        onChange={(event) => setRevokeKeys(event.currentTarget.checked)}
      />
    </ConfirmModal>
  );
}

function RemoveModal({ member, onClose }: { member: Member | null; onClose(): void }) {
  const institution = useInstitution();
  const remove = useApiMutation({
    mutationFn: () => api.del<MemberChange>(`/institutions/${institution.id}/developers/${member?.account_id}`),
    invalidate: [teamKey(institution.id), keysQueryKey(institution.id)],
    success: (change) => `${change.member.email} removed.${keysRevoked(change)}`,
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={member !== null}
      title="Remove this developer?"
      confirmLabel="Remove"
      color="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        <b>{member?.email}</b> leaves {institution.name}, and the API keys they created here are revoked. They can be invited again later.
      </Text>
    </ConfirmModal>
  );
}

export function DevelopersPage() {
  const institution = useInstitution();
  const session = useSession();
  const [inviting, { open: openInvite, close: closeInvite }] = useDisclosure(false);
  const [suspending, setSuspending] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const team = useQuery({
    queryKey: teamKey(institution.id),
    queryFn: () => api.get<Team>(`/institutions/${institution.id}/developers`),
  });
  const reactivate = useApiMutation({
    mutationFn: (member: Member) => api.post<Member>(`/institutions/${institution.id}/developers/${member.account_id}/reactivate`),
    invalidate: [teamKey(institution.id)],
    success: (member) => `${member.email} can sign in again.`,
  });
  const resend = useApiMutation({
    mutationFn: (invitation: Invitation) => api.post<Invitation>(`/institutions/${institution.id}/developers/invitations/${invitation.invitation_id}/resend`),
    invalidate: [teamKey(institution.id)],
    success: (invitation) => `A new link was mailed to ${invitation.email}; the old one no longer works.`,
  });

  const memberColumns = useMemo<ColumnDef<Member>[]>(
    () => [
      { header: 'Email', accessorKey: 'email' },
      { header: 'Role', accessorKey: 'role' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Joined', id: 'joined', cell: ({ row }) => formatDate(row.original.joined_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => {
          const member = row.original;
          if (member.role !== 'developer' || member.account_id === session.account.id) return null;
          return (
            <RowActions name={member.email}>
              {member.status === 'active' ? (
                <Menu.Item onClick={() => setSuspending(member)}>Suspend</Menu.Item>
              ) : (
                <Menu.Item onClick={() => reactivate.mutate(member)}>Reactivate</Menu.Item>
              )}
              <Menu.Item color="red" onClick={() => setRemoving(member)}>
                Remove
              </Menu.Item>
            </RowActions>
          );
        },
      },
    ],
    [session.account.id, reactivate],
  );
  const invitationColumns = useMemo<ColumnDef<Invitation>[]>(
    () => [
      { header: 'Email', accessorKey: 'email' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Sent', id: 'sent', cell: ({ row }) => formatDate(row.original.sent_at) },
      { header: 'Link expires', id: 'expires', cell: ({ row }) => formatDate(row.original.expires_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => (
          <Button size="compact-xs" variant="subtle" onClick={() => resend.mutate(row.original)} aria-label={`Resend invitation to ${row.original.email}`}>
            Resend
          </Button>
        ),
      },
    ],
    [resend],
  );

  return (
    <>
      <PageHeader
        title="Team"
        description="Admins manage everything here. Developers you invite manage API keys, webhooks and deliveries only."
        actions={<Button onClick={openInvite}>Invite developer</Button>}
      />
      <Stack gap="xl">
        <DataTable
          label="Members"
          columns={memberColumns}
          data={team.data?.members}
          isLoading={team.isPending}
          error={team.error}
          getRowId={(row) => row.account_id}
          empty={{ title: 'No members' }}
        />
        <Section title="Open invitations">
          <DataTable
            label="Open invitations"
            columns={invitationColumns}
            data={team.data?.invitations}
            isLoading={team.isPending}
            error={team.error}
            getRowId={(row) => row.invitation_id}
            empty={{ title: 'No open invitations', description: 'Invitations appear here until they are accepted.' }}
          />
        </Section>
      </Stack>
      <InviteModal opened={inviting} onClose={closeInvite} />
      <SuspendModal key={suspending?.account_id ?? 'none'} member={suspending} onClose={() => setSuspending(null)} />
      <RemoveModal member={removing} onClose={() => setRemoving(null)} />
    </>
  );
}
