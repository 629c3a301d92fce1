import { Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, formatDateSeconds, useApiMutation } from '../../components';
import type { ReplaySinceRequest, ReplaySinceResult } from './debugging';
import { deliveriesKey, type WebhookEndpoint } from './webhooks';

const STATUS_OPTIONS = [
  { value: 'dead', label: 'Failed for good (dead)' },
  { value: 'failed', label: 'Waiting for a retry (failed)' },
];

/** `YYYY-MM-DDTHH:mm` in local time, what a datetime-local input holds: a day ago by default. */
function localInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/**
 * "Replay everything that failed since …": a dry run counts first, the confirmation says how many
 * will go out (and how many are skipped), then the replay.
 */
export function ReplaySinceCard({ institutionId, endpoint }: { institutionId: string; endpoint: WebhookEndpoint }) {
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 86_400_000)));
  const [status, setStatus] = useState<'dead' | 'failed'>('dead');
  const [count, setCount] = useState<ReplaySinceResult | null>(null);
  const sinceDate = new Date(since);
  const valid = since !== '' && !Number.isNaN(sinceDate.getTime());
  const run = (dryRun: boolean) =>
    call(
      portal.POST('/institutions/{institution}/webhooks/endpoints/{id}/replay', {
        params: { path: { institution: institutionId, id: endpoint.id } },
        body: { since: sinceDate.toISOString(), status, dry_run: dryRun } satisfies ReplaySinceRequest,
      }),
    );
  const preview = useApiMutation({ mutationFn: () => run(true), onSuccess: setCount });
  const replay = useApiMutation({
    mutationFn: () => run(false),
    invalidate: [deliveriesKey(institutionId)],
    success: (result) => `${result.replayed} ${result.replayed === 1 ? 'delivery' : 'deliveries'} replayed.`,
    onSuccess: () => setCount(null),
  });
  const skipped = count
    ? [
        count.already_replayed > 0 && `${count.already_replayed} replayed before`,
        count.beyond_limit > 0 && `${count.beyond_limit} beyond the ${count.limit} a replay takes`,
      ].filter(Boolean)
    : [];
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={3} size="h5">
          Replay what failed since…
        </Title>
        <Text size="sm" c="dimmed">
          Sends each failed delivery of this endpoint again, once, as a new delivery signed afresh: for after the receiver was down.
        </Text>
        <Group align="flex-end" gap="sm">
          <TextInput type="datetime-local" label="Since" value={since} onChange={(event) => setSince(event.currentTarget.value)} />
          <Select
            label="Deliveries"
            data={STATUS_OPTIONS}
            value={status}
            onChange={(value) => setStatus(value === 'failed' ? 'failed' : 'dead')}
            allowDeselect={false}
            w={260}
          />
          <Button
            onClick={() => preview.mutate()}
            loading={preview.isPending}
            disabled={!valid || endpoint.status !== 'active'}
            title={endpoint.status !== 'active' ? `The endpoint is ${endpoint.status}` : undefined}
          >
            Replay…
          </Button>
        </Group>
      </Stack>
      <ConfirmModal
        opened={count !== null}
        title="Replay failed deliveries"
        confirmLabel={count && count.replayed > 0 ? `Replay ${count.replayed}` : 'Nothing to replay'}
        loading={replay.isPending}
        onConfirm={() => (count && count.replayed > 0 ? replay.mutate() : setCount(null))}
        onClose={() => setCount(null)}
      >
        {count ? (
          <Stack gap="xs">
            <Text size="sm" data-testid="replay-count">
              {count.replayed === 0
                ? `No ${status} delivery of this endpoint since ${formatDateSeconds(sinceDate.toISOString())} is waiting for a replay.`
                : `${count.replayed} ${status} ${count.replayed === 1 ? 'delivery' : 'deliveries'} since ${formatDateSeconds(sinceDate.toISOString())} will be sent again to ${endpoint.url}.`}
            </Text>
            {skipped.length > 0 ? <Text size="sm">Skipped: {skipped.join('; ')}.</Text> : null}
          </Stack>
        ) : null}
      </ConfirmModal>
    </Card>
  );
}
