import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api } from '../../api/client';
import { ConfirmModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { onerosterKey, type SyncResult } from './oneroster';
import { SyncResultAlert } from './SyncResultAlert';

/** Test the connection, run a dry run or sync now, and apply a held-back sync. */
export function SyncCard() {
  const institution = useInstitution();
  const [last, setLast] = useState<SyncResult | null>(null);
  const [tested, setTested] = useState<{ ok: boolean; message: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const test = useApiMutation({
    mutationFn: () => api.post<{ ok: boolean; message: string }>(`/institutions/${institution.id}/oneroster/test`),
    onSuccess: setTested,
  });
  const sync = useApiMutation({
    mutationFn: (body: { dry_run?: boolean; confirm?: boolean }) => api.post<SyncResult>(`/institutions/${institution.id}/oneroster/sync`, body),
    invalidate: [onerosterKey(institution.id)],
    onSuccess: (result) => {
      setLast(result);
      setConfirming(false);
    },
  });
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Group>
          <Button variant="default" loading={test.isPending} onClick={() => test.mutate()}>
            Test connection
          </Button>
          <Button variant="default" loading={sync.isPending && sync.variables?.dry_run === true} onClick={() => sync.mutate({ dry_run: true })}>
            Dry run
          </Button>
          <Button loading={sync.isPending && !sync.variables?.dry_run} onClick={() => sync.mutate({})}>
            Sync now
          </Button>
        </Group>
        {tested ? (
          <Alert color={tested.ok ? 'green' : 'red'} title={tested.ok ? 'The SIS answered' : 'The connection failed'} role="status">
            {tested.message}
          </Alert>
        ) : null}
        {last ? <SyncResultAlert result={last} applyLabel="Review and apply…" onApply={() => setConfirming(true)} /> : null}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title="Apply the held-back sync?"
        confirmLabel="Apply the sync"
        color="orange"
        loading={sync.isPending}
        onConfirm={() => sync.mutate({ confirm: true })}
        onClose={() => setConfirming(false)}
      >
        <Text size="sm">{last?.reason}</Text>
        <Text size="sm">The suspended people lose access at once; a later sync reactivates anyone the SIS lists as active again.</Text>
      </ConfirmModal>
    </Card>
  );
}
