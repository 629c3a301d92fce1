import { Alert, Button, Code, Menu, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { call, portal } from '../../api/portal';
import { DataTable, formatDate, PageHeader, RowActions, StatusBadge, TagBadges, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { CreateEndpointModal } from './CreateEndpointModal';
import { DeleteEndpointModal } from './DeleteEndpointModal';
import { EditEndpointModal } from './EditEndpointModal';
import { PingResultModal } from './PingResultModal';
import { RotateSecretModal } from './RotateSecretModal';
import {
  DISABLED_REASONS,
  MAX_CONSECUTIVE_FAILURES,
  MAX_ENDPOINTS,
  useEndpoints,
  webhooksKey,
  type EndpointStatus,
  type PingResult,
  type WebhookEndpoint,
} from './webhooks';

type Dialog = { kind: 'edit' | 'rotate' | 'delete'; endpoint: WebhookEndpoint } | { kind: 'ping'; endpoint: WebhookEndpoint; result: PingResult };

const STATUS_CHANGES: Record<EndpointStatus, { to: EndpointStatus; label: string; done: string } | null> = {
  active: { to: 'paused', label: 'Pause', done: 'Endpoint paused: deliveries queue until you resume it.' },
  paused: { to: 'active', label: 'Resume', done: 'Endpoint resumed: queued deliveries go out now.' },
  disabled: { to: 'active', label: 'Re-enable', done: 'Endpoint re-enabled.' },
};

export function WebhooksPage() {
  const institution = useInstitution();
  const [creating, { open: openCreate, close: closeCreate }] = useDisclosure(false);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const endpoints = useEndpoints(institution.id);

  const setStatus = useApiMutation({
    mutationFn: ({ endpoint, status }: { endpoint: WebhookEndpoint; status: EndpointStatus }) =>
      call(
        portal.PATCH('/institutions/{institution}/webhooks/endpoints/{id}', {
          params: { path: { institution: institution.id, id: endpoint.id } },
          body: { status },
        }),
      ),
    invalidate: [webhooksKey(institution.id)],
    success: (_endpoint, { endpoint }) => STATUS_CHANGES[endpoint.status]?.done ?? 'Endpoint updated.',
  });
  const ping = useApiMutation({
    mutationFn: (endpoint: WebhookEndpoint) =>
      call(portal.POST('/institutions/{institution}/webhooks/endpoints/{id}/test', { params: { path: { institution: institution.id, id: endpoint.id } } })),
    onSuccess: (result, endpoint) => setDialog({ kind: 'ping', endpoint, result }),
  });

  const { mutate: sendPing } = ping;
  const { mutate: changeStatus } = setStatus;
  const columns = useMemo<ColumnDef<WebhookEndpoint>[]>(
    () => [
      {
        header: 'URL',
        id: 'url',
        accessorFn: (row) => row.url,
        cell: ({ row }) => (
          <Stack gap={0} maw={360}>
            <Text size="sm" fw={500} ff="monospace" style={{ wordBreak: 'break-all' }}>
              {row.original.url}
            </Text>
            {row.original.description ? (
              <Text size="xs" c="dimmed">
                {row.original.description}
              </Text>
            ) : null}
          </Stack>
        ),
      },
      {
        header: 'Status',
        id: 'status',
        accessorFn: (row) => row.status,
        cell: ({ row }) =>
          row.original.disabled_reason ? (
            <Tooltip label={DISABLED_REASONS[row.original.disabled_reason] ?? row.original.disabled_reason}>
              <span>
                <StatusBadge status={row.original.status} />
              </span>
            </Tooltip>
          ) : (
            <StatusBadge status={row.original.status} />
          ),
      },
      {
        header: 'Events',
        id: 'events',
        cell: ({ row }) => <TagBadges tags={row.original.events} />,
      },
      {
        header: 'Failures',
        id: 'failures',
        accessorFn: (row) => row.consecutive_failures,
        cell: ({ row }) => (
          <Text
            size="sm"
            c={row.original.consecutive_failures > 0 ? 'orange' : undefined}
            title={`Failed attempts in a row; ${MAX_CONSECUTIVE_FAILURES} disable the endpoint`}
          >
            {row.original.consecutive_failures}
          </Text>
        ),
      },
      { header: 'Created', id: 'created', accessorFn: (row) => row.created_at, cell: ({ row }) => formatDate(row.original.created_at) },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) => {
          const endpoint = row.original;
          const change = STATUS_CHANGES[endpoint.status];
          return (
            <RowActions name={endpoint.url}>
              <Menu.Item component={Link} to={`deliveries?endpoint_id=${encodeURIComponent(endpoint.id)}`}>
                View deliveries
              </Menu.Item>
              {endpoint.status === 'active' ? <Menu.Item onClick={() => sendPing(endpoint)}>Send test ping</Menu.Item> : null}
              <Menu.Item onClick={() => setDialog({ kind: 'edit', endpoint })}>Edit</Menu.Item>
              {change ? <Menu.Item onClick={() => changeStatus({ endpoint, status: change.to })}>{change.label}</Menu.Item> : null}
              <Menu.Item onClick={() => setDialog({ kind: 'rotate', endpoint })}>Rotate secret</Menu.Item>
              <Menu.Divider />
              <Menu.Item color="red" onClick={() => setDialog({ kind: 'delete', endpoint })}>
                Delete
              </Menu.Item>
            </RowActions>
          );
        },
      },
    ],
    [sendPing, changeStatus],
  );

  const count = endpoints.data?.length ?? 0;
  const close = () => setDialog(null);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Endpoints that receive signed events from ${institution.name} as they happen.${endpoints.data ? ` ${count} of ${MAX_ENDPOINTS} endpoints in use.` : ''}`}
        actions={
          <>
            <Button variant="default" component={Link} to="deliveries">
              Delivery log
            </Button>
            <Button variant="default" component={Link} to="signature-check">
              Signature checker
            </Button>
            <Button onClick={openCreate} disabled={count >= MAX_ENDPOINTS}>
              Add endpoint
            </Button>
          </>
        }
      />
      {ping.isPending ? (
        <Alert color="blue" mb="md" role="status">
          Sending a test ping…
        </Alert>
      ) : null}
      <DataTable
        label="Webhook endpoints"
        columns={columns}
        data={endpoints.data}
        isLoading={endpoints.isPending}
        error={endpoints.error}
        getRowId={(row) => row.id}
        rowLink={(row) => `endpoints/${row.id}`}
        empty={{
          title: 'No webhook endpoints yet',
          description: 'Add an endpoint to have events such as exam.graded or student.created pushed to your LMS, signed, with retries.',
        }}
      />
      <SigningNote />
      <CreateEndpointModal opened={creating} onClose={closeCreate} />
      {dialog?.kind === 'edit' ? <EditEndpointModal key={dialog.endpoint.id} endpoint={dialog.endpoint} onClose={close} /> : null}
      {dialog?.kind === 'rotate' ? <RotateSecretModal key={dialog.endpoint.id} endpoint={dialog.endpoint} onClose={close} /> : null}
      {dialog?.kind === 'delete' ? <DeleteEndpointModal endpoint={dialog.endpoint} onClose={close} /> : null}
      {dialog?.kind === 'ping' ? <PingResultModal endpoint={dialog.endpoint} result={dialog.result} onClose={close} /> : null}
    </>
  );
}

/** How a receiver checks a delivery: the few facts an integrator needs without opening the API reference. */
function SigningNote() {
  return (
    <Stack gap={4} mt="xl" maw={720}>
      <Text size="sm" fw={600}>
        Checking signatures
      </Text>
      <Table withRowBorders={false} verticalSpacing={2} fz="sm">
        <Table.Tbody>
          <Table.Tr>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>
              <Code>X-Service-Signature</Code>
            </Table.Td>
            <Table.Td>
              <Code>{'t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>'}</Code>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>
              <Code>webhook-signature</Code>
            </Table.Td>
            <Table.Td>Standard Webhooks; any Standard Webhooks library verifies it with the same secret.</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        Receivers should answer 2xx promptly and be idempotent on X-Service-Event-Id: a delivery that fails is retried, so the same event can arrive twice.
      </Text>
    </Stack>
  );
}
