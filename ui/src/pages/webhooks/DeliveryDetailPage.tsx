import { Anchor, Button, Card, Code, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Link, useNavigate, useParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, Fact, Facts, formatDateSeconds, formatRelative, PageHeader, QueryError, Section, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { CopyAsCurl } from './CopyAsCurl';
import { deliveriesKey, deliveryKey, DELIVERY_STATUS_WORDS, useEndpoints, type DeliveryAttempt } from './webhooks';

/** States that can still change on their own: the page refreshes while the delivery is in one. */
const UNSETTLED = new Set(['pending', 'delivering', 'failed']);
const REFRESH_MS = 3_000;

const attemptColumns: ColumnDef<DeliveryAttempt>[] = [
  { header: '#', id: 'number', cell: ({ row }) => row.index + 1 },
  { header: 'Time', id: 'at', cell: ({ row }) => <span title={row.original.at}>{formatDateSeconds(row.original.at)}</span> },
  {
    header: 'Result',
    id: 'result',
    cell: ({ row }) => (
      <Stack gap={0}>
        <Text size="sm" fw={500} c={row.original.error ? 'red' : 'teal'}>
          {row.original.response_status ?? 'no answer'}
        </Text>
        {row.original.error ? (
          <Text size="xs" c="dimmed" ff="monospace">
            {row.original.error}
          </Text>
        ) : null}
      </Stack>
    ),
  },
  { header: 'Duration', id: 'duration', cell: ({ row }) => (row.original.response_time_ms === null ? '—' : `${row.original.response_time_ms} ms`) },
  {
    header: 'Response body',
    id: 'body',
    cell: ({ row }) =>
      row.original.response_body ? (
        // Scrolls within its box: focusable and named, so a keyboard can scroll it.
        <Code
          block
          tabIndex={0}
          role="region"
          aria-label="Response body"
          style={{ maxHeight: 160, maxWidth: 480, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
        >
          {row.original.response_body}
        </Code>
      ) : (
        <Text size="sm" c="dimmed">
          empty
        </Text>
      ),
  },
];

export function DeliveryDetailPage() {
  const institution = useInstitution();
  const navigate = useNavigate();
  const { deliveryId = '' } = useParams();
  const endpoints = useEndpoints(institution.id);
  const detail = useQuery({
    queryKey: deliveryKey(institution.id, deliveryId),
    queryFn: () =>
      call(portal.GET('/institutions/{institution}/webhooks/deliveries/{id}', { params: { path: { institution: institution.id, id: deliveryId } } })),
    refetchInterval: (query) => (query.state.data && UNSETTLED.has(query.state.data.status) ? REFRESH_MS : false),
  });
  const replay = useApiMutation({
    mutationFn: () =>
      call(portal.POST('/institutions/{institution}/webhooks/deliveries/{id}/replay', { params: { path: { institution: institution.id, id: deliveryId } } })),
    invalidate: [deliveriesKey(institution.id)],
    success: 'Replay queued: the same event goes to the endpoint again as a new delivery.',
    onSuccess: (created) => navigate(`../${created.id}`, { relative: 'path' }),
  });

  const back = (
    <Anchor component={Link} to=".." relative="path" size="sm">
      ← All deliveries
    </Anchor>
  );
  if (detail.error) {
    return (
      <Stack>
        {back}
        <QueryError error={detail.error} />
      </Stack>
    );
  }
  const delivery = detail.data;
  if (!delivery) {
    return (
      <Stack aria-busy="true" aria-label="Loading">
        {back}
        <Skeleton height={40} />
        <Skeleton height={160} />
      </Stack>
    );
  }
  const endpoint = endpoints.data?.find((entry) => entry.id === delivery.endpoint_id);

  return (
    <Stack gap="lg">
      {back}
      <PageHeader
        title={delivery.event_type}
        description={
          <>
            Delivery <Code>{delivery.id}</Code> of event <Code title={delivery.event_id}>{delivery.event_type}</Code>
          </>
        }
        actions={
          <>
            <CopyAsCurl institutionId={institution.id} deliveryId={delivery.id} />
            <Button
              onClick={() => replay.mutate()}
              loading={replay.isPending}
              disabled={endpoint !== undefined && endpoint.status !== 'active'}
              title={endpoint && endpoint.status !== 'active' ? `The endpoint is ${endpoint.status}` : undefined}
            >
              Replay
            </Button>
          </>
        }
      />

      <Card withBorder>
        <Facts mb={0}>
          <Fact label="Status">
            <StatusBadge status={delivery.status} label={DELIVERY_STATUS_WORDS[delivery.status]} />
          </Fact>
          <Fact label="Endpoint">
            <Anchor
              component={Link}
              to={`..?endpoint_id=${encodeURIComponent(delivery.endpoint_id)}`}
              relative="path"
              size="sm"
              ff="monospace"
              style={{ wordBreak: 'break-all' }}
              title={delivery.endpoint_id}
            >
              {endpoint?.url ?? delivery.endpoint_id}
            </Anchor>
            {endpoint?.description ? (
              <Text size="xs" c="dimmed">
                {endpoint.description}
              </Text>
            ) : null}
          </Fact>
          <Fact label="Attempts">
            <Text size="sm">{delivery.attempt_count}</Text>
          </Fact>
          <Fact label="Next attempt">
            <Text size="sm" title={formatDateSeconds(delivery.next_attempt_at)}>
              {delivery.next_attempt_at ? formatRelative(delivery.next_attempt_at) : '—'}
            </Text>
          </Fact>
          <Fact label="Created">
            <Text size="sm">{formatDateSeconds(delivery.created_at)}</Text>
          </Fact>
          <Fact label="Last attempt">
            <Text size="sm">{formatDateSeconds(delivery.last_attempt_at)}</Text>
          </Fact>
          <Fact label="Replay of">
            {delivery.replay_of ? (
              <Anchor component={Link} to={`../${delivery.replay_of}`} relative="path" size="sm" title={delivery.replay_of}>
                the first delivery
              </Anchor>
            ) : (
              <Text size="sm">—</Text>
            )}
          </Fact>
        </Facts>
      </Card>

      <Section title="Attempts">
        <DataTable
          label="Attempts"
          columns={attemptColumns}
          data={delivery.attempts}
          isLoading={false}
          empty={{
            title: 'No attempts yet',
            description: delivery.status === 'pending' ? 'It is queued; it goes out when the endpoint is active.' : undefined,
          }}
        />
      </Section>

      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Section title="Request headers">
          <Table withTableBorder fz="sm" aria-label="Request headers">
            <Table.Tbody>
              {delivery.request_headers.map((header) => (
                <Table.Tr key={header.name}>
                  <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
                    <Code>{header.name}</Code>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    <Text size="sm" ff="monospace">
                      {header.value}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Text size="xs" c="dimmed">
            Signatures are computed afresh at each attempt, with the secrets valid then; Copy as curl signs a copy now.{' '}
            <Anchor component={Link} to={`../../signature-check?endpoint_id=${encodeURIComponent(delivery.endpoint_id)}`} relative="path" underline="always">
              Check a signature
            </Anchor>
          </Text>
        </Section>
        <Section title="Payload">
          <Code block tabIndex={0} role="region" aria-label="Payload" style={{ maxHeight: 420, overflow: 'auto' }}>
            {JSON.stringify(delivery.payload, null, 2)}
          </Code>
        </Section>
      </SimpleGrid>
    </Stack>
  );
}
