import { Anchor, Button, Card, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { call, portal } from '../../api/portal';
import { StatusBadge, useApiMutation } from '../../components';
import { deliveriesKey, deliveryKey, useEventTypes, type WebhookEndpoint } from './webhooks';

const SETTLED = new Set(['succeeded', 'dead']);

/** "Send an example": a realistic sample event of a chosen type, as a normal delivery, with its result as it comes. */
export function SendExampleCard({ institutionId, endpoint }: { institutionId: string; endpoint: WebhookEndpoint }) {
  const types = useEventTypes(institutionId);
  const [type, setType] = useState<string | null>(null);
  const [sentId, setSentId] = useState<string | null>(null);
  const send = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/webhooks/endpoints/{id}/example', {
          params: { path: { institution: institutionId, id: endpoint.id } },
          // The picker lists the server's own event types, and the button waits for one; the server checks it.
          body: { type } as never,
        }),
      ),
    invalidate: [deliveriesKey(institutionId)],
    onSuccess: (delivery) => setSentId(delivery.id),
  });
  const sent = useQuery({
    queryKey: deliveryKey(institutionId, sentId ?? ''),
    // Only enabled once an example was sent, so the id is there when this runs.
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/webhooks/deliveries/{id}', { params: { path: { institution: institutionId, id: sentId ?? '' } } })),
    enabled: sentId !== null,
    refetchInterval: (query) => (query.state.data && SETTLED.has(query.state.data.status) ? false : 1_000),
  });
  const result = sent.data;
  const lastAttempt = result?.attempts.at(-1);
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={3} size="h5">
          Send an example
        </Title>
        <Text size="sm" c="dimmed">
          A realistic sample event, signed and logged like any delivery, with <code>&quot;example&quot;: true</code> in its body; its ids name no real record.
        </Text>
        <Group align="flex-end" gap="sm">
          <Select
            label="Event type"
            searchable
            data={(types.data ?? []).map((entry) => ({ value: entry.type, label: entry.type }))}
            value={type}
            onChange={setType}
            allowDeselect={false}
            placeholder="Choose a type"
            w={300}
          />
          <Button
            onClick={() => send.mutate()}
            loading={send.isPending}
            disabled={!type || endpoint.status !== 'active'}
            title={endpoint.status !== 'active' ? `The endpoint is ${endpoint.status}` : undefined}
          >
            Send example
          </Button>
        </Group>
        {result ? (
          <Group gap="sm" role="status" aria-label="Example delivery">
            <StatusBadge status={result.status} />
            <Text size="sm">
              {result.event_type}:{' '}
              {lastAttempt
                ? lastAttempt.response_status === null
                  ? `no answer (${lastAttempt.error})`
                  : `answered ${lastAttempt.response_status} in ${lastAttempt.response_time_ms} ms`
                : 'sending…'}
            </Text>
            <Anchor component={Link} to={`/i/${institutionId}/webhooks/deliveries/${result.id}`} size="sm">
              Open the delivery
            </Anchor>
          </Group>
        ) : null}
      </Stack>
    </Card>
  );
}
