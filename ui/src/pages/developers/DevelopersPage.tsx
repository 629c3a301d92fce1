import { Button, Checkbox, Menu, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import type { invitationSchema, memberChangeSchema, memberSchema } from '../../../../server/routes/developers/developers';
import { InvitationOutcome, invitationMailState, type SentInvitation } from './InvitationOutcome';
import { InviteModal, teamKey } from './InviteModal';
import { call, portal } from '../../api/portal';
import { ConfirmModal, DataTable, formatDate, PageHeader, RowActions, Section, StatusBadge, useApiMutation } from '../../components';
import { sessionQueryKey, useInstitution, useSession } from '../../session';
import { keysQueryKey } from '../keys/keys';

/** The portal's developer operations (type-only imports of server/routes/developers/developers.ts). */
type Member = z.input<typeof memberSchema>;
type Invitation = z.input<typeof invitationSchema>;
type MemberChange = z.input<typeof memberChangeSchema>;

const keysRevoked = (change: MemberChange) => (change.revoked_key_ids.length ? ` ${change.revoked_key_ids.length} of their keys revoked.` : '');

function SuspendModal({ member, onClose }: { member: Member | null; onClose(): void }) {
  const institution = useInstitution();
  const [revokeKeys, setRevokeKeys] = useState(true);
  const suspend = useApiMutation({
    // The modal only opens with a member, so the id is there when this runs.
    mutationFn: () =>
      call(
        portal.POST('/institutions/{id}/developers/{accountId}/suspend', {
          params: { path: { id: institution.id, accountId: member?.account_id ?? '' } },
          body: { revoke_keys: revokeKeys },
        }),
      ),
    invalidate: [teamKey(institution.id), keysQueryKey(institution.id)],
    success: (change) => `${change.member.email} suspended.${keysRevoked(change)}`,
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={member !== null}
      title="Suspend this member?"
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
  const session = useSession();
  const navigate = useNavigate();
  const leaving = member?.account_id === session.account.id;
  const remove = useApiMutation({
    // The modal only opens with a member, so the id is there when this runs.
    mutationFn: () =>
      call(portal.DELETE('/institutions/{id}/developers/{accountId}', { params: { path: { id: institution.id, accountId: member?.account_id ?? '' } } })),
    invalidate: leaving ? [sessionQueryKey] : [teamKey(institution.id), keysQueryKey(institution.id)],
    success: (change) => (leaving ? `You left ${institution.name}.` : `${change.member.email} removed.${keysRevoked(change)}`),
    onSuccess: () => {
      onClose();
      if (leaving) navigate('/');
    },
  });
  return (
    <ConfirmModal
      opened={member !== null}
      title={leaving ? `Leave ${institution.name}?` : 'Remove this member?'}
      confirmLabel={leaving ? 'Leave' : 'Remove'}
      color="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        {leaving ? 'You leave' : <b>{member?.email}</b>}
        {leaving ? ' ' : ' leaves '}
        {institution.name}, and the API keys {leaving ? 'you' : 'they'} created here are revoked. The last active admin cannot leave or be removed.
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
  const [resent, setResent] = useState<SentInvitation | null>(null);
  const team = useQuery({
    queryKey: teamKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{id}/developers', { params: { path: { id: institution.id } } })),
  });
  const reactivate = useApiMutation({
    mutationFn: (member: Member) =>
      call(portal.POST('/institutions/{id}/developers/{accountId}/reactivate', { params: { path: { id: institution.id, accountId: member.account_id } } })),
    invalidate: [teamKey(institution.id)],
    success: (member) => `${member.email} can sign in again.`,
  });
  const resend = useApiMutation({
    mutationFn: (invitation: Invitation) =>
      call(
        portal.POST('/institutions/{id}/developers/invitations/{invitationId}/resend', {
          params: { path: { id: institution.id, invitationId: invitation.invitation_id } },
        }),
      ),
    invalidate: [teamKey(institution.id)],
    success: (answer) => (answer.invite_url ? '' : `${invitationMailState(answer)} The old link no longer works.`),
    onSuccess: (answer) => answer.invite_url && setResent(answer),
  });

  const memberColumns = useMemo<ColumnDef<Member>[]>(
    () => [
      { header: 'Email', accessorKey: 'email' },
      { header: 'Role', accessorKey: 'role' },
      { header: 'Status', id: 'status', accessorFn: (row) => row.status, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Joined', id: 'joined', accessorFn: (row) => row.joined_at ?? '', cell: ({ row }) => formatDate(row.original.joined_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => {
          const member = row.original;
          if (member.account_id === session.account.id) {
            return (
              <RowActions name={member.email}>
                <Menu.Item color="red" onClick={() => setRemoving(member)}>
                  Leave {institution.name}
                </Menu.Item>
              </RowActions>
            );
          }
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
    [session.account.id, institution.name, reactivate],
  );
  const invitationColumns = useMemo<ColumnDef<Invitation>[]>(
    () => [
      { header: 'Email', accessorKey: 'email' },
      { header: 'Role', accessorKey: 'role' },
      { header: 'Status', id: 'status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { header: 'Sent', id: 'sent', accessorFn: (row) => row.sent_at, cell: ({ row }) => formatDate(row.original.sent_at) },
      { header: 'Link expires', id: 'expires', accessorFn: (row) => row.expires_at, cell: ({ row }) => formatDate(row.original.expires_at) },
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
        description="Admins manage everything here, the team included. Developers manage API keys, webhooks and deliveries only. An institution always keeps one active admin."
        actions={<Button onClick={openInvite}>Invite</Button>}
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
      <Modal opened={resent !== null} onClose={() => setResent(null)} title="New invitation link">
        {resent ? <InvitationOutcome sent={resent} /> : null}
      </Modal>
    </>
  );
}
