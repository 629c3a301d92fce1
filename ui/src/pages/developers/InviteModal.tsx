import { Radio, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { FormModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { InvitationOutcome, invitationMailState, type SentInvitation } from './InvitationOutcome';

export const teamKey = (institutionId: string) => ['institution', institutionId, 'developers'] as const;

/** The form's labels by API field: shown on the inputs, and in a refusal's words. */
const LABELS = { email: 'Email', role: 'Role' } as const;

/** Invite an admin or a developer; the role is chosen here. Without a mail server the answer's link is shown to copy. */
export function InviteModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'developer'>('developer');
  const [sent, setSent] = useState<SentInvitation | null>(null);
  const invite = useApiMutation({
    mutationFn: () =>
      call(portal.POST('/institutions/{id}/developers/invitations', { params: { path: { id: institution.id } }, body: { email: email.trim(), role } })),
    invalidate: [teamKey(institution.id)],
    success: (answer) => (answer.invite_url ? '' : invitationMailState(answer)),
    onSuccess: (answer) => {
      setEmail('');
      if (answer.invite_url) setSent(answer);
      else onClose();
    },
    labels: LABELS,
  });
  const close = () => {
    setSent(null);
    onClose();
  };
  return (
    <FormModal
      opened={opened}
      title="Invite to the team"
      submitLabel="Invite"
      loading={invite.isPending}
      onSubmit={() => invite.mutate()}
      onClose={close}
      outcome={sent ? <InvitationOutcome sent={sent} /> : undefined}
    >
      <TextInput
        label={LABELS.email}
        type="email"
        required
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
        error={invite.fieldErrors.email}
        data-autofocus
      />
      <Radio.Group label={LABELS.role} error={invite.fieldErrors.role} value={role} onChange={(value) => setRole(value === 'admin' ? 'admin' : 'developer')}>
        <Stack gap="xs" mt={4}>
          <Radio value="developer" label="Developer" description="Manages API keys, webhooks and deliveries; cannot see students, licenses or settings." />
          <Radio value="admin" label="Admin" description={`Manages everything in ${institution.name}, the team included.`} />
        </Stack>
      </Radio.Group>
      <Text size="sm" c="dimmed">
        The invitation link works for 7 days.
      </Text>
    </FormModal>
  );
}
