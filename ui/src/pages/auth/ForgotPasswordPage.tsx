import { Alert, Anchor, Button, Code, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { errorInWords, fieldErrors } from '../../api/fieldErrors';
import { QueryError } from '../../components';
import { AuthFrame } from './AuthFrame';

export const passwordResetStateKey = ['password-reset'] as const;

/** What to do without a mail server: the operator sets a new password (portal or CLI). */
export function AskTheOperator() {
  return (
    <Text size="sm">
      This appliance has no mail server, so it cannot mail you a link. Ask the person who runs it (the operator) to set a new password for you: on the
      operator's Accounts page, or on the appliance with <Code>npm run -s cli -- account password --email you@school.example</Code>.
    </Text>
  );
}

/** The form's label by API field: shown on the input, and in a refusal's words. */
const LABELS = { email: 'Email' } as const;

/** `#/forgot-password`: asks for a link by mail when a mail server is set up; otherwise says whom to ask. */
export function ForgotPasswordPage() {
  const state = useQuery({ queryKey: passwordResetStateKey, queryFn: () => call(portal.GET('/password-reset')) });
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => call(portal.POST('/password-reset', { body: { email: email.trim() } })) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  const errors = fieldErrors(request.error, LABELS);

  let body;
  if (state.error) body = <QueryError error={state.error} />;
  else if (!state.data) body = <Loader aria-label="Loading" />;
  else if (!state.data.available) body = <AskTheOperator />;
  else if (request.isSuccess) {
    body = (
      <Alert color="teal" role="status" title="Check your mail">
        If {email.trim()} has an account here, a link to set a new password is on its way. It works once, within one hour.
      </Alert>
    );
  } else {
    body = (
      <form onSubmit={submit} aria-label="Forgot password">
        <Stack>
          {request.error && !errors.email ? (
            <Alert color="red" role="alert">
              {errorInWords(request.error, LABELS)}
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
          <Button type="submit" loading={request.isPending}>
            Mail me a link
          </Button>
        </Stack>
      </form>
    );
  }
  return (
    <AuthFrame title="Forgot your password?" subtitle="Get a link to choose a new one.">
      {body}
      <Anchor href="#/" size="sm">
        Back to sign-in
      </Anchor>
    </AuthFrame>
  );
}
