import { Alert, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { call, portal, setCsrfToken } from '../../api/portal';
import { errorInWords, fieldErrors } from '../../api/fieldErrors';
import { MIN_PASSWORD } from '../../components';
import { fetchSession, sessionQueryKey } from '../../session';
import { AuthFrame } from './AuthFrame';

/** The form's label by API field: shown on the input, and in a refusal's words. */
const LABELS = { password: 'Password' } as const;

/** `#/accept-invite?token=…`, the link of an invitation mail. */
export function AcceptInvitePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const accept = useMutation({
    mutationFn: () => call(portal.POST('/invitations/accept', { body: { token, password } })),
    onSuccess: async (accepted) => {
      setCsrfToken(accepted.csrf_token);
      queryClient.setQueryData(sessionQueryKey, await fetchSession());
      navigate(`/i/${accepted.institution_id}`, { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  const errors = fieldErrors(accept.error, LABELS);

  if (!token) {
    return (
      <AuthFrame title="Invitation">
        <Alert color="red" role="alert">
          This link has no invitation in it. Open the link from the invitation mail, or ask for a new one.
        </Alert>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title="Join your institution" subtitle="You were invited to an institution on this CampusBridge appliance, as an admin or a developer.">
      <form onSubmit={submit} aria-label="Accept invitation">
        <Stack>
          <Text size="sm" c="dimmed">
            New here? Choose a password (at least {MIN_PASSWORD} characters). Already have an account on this appliance? Enter its password.
          </Text>
          {accept.error && !errors.password ? (
            <Alert color="red" role="alert">
              {errorInWords(accept.error, LABELS)}
            </Alert>
          ) : null}
          <PasswordInput
            label={LABELS.password}
            error={errors.password}
            autoComplete="new-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            autoFocus
          />
          <Button type="submit" loading={accept.isPending}>
            Accept invitation
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
