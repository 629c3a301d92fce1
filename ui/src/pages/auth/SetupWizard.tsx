import { Alert, Button, Group, List, PasswordInput, Stack, Stepper, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { sessionQueryKey, type PortalSession } from '../../session';
import { AuthFrame } from './AuthFrame';

const MIN_PASSWORD = 10;

/**
 * First run, as `cli setup`: the operator account (also the first institution's admin, as on a
 * one-school appliance), the first institution. Ends signed in.
 */
export function SetupWizard() {
  const queryClient = useQueryClient();
  const [step, setStep] = useState(0);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [institution, setInstitution] = useState('');
  const [accountError, setAccountError] = useState<string | null>(null);

  const setup = useMutation({
    mutationFn: () => api.post<PortalSession>('/setup', { institution: institution.trim(), admin_email: email.trim(), admin_password: password }),
    onSuccess: async (session) => {
      queryClient.setQueryData(sessionQueryKey, session);
      queryClient.setQueryData(['setup'], { needed: false });
      window.location.hash = '#/';
    },
  });

  const nextFromAccount = (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) return setAccountError(`Use at least ${MIN_PASSWORD} characters for the password.`);
    if (password !== confirm) return setAccountError('The two passwords differ.');
    setAccountError(null);
    setStep(1);
  };
  const nextFromInstitution = (event: FormEvent) => {
    event.preventDefault();
    if (institution.trim()) setStep(2);
  };
  const finish = (event: FormEvent) => {
    event.preventDefault();
    setup.mutate();
  };

  return (
    <AuthFrame title="Set up CampusBridge" subtitle="This appliance has no accounts yet. Three short steps and your LMS can connect." width={560}>
      <Stepper active={step} onStepClick={(index) => index < step && setStep(index)} size="sm">
        <Stepper.Step label="Operator" description="Your account">
          <form onSubmit={nextFromAccount} aria-label="Operator account">
            <Stack mt="md">
              <Text size="sm" c="dimmed">
                You run this appliance: you approve institutions and you are the first institution's admin.
              </Text>
              {accountError ? (
                <Alert color="red" role="alert">
                  {accountError}
                </Alert>
              ) : null}
              <TextInput
                label="Email"
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(event) => setEmail(event.currentTarget.value)}
                autoFocus
              />
              <PasswordInput
                label="Password"
                description={`At least ${MIN_PASSWORD} characters.`}
                autoComplete="new-password"
                required
                value={password}
                onChange={(event) => setPassword(event.currentTarget.value)}
              />
              <PasswordInput
                label="Repeat the password"
                autoComplete="new-password"
                required
                value={confirm}
                onChange={(event) => setConfirm(event.currentTarget.value)}
              />
              <Group justify="flex-end">
                <Button type="submit">Next</Button>
              </Group>
            </Stack>
          </form>
        </Stepper.Step>
        <Stepper.Step label="Institution" description="Your school">
          <form onSubmit={nextFromInstitution} aria-label="First institution">
            <Stack mt="md">
              <TextInput
                label="Institution name"
                description="As students and guardians will see it."
                required
                maxLength={200}
                value={institution}
                onChange={(event) => setInstitution(event.currentTarget.value)}
                autoFocus
              />
              <Group justify="space-between">
                <Button variant="default" onClick={() => setStep(0)}>
                  Back
                </Button>
                <Button type="submit">Next</Button>
              </Group>
            </Stack>
          </form>
        </Stepper.Step>
        <Stepper.Step label="Admin" description="Review">
          <form onSubmit={finish} aria-label="Review">
            <Stack mt="md">
              <List size="sm" spacing="xs">
                <List.Item>
                  Operator and admin: <b>{email}</b>
                </List.Item>
                <List.Item>
                  Institution: <b>{institution}</b> (approved)
                </List.Item>
              </List>
              {setup.error ? (
                <Alert color="red" role="alert">
                  {setup.error.message}
                </Alert>
              ) : null}
              <Group justify="space-between">
                <Button variant="default" onClick={() => setStep(1)}>
                  Back
                </Button>
                <Button type="submit" loading={setup.isPending}>
                  Create and sign in
                </Button>
              </Group>
            </Stack>
          </form>
        </Stepper.Step>
      </Stepper>
    </AuthFrame>
  );
}
