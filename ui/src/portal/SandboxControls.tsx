import { Alert, Button, Group, SegmentedControl, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { call, portal } from '../api/portal';
import { ConfirmModal, notifyError, useApiMutation } from '../components';
import { sessionQueryKey, useInstitution, type CurrentInstitution } from '../session';

/**
 * The portal's sandbox view (docs/decisions/sandbox.md): the same pages at `/i/<sandbox id>/…`,
 * whose requests then name the sandbox, with an orange banner on every page so nobody mistakes
 * it for live data. Keys, the team and the audit log are the live institution's only.
 */

/** The colour of everything that says "sandbox". */
export const SANDBOX_COLOR = 'orange';
/** The same, dark enough for white text on it (and for it as text on white): 6.9:1. */
export const SANDBOX_STRONG = '#9a3c00';

/** The same page in the other environment: the address with the institution id swapped. */
function otherAddress(pathname: string, institution: CurrentInstitution, targetId: string): string {
  return pathname.replace(`/i/${institution.id}`, `/i/${targetId}`);
}

/** Live | Sandbox, in the header of every institution page. Opening the sandbox the first time makes it. */
export function EnvironmentSwitch() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const switchTo = async (environment: string) => {
    if (environment === institution.environment) return;
    if (environment === 'live') return navigate(otherAddress(pathname, institution, institution.liveId));
    try {
      const sandboxId = institution.sandboxId ?? (await call(portal.POST('/institutions/{id}/sandbox', { params: { path: { id: institution.liveId } } }))).id;
      // The session lists each membership's sandbox: read it again so the new id is known.
      if (!institution.sandboxId) await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
      navigate(otherAddress(pathname, institution, sandboxId));
    } catch (error) {
      notifyError(error);
    }
  };
  return (
    <SegmentedControl
      aria-label="Environment"
      size="xs"
      value={institution.environment}
      onChange={(value) => void switchTo(value)}
      color={institution.environment === 'sandbox' ? SANDBOX_STRONG : undefined}
      // White on the dark sandbox colour, dark on live's; no slide, so the label is never white on white.
      autoContrast
      transitionDuration={0}
      data={[
        { value: 'live', label: 'Live' },
        { value: 'sandbox', label: 'Sandbox' },
      ]}
    />
  );
}

/** On every sandbox page: what the sandbox is, and (for admins) its reset. */
export function SandboxBanner() {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const [confirming, { open, close }] = useDisclosure();
  const reset = useApiMutation({
    mutationFn: () => call(portal.POST('/institutions/{id}/sandbox/reset', { params: { path: { id: institution.liveId } } })),
    success: 'The sandbox is empty again; its keys still work.',
    onSuccess: () => {
      close();
      void queryClient.invalidateQueries({ queryKey: ['institution', institution.id] });
    },
  });
  if (institution.environment !== 'sandbox') return null;
  return (
    <Alert color={SANDBOX_STRONG} variant="filled" title="Sandbox" mb="md" role="status" aria-label="Sandbox">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm" c="white">
          You are in {institution.name}'s sandbox: test data, kept apart from live data. Sandbox keys (cb_test_…) act here only, its webhooks go to its own
          endpoints, and its mail is never sent.
        </Text>
        {institution.role === 'admin' ? (
          <Button size="xs" variant="white" color={SANDBOX_STRONG} onClick={open}>
            Reset sandbox
          </Button>
        ) : null}
      </Group>
      <ConfirmModal
        opened={confirming}
        title="Reset the sandbox?"
        confirmLabel="Delete all sandbox data"
        color="red"
        loading={reset.isPending}
        onConfirm={() => reset.mutate()}
        onClose={close}
      >
        <Text size="sm">
          Every student, teacher, group, exam, webhook endpoint, event and delivery of the sandbox is deleted. Live data is not touched, and sandbox keys keep
          working.
        </Text>
      </ConfirmModal>
    </Alert>
  );
}

/** A page that belongs to the live institution only: in the sandbox view, the same page of live. */
export function LiveOnlyGate({ children }: { children: ReactNode }) {
  const institution = useInstitution();
  const { pathname } = useLocation();
  if (institution.environment === 'live') return children;
  return <Navigate to={otherAddress(pathname, institution, institution.liveId)} replace />;
}
