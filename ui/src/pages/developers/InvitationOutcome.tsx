import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { z } from 'zod';
import type { sentInvitationSchema } from '../../../../server/routes/developers/developers';

/** As the answer to inviting or resending (type-only import of the server's schema). */
export type SentInvitation = z.input<typeof sentInvitationSchema>;

/** Says what really happened to the invitation mail; never "mailed" when it was only queued. */
export function invitationMailState(sent: SentInvitation): string {
  if (!sent.mail_server) return `No mail server is set up, so the invitation to ${sent.email} waits in the outbox.`;
  if (sent.mail.status === 'sent') return `Invitation sent to ${sent.email}.`;
  return `Invitation to ${sent.email} queued for sending; the mail outbox shows when it has gone.`;
}

/**
 * What an invitation answer offers: the link to copy when the answer carries one (no mail server,
 * or the operator's invitation), otherwise the mail's state. The link is shown this once.
 */
export function InvitationOutcome({ sent }: { sent: SentInvitation }) {
  return (
    <Stack gap="sm">
      <Text size="sm">{invitationMailState(sent)}</Text>
      {sent.invite_url ? (
        <Alert color="yellow" title="Invitation link" role="status">
          <Stack gap="xs">
            <Text size="sm">
              Hand this link to {sent.email} yourself (chat, a printed note). It works once, until {new Date(sent.expires_at).toLocaleString()}, and is not
              shown again: resending makes a new one.
            </Text>
            <Group gap="sm" wrap="nowrap" align="center">
              <Code data-testid="invite-url" style={{ wordBreak: 'break-all', flex: 1 }}>
                {sent.invite_url}
              </Code>
              <CopyButton value={sent.invite_url}>
                {({ copied, copy }) => (
                  <Button size="xs" variant={copied ? 'light' : 'filled'} color={copied ? 'teal' : 'blue'} onClick={copy}>
                    {copied ? 'Copied' : 'Copy invitation link'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      ) : null}
    </Stack>
  );
}
