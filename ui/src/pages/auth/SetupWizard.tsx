import { Alert, Button, Group, List, Stack, Stepper, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal, setCsrfToken } from '../../api/portal';
import { errorInWords } from '../../api/fieldErrors';
import { hasProblems, newPasswordProblems, NewPasswordFields, notifyError, type NewPasswordProblems } from '../../components';
import { sessionQueryKey } from '../../session';
import { AuthFrame } from './AuthFrame';
import { SetupAddressStep, type ChosenAddress } from './SetupAddressStep';

/** The wizard's labels by API field: shown on the inputs, and in a refusal's words (the last step names the earlier steps' fields). */
const LABELS = { admin_email: 'Email', admin_password: 'Password', institution: 'Institution name' } as const;

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
  const [address, setAddress] = useState<ChosenAddress>(null);
  const [accountProblems, setAccountProblems] = useState<NewPasswordProblems>({});

  const setup = useMutation({
    mutationFn: () => call(portal.POST('/setup', { body: { institution: institution.trim(), admin_email: email.trim(), admin_password: password } })),
    onSuccess: async (session) => {
      if (address) {
        // Signed in as the operator now: the address is an appliance setting like any other.
        setCsrfToken(session.csrf_token);
        try {
          await call(portal.PUT('/operator/settings/{name}', { params: { path: { name: 'public_url' } }, body: { value: address } }));
        } catch (error) {
          notifyError(`The address was not saved (${error instanceof Error ? error.message : String(error)}); set it in Appliance → Settings.`);
        }
      }
      queryClient.setQueryData(sessionQueryKey, session);
      queryClient.setQueryData(['setup'], { needed: false });
      window.location.hash = '#/';
    },
  });

  const nextFromAccount = (event: FormEvent) => {
    event.preventDefault();
    const found = newPasswordProblems(password, confirm, LABELS.admin_password);
    setAccountProblems(found);
    if (!hasProblems(found)) setStep(1);
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
    <AuthFrame title="Set up CampusBridge" subtitle="This appliance has no accounts yet. Four short steps and your LMS can connect." width={560}>
      <Stepper active={step} onStepClick={(index) => index < step && setStep(index)} size="sm">
        <Stepper.Step label="Operator" description="Your account">
          <form onSubmit={nextFromAccount} aria-label="Operator account">
            <Stack mt="md">
              <Text size="sm" c="dimmed">
                You run this appliance: you approve institutions and you are the first institution's admin.
              </Text>
              <TextInput
                label={LABELS.admin_email}
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(event) => setEmail(event.currentTarget.value)}
                autoFocus
              />
              <NewPasswordFields
                label={LABELS.admin_password}
                password={password}
                confirm={confirm}
                onPassword={setPassword}
                onConfirm={setConfirm}
                errors={accountProblems}
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
                label={LABELS.institution}
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
        <Stepper.Step label="Address" description="How others reach it">
          <SetupAddressStep
            onBack={() => setStep(1)}
            onNext={(chosen) => {
              setAddress(chosen);
              setStep(3);
            }}
          />
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
                <List.Item>
                  Address: <b>{address ?? 'this computer only'}</b>
                </List.Item>
              </List>
              {setup.error ? (
                <Alert color="red" role="alert">
                  {errorInWords(setup.error, LABELS)}
                </Alert>
              ) : null}
              <Group justify="space-between">
                <Button variant="default" onClick={() => setStep(2)}>
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
