import { Alert, Button, Group, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import type { passwordChangedSchema } from '../../../../server/routes/account/password';
import { api } from '../../api/client';
import { newPasswordProblem, NewPasswordFields, PageHeader, useApiMutation } from '../../components';
import { useSession } from '../../session';

/** As POST /portal/api/account/password (type-only import of the server's schema). */
type PasswordChanged = z.input<typeof passwordChangedSchema>;

/** The signed-in account: who it is, its roles, and changing its password. */
export function AccountPage() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const change = useApiMutation({
    mutationFn: () => api.post<PasswordChanged>('/account/password', { current_password: current, new_password: next }),
    success: (changed) =>
      `Password changed.${changed.ended_sessions ? ` ${changed.ended_sessions} other session${changed.ended_sessions === 1 ? '' : 's'} signed out.` : ''}`,
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setConfirm('');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const why = newPasswordProblem(next, confirm);
    setProblem(why);
    if (!why) change.mutate();
  };

  const roles = [
    ...(session.account.is_operator ? ['Appliance operator'] : []),
    ...session.memberships.map(({ institution, role }) => `${role} of ${institution.name}`),
  ];
  return (
    <>
      <PageHeader title="Your account" description={session.account.email} />
      <Stack gap="xl" maw={520}>
        <Text size="sm">{roles.length ? `You are: ${roles.join('; ')}.` : 'This account is not a member of any institution.'}</Text>
        <Paper withBorder p="lg">
          <form onSubmit={submit} aria-label="Change password">
            <Stack>
              <Text fw={600}>Change password</Text>
              <Text size="sm" c="dimmed">
                Your other sessions (other browsers, the desktop app) are signed out; this one stays.
              </Text>
              {problem || change.error ? (
                <Alert color="red" role="alert">
                  {problem ?? change.error?.message}
                </Alert>
              ) : null}
              <PasswordInput
                label="Current password"
                autoComplete="current-password"
                required
                value={current}
                onChange={(event) => setCurrent(event.currentTarget.value)}
              />
              <NewPasswordFields password={next} confirm={confirm} onPassword={setNext} onConfirm={setConfirm} />
              <Group justify="flex-end">
                <Button type="submit" loading={change.isPending}>
                  Change password
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      </Stack>
    </>
  );
}
