import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { onerosterKey, type SyncResult } from './oneroster';
import { SyncResultAlert } from './SyncResultAlert';

/** A dry run or a sync now, and applying a held-back sync (the connection form tests the connection). */
export function SyncCard() {
  const institution = useInstitution();
  const [last, setLast] = useState<SyncResult | null>(null);
  const [confirming, setConfirming] = useState(false);
  const sync = useApiMutation({
    mutationFn: (body: { dry_run?: boolean; confirm?: boolean }) =>
      call(portal.POST('/institutions/{id}/oneroster/sync', { params: { path: { id: institution.id } }, body })),
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
          <Button variant="default" loading={sync.isPending && sync.variables?.dry_run === true} onClick={() => sync.mutate({ dry_run: true })}>
            Dry run
          </Button>
          <Button loading={sync.isPending && !sync.variables?.dry_run} onClick={() => sync.mutate({})}>
            Sync now
          </Button>
        </Group>
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
