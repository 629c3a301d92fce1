import { Button, Group, List, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { formatDate, QueryError, useApiMutation } from '../../components';
import { InvitationOutcome, type SentInvitation } from '../developers/InvitationOutcome';
import type { OperatorInstitution } from './operator';

const adminsKey = (institutionId: string) => ['operator', 'institutions', institutionId, 'admins'] as const;

/** The form's label by API field: shown on the input, and in a refusal's words. */
const INVITE_LABELS = { email: 'Invite an admin by email' } as const;

function AdminsOf({ institution }: { institution: OperatorInstitution }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<SentInvitation | null>(null);
  const admins = useQuery({
    queryKey: adminsKey(institution.id),
    queryFn: () => call(portal.GET('/operator/institutions/{id}/admins', { params: { path: { id: institution.id } } })),
  });
  const invite = useApiMutation({
    mutationFn: () =>
      call(portal.POST('/operator/institutions/{id}/admins/invitations', { params: { path: { id: institution.id } }, body: { email: email.trim() } })),
    invalidate: [adminsKey(institution.id)],
    onSuccess: (answer) => {
      setEmail('');
      setSent(answer);
    },
    labels: INVITE_LABELS,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };

  if (admins.error) return <QueryError error={admins.error} />;
  if (!admins.data) return <Loader aria-label="Loading" />;
  return (
    <Stack>
      {admins.data.admins.length ? (
        <List size="sm">
          {admins.data.admins.map((admin) => (
            <List.Item key={admin.account_id}>
              {admin.email} ({admin.status}, since {formatDate(admin.joined_at)})
            </List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm">
          <b>{institution.name}</b> has no admin yet, so nobody can open it in the portal. Invite one.
        </Text>
      )}
      {admins.data.invitations.length ? (
        <Text size="sm" c="dimmed">
          Open invitations: {admins.data.invitations.map((row) => `${row.email} (${row.status}, until ${formatDate(row.expires_at)})`).join('; ')}. Inviting the
          same email again makes a new link.
        </Text>
      ) : null}
      {sent ? <InvitationOutcome sent={sent} /> : null}
      <form onSubmit={submit} aria-label="Invite an admin">
        <Group align="flex-end">
          <TextInput
            label={INVITE_LABELS.email}
            error={invite.fieldErrors.email}
            description="The link, valid 7 days, makes the account; an existing account joins with its own password."
            type="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            style={{ flex: 1 }}
            data-autofocus
          />
          <Button type="submit" loading={invite.isPending}>
            Invite admin
          </Button>
        </Group>
      </form>
    </Stack>
  );
}

/** The operator gives an institution its admins (as `institution invite-admin`). */
export function InstitutionAdminsModal({ institution, onClose }: { institution: OperatorInstitution | null; onClose(): void }) {
  return (
    <Modal opened={institution !== null} onClose={onClose} title={`Admins of ${institution?.name ?? ''}`} size="lg">
      {institution ? <AdminsOf key={institution.id} institution={institution} /> : null}
    </Modal>
  );
}
