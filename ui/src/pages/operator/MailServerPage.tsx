import { Alert, Button, Card, Checkbox, Group, NumberInput, PasswordInput, Skeleton, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal, type PortalPaths } from '../../api/portal';
import { ConfirmModal, formatDate, PageHeader, QueryError, useApiMutation } from '../../components';
import { useSession } from '../../session';
import { operatorKey, type SmtpSettings, type TestMailResult } from './operator';

const smtpKey = operatorKey('smtp');
/** The forms' labels by API field: shown on the inputs, and in a refusal's words. */
const SMTP_LABELS = { host: 'Host', port: 'Port', secure: 'TLS from the start (port 465)', user: 'User', password: 'Password', from: 'From' } as const;
const TEST_LABELS = { to: 'To' } as const;

/** What PUT /operator/smtp takes. */
type SmtpInput = PortalPaths['/operator/smtp']['put']['requestBody']['content']['application/json'];

function SettingsForm({ saved }: { saved: SmtpSettings | null }) {
  const [host, setHost] = useState(saved?.host ?? '');
  const [port, setPort] = useState<number | string>(saved?.port ?? 587);
  const [secure, setSecure] = useState(saved?.secure ?? false);
  const [user, setUser] = useState(saved?.user ?? '');
  const [password, setPassword] = useState('');
  const [removePassword, setRemovePassword] = useState(false);
  const [from, setFrom] = useState(saved?.from ?? '');

  const save = useApiMutation({
    mutationFn: (body: SmtpInput) => call(portal.PUT('/operator/smtp', { body })),
    invalidate: [smtpKey],
    success:
      'Mail server saved. Mail waiting in the outboxes goes out now; what went stale meanwhile (expired invitations, closed exams) is dropped, not sent.',
    labels: SMTP_LABELS,
  });
  const sameUser = Boolean(saved?.password_set) && user.trim() === (saved?.user ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmedUser = user.trim();
    save.mutate({
      host: host.trim(),
      port: Number(port),
      secure,
      user: trimmedUser || null,
      // Left blank: the server keeps the saved password for the same user.
      ...(password ? { password } : removePassword ? { password: null } : {}),
      from: from.trim(),
    });
  };

  return (
    <form onSubmit={submit} aria-label="Mail server">
      <Stack>
        <Group grow align="flex-start">
          <TextInput
            label={SMTP_LABELS.host}
            error={save.fieldErrors.host}
            description="Name or IP address of the SMTP server"
            required
            maxLength={255}
            value={host}
            onChange={(event) => setHost(event.currentTarget.value)}
          />
          <NumberInput
            label={SMTP_LABELS.port}
            error={save.fieldErrors.port}
            description="Usually 587 (STARTTLS) or 465 (TLS)"
            required
            min={1}
            max={65535}
            allowDecimal={false}
            allowNegative={false}
            value={port}
            onChange={setPort}
          />
        </Group>
        <Switch
          label={SMTP_LABELS.secure}
          error={save.fieldErrors.secure}
          description="Off: a plain connection upgraded with STARTTLS whenever the server offers it."
          checked={secure}
          onChange={(event) => setSecure(event.currentTarget.checked)}
        />
        <Group grow align="flex-start">
          <TextInput
            label={SMTP_LABELS.user}
            error={save.fieldErrors.user}
            description="Leave empty if the server needs no sign-in"
            maxLength={320}
            value={user}
            onChange={(event) => setUser(event.currentTarget.value)}
            autoComplete="off"
          />
          <PasswordInput
            label={SMTP_LABELS.password}
            error={save.fieldErrors.password}
            description={sameUser ? 'A password is saved; leave empty to keep it.' : 'Needs a user.'}
            maxLength={500}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            disabled={removePassword}
            autoComplete="new-password"
          />
        </Group>
        {sameUser ? (
          <Checkbox label="Remove the saved password" checked={removePassword} onChange={(event) => setRemovePassword(event.currentTarget.checked)} />
        ) : null}
        <TextInput
          label={SMTP_LABELS.from}
          error={save.fieldErrors.from}
          description='The sender of every message, such as "Riverside High <noreply@riverside.example>"'
          required
          maxLength={320}
          value={from}
          onChange={(event) => setFrom(event.currentTarget.value)}
        />
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            {saved ? `Saved ${formatDate(saved.updated_at)}.` : 'Not configured: mail waits in each institution’s outbox.'}
          </Text>
          <Button type="submit" loading={save.isPending}>
            Save mail server
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TestMailCard({ configured }: { configured: boolean }) {
  const session = useSession();
  const [to, setTo] = useState(session.account.email);
  const [result, setResult] = useState<TestMailResult | null>(null);
  const send = useApiMutation({
    mutationFn: (address: string) => call(portal.POST('/operator/smtp/test', { body: { to: address } })),
    onSuccess: setResult,
    labels: TEST_LABELS,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    send.mutate(to.trim());
  };
  return (
    <Card withBorder padding="lg">
      <form onSubmit={submit} aria-label="Send a test message">
        <Stack>
          <Title order={4}>Send a test message</Title>
          <Group align="flex-end">
            <TextInput
              label={TEST_LABELS.to}
              error={send.fieldErrors.to}
              type="email"
              required
              maxLength={320}
              value={to}
              onChange={(event) => setTo(event.currentTarget.value)}
              w={320}
              disabled={!configured}
            />
            <Button type="submit" variant="default" loading={send.isPending} disabled={!configured}>
              Send test
            </Button>
          </Group>
          {!configured ? (
            <Text size="sm" c="dimmed">
              Save the mail server first.
            </Text>
          ) : null}
          {result ? (
            <Alert
              role="status"
              color={result.status === 'sent' ? 'teal' : result.status === 'failed' ? 'red' : 'yellow'}
              title={
                result.status === 'sent' ? 'The server accepted the message' : result.status === 'failed' ? 'The message was not sent' : 'The message is queued'
              }
            >
              {result.status === 'sent'
                ? `Sent to ${result.to}. If it does not arrive, check the spam folder and the server's sender rules.`
                : result.status === 'failed'
                  ? (result.error ?? 'The server refused it.')
                  : 'Older mail is being sent first; the test follows within a minute.'}
            </Alert>
          ) : null}
        </Stack>
      </form>
    </Card>
  );
}

function ClearModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const clear = useApiMutation({
    mutationFn: () => call(portal.DELETE('/operator/smtp')),
    invalidate: [smtpKey],
    success: 'Mail server removed. Mail now waits in the outboxes.',
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={opened}
      title="Remove the mail server?"
      confirmLabel="Remove"
      color="red"
      loading={clear.isPending}
      onConfirm={() => clear.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        No mail leaves the appliance until a server is saved again: guardian and developer invitations, reports and exam notices wait in each institution’s
        outbox.
      </Text>
    </ConfirmModal>
  );
}

export function MailServerPage() {
  const [clearing, { open: openClear, close: closeClear }] = useDisclosure(false);
  const smtp = useQuery({ queryKey: smtpKey, queryFn: () => call(portal.GET('/operator/smtp')) });
  return (
    <>
      <PageHeader
        title="Mail server"
        description="The SMTP server this appliance sends all mail through, for every institution. The password is stored encrypted and never shown again."
        actions={
          smtp.data ? (
            <Button variant="default" color="red" onClick={openClear}>
              Remove mail server
            </Button>
          ) : null
        }
      />
      <Stack gap="xl" maw={760}>
        {smtp.error ? (
          <QueryError error={smtp.error} />
        ) : smtp.isPending ? (
          <Stack gap="sm" aria-busy="true" aria-label="Loading">
            {[0, 1, 2].map((index) => (
              <Skeleton key={index} height={56} radius="sm" />
            ))}
          </Stack>
        ) : (
          // Re-mounted when the saved settings change, so the form starts from what the server holds.
          <SettingsForm key={smtp.data?.updated_at ?? 'none'} saved={smtp.data ?? null} />
        )}
        <TestMailCard configured={Boolean(smtp.data)} />
      </Stack>
      <ClearModal opened={clearing} onClose={closeClear} />
    </>
  );
}
