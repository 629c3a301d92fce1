import { Alert, Button, Group, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { errorInWords } from '../../api/fieldErrors';
import { hasProblems, newPasswordProblems, NewPasswordFields, PageHeader, useApiMutation, type NewPasswordProblems } from '../../components';
import { useSession } from '../../session';

/** The form's labels by API field: shown on the inputs, and in a refusal's words. */
const LABELS = { current_password: 'Current password', new_password: 'New password' } as const;

/** The signed-in account: who it is, its roles, and changing its password. */
export function AccountPage() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problems, setProblems] = useState<NewPasswordProblems>({});
  const change = useApiMutation({
    mutationFn: () => call(portal.POST('/account/password', { body: { current_password: current, new_password: next } })),
    success: (changed) =>
      `Password changed.${changed.ended_sessions ? ` ${changed.ended_sessions} other session${changed.ended_sessions === 1 ? '' : 's'} signed out.` : ''}`,
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setConfirm('');
    },
    labels: LABELS,
  });
  // A refusal about no field of the form (too many attempts…) shows above it; the others under their fields.
  const general = change.error && Object.keys(change.fieldErrors).length === 0 ? errorInWords(change.error, LABELS) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = newPasswordProblems(next, confirm, LABELS.new_password);
    setProblems(found);
    if (!hasProblems(found)) change.mutate();
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
              {general ? (
                <Alert color="red" role="alert">
                  {general}
                </Alert>
              ) : null}
              <PasswordInput
                label={LABELS.current_password}
                error={change.fieldErrors.current_password}
                autoComplete="current-password"
                required
                value={current}
                onChange={(event) => setCurrent(event.currentTarget.value)}
              />
              <NewPasswordFields
                label={LABELS.new_password}
                password={next}
                confirm={confirm}
                onPassword={setNext}
                onConfirm={setConfirm}
                errors={{ password: problems.password ?? change.fieldErrors.new_password, confirm: problems.confirm }}
              />
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
