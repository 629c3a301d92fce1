import { Alert, Anchor, Button, Stack } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { errorInWords, fieldErrors } from '../../api/fieldErrors';
import { hasProblems, newPasswordProblems, NewPasswordFields, type NewPasswordProblems } from '../../components';
import { AuthFrame } from './AuthFrame';

/** `#/reset-password?token=…`, the link of a "forgot password" mail. */
/** The form's label by API field: shown on the input, and in a refusal's words. */
const LABELS = { password: 'New password' } as const;

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problems, setProblems] = useState<NewPasswordProblems>({});
  const reset = useMutation({ mutationFn: () => call(portal.POST('/password-reset/complete', { body: { token, password } })) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = newPasswordProblems(password, confirm, LABELS.password);
    setProblems(found);
    if (!hasProblems(found)) reset.mutate();
  };
  const serverErrors = fieldErrors(reset.error, LABELS);

  if (reset.isSuccess) {
    return (
      <AuthFrame title="Password changed">
        <Alert color="teal" role="status">
          The password of {reset.data.email} is changed, and every session of that account was signed out.
        </Alert>
        <Button component="a" href="#/">
          Sign in
        </Button>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title="Choose a new password">
      {token ? (
        <form onSubmit={submit} aria-label="Choose a new password">
          <Stack>
            {reset.error && !serverErrors.password ? (
              <Alert color="red" role="alert">
                {errorInWords(reset.error, LABELS)}
              </Alert>
            ) : null}
            <NewPasswordFields
              label={LABELS.password}
              password={password}
              confirm={confirm}
              onPassword={setPassword}
              onConfirm={setConfirm}
              errors={{ password: problems.password ?? serverErrors.password, confirm: problems.confirm }}
              autoFocus
            />
            <Button type="submit" loading={reset.isPending}>
              Set password
            </Button>
          </Stack>
        </form>
      ) : (
        <Alert color="red" role="alert">
          This link has no token in it. Open the link from the mail, or ask for a new one.
        </Alert>
      )}
      <Anchor href="#/forgot-password" size="sm">
        Ask for a new link
      </Anchor>
    </AuthFrame>
  );
}
