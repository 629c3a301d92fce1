import { Alert, Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { errorInWords, fieldErrors } from '../../api/fieldErrors';
import { sessionQueryKey } from '../../session';
import { AuthFrame } from './AuthFrame';
import { AskTheOperator, passwordResetStateKey } from './ForgotPasswordPage';

/** The form's labels by API field: shown on the inputs, and in a refusal's words. */
const LABELS = { email: 'Email', password: 'Password' } as const;

export function SignInPage() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [forgot, setForgot] = useState(false);
  // Whether "forgot password" can mail a link; without a mail server the page says whom to ask instead.
  const reset = useQuery({ queryKey: passwordResetStateKey, queryFn: () => call(portal.GET('/password-reset')) });
  const signIn = useMutation({
    mutationFn: () => call(portal.POST('/login', { body: { email, password } })),
    onSuccess: (session) => queryClient.setQueryData(sessionQueryKey, session),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const errors = fieldErrors(signIn.error, LABELS);

  return (
    <AuthFrame title="Sign in" subtitle="Manage your institution's API keys, developers and webhooks.">
      <form onSubmit={submit} aria-label="Sign in">
        <Stack>
          {signIn.error && Object.keys(errors).length === 0 ? (
            <Alert color="red" role="alert">
              {errorInWords(signIn.error, LABELS)}
            </Alert>
          ) : null}
          <TextInput
            label={LABELS.email}
            error={errors.email}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            autoFocus
          />
          <PasswordInput
            label={LABELS.password}
            error={errors.password}
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
          />
          <Button type="submit" loading={signIn.isPending}>
            Sign in
          </Button>
          {reset.data?.available ? (
            <Anchor href="#/forgot-password" size="sm">
              Forgot your password?
            </Anchor>
          ) : forgot ? (
            <AskTheOperator />
          ) : (
            <Anchor component="button" type="button" size="sm" onClick={() => setForgot(true)}>
              Forgot your password?
            </Anchor>
          )}
        </Stack>
      </form>
    </AuthFrame>
  );
}
