import { Alert, Button, Code, Group, Menu, Modal, Stack, Table, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError } from '../../api/client';
import { ConfirmModal, DataTable, formatDate, FormModal, PageHeader, RowActions, SecretOnce, StatusBadge, TagBadges, useApiMutation, WholeNumberInput } from '../../components';
import { useInstitution } from '../../session';
import { EventPatternPicker } from './EventPatternPicker';
import {
  DISABLED_REASONS,
  endpointsKey,
  GRACE_HOURS,
  MAX_ENDPOINTS,
  useEndpoints,
  webhooksKey,
  type CreatedEndpoint,
  type EndpointStatus,
  type PingResult,
  type RotatedEndpoint,
  type WebhookEndpoint,
} from './webhooks';

/** The field an API refusal is about, so the form can show it under that field. */
function fieldErrors(error: unknown): { url?: string; events?: string } {
  if (!(error instanceof ApiError)) return {};
  if (error.code === 'https_required' || error.code === 'private_host') return { url: error.message };
  if (error.code === 'events_required') return { events: error.message };
  return {};
}

interface EndpointFormValues {
  url: string;
  description: string;
  events: string[];
}

/** URL, description and event patterns: the same fields to add an endpoint and to edit one. */
function EndpointFields({ values, onChange, error }: { values: EndpointFormValues; onChange(values: EndpointFormValues): void; error: unknown }) {
  const errors = fieldErrors(error);
  return (
    <>
      <TextInput
        label="URL"
        description="Where deliveries are POSTed; https, on a public host."
        placeholder="https://lms.example.edu/hooks/campusbridge"
        type="url"
        required
        maxLength={2048}
        value={values.url}
        onChange={(event) => onChange({ ...values, url: event.currentTarget.value })}
        error={errors.url}
        data-autofocus
      />
      <Textarea
        label="Description"
        description="Optional: what this endpoint is for."
        maxLength={500}
        autosize
        minRows={1}
        value={values.description}
        onChange={(event) => onChange({ ...values, description: event.currentTarget.value })}
      />
      <EventPatternPicker value={values.events} onChange={(events) => onChange({ ...values, events })} error={errors.events} />
    </>
  );
}

const EMPTY_FORM: EndpointFormValues = { url: '', description: '', events: [] };

function CreateEndpointModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [values, setValues] = useState<EndpointFormValues>(EMPTY_FORM);
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const create = useApiMutation({
    mutationFn: () =>
      api.post<CreatedEndpoint>(`/institutions/${institution.id}/webhooks/endpoints`, { url: values.url.trim(), description: values.description.trim(), events: values.events }),
    invalidate: [endpointsKey(institution.id)],
    success: 'Endpoint added.',
    onSuccess: setCreated,
  });
  const close = () => {
    setValues(EMPTY_FORM);
    setCreated(null);
    create.reset();
    onClose();
  };
  const atLimit = create.error instanceof ApiError && create.error.code === 'endpoint_limit';

  return (
    <FormModal
      opened={opened}
      title={created ? 'Endpoint added' : 'Add a webhook endpoint'}
      size="lg"
      submitLabel="Create endpoint"
      loading={create.isPending}
      disabled={!values.url.trim() || values.events.length === 0}
      onSubmit={() => create.mutate()}
      onClose={close}
      outcome={
        created ? (
          <>
            <SecretOnce
              label="Signing secret"
              value={created.secret}
              note="Your receiver checks each delivery's signature with this secret. Copy it now: it is shown only this once (rotate it to get a new one)."
            />
            <Text size="sm">
              <Code>{created.url}</Code> receives {created.events.join(', ')}.
            </Text>
          </>
        ) : null
      }
    >
      {atLimit ? (
        <Alert color="yellow" title={`At most ${MAX_ENDPOINTS} endpoints`} role="alert">
          This institution already has {MAX_ENDPOINTS} webhook endpoints. Delete one you no longer use, then add this one.
        </Alert>
      ) : null}
      <EndpointFields values={values} onChange={setValues} error={create.error} />
    </FormModal>
  );
}

function EditEndpointModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const [values, setValues] = useState<EndpointFormValues>({ url: endpoint.url, description: endpoint.description, events: endpoint.events });
  const update = useApiMutation({
    mutationFn: () =>
      api.patch<WebhookEndpoint>(`/institutions/${institution.id}/webhooks/endpoints/${endpoint.id}`, {
        url: values.url.trim(),
        description: values.description.trim(),
        events: values.events,
      }),
    invalidate: [endpointsKey(institution.id)],
    success: 'Endpoint updated.',
    onSuccess: onClose,
  });
  return (
    <FormModal
      opened
      title="Edit endpoint"
      size="lg"
      submitLabel="Save"
      loading={update.isPending}
      disabled={!values.url.trim() || values.events.length === 0}
      onSubmit={() => update.mutate()}
      onClose={onClose}
    >
      <EndpointFields values={values} onChange={setValues} error={update.error} />
    </FormModal>
  );
}

function RotateSecretModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const [graceHours, setGraceHours] = useState<number>(GRACE_HOURS.default);
  const [rotated, setRotated] = useState<RotatedEndpoint | null>(null);
  const rotate = useApiMutation({
    mutationFn: () => api.post<RotatedEndpoint>(`/institutions/${institution.id}/webhooks/endpoints/${endpoint.id}/rotate-secret`, { grace_hours: graceHours }),
    invalidate: [endpointsKey(institution.id)],
    success: 'Secret rotated.',
    onSuccess: setRotated,
  });
  return (
    <FormModal
      opened
      title={rotated ? 'New signing secret' : 'Rotate the signing secret'}
      size="lg"
      submitLabel="Rotate secret"
      loading={rotate.isPending}
      onSubmit={() => rotate.mutate()}
      onClose={onClose}
      outcome={
        rotated ? (
          <>
            <SecretOnce label="New signing secret" value={rotated.secret} />
            <Text size="sm">
              {graceHours > 0
                ? `Until ${formatDate(rotated.previous_secret_expires_at)} deliveries are signed with both the old and the new secret, so your receiver can switch without missing any.`
                : 'The old secret no longer signs deliveries.'}
            </Text>
          </>
        ) : null
      }
    >
      <Text size="sm">
        A new secret signs deliveries to <Code>{endpoint.url}</Code> from now on. During the grace period the current secret signs them too.
      </Text>
      <WholeNumberInput
        label="Grace period (hours)"
        description={`From ${GRACE_HOURS.min} to ${GRACE_HOURS.max}; 0 retires the current secret at once.`}
        min={GRACE_HOURS.min}
        max={GRACE_HOURS.max}
        required
        value={graceHours}
        onChange={setGraceHours}
        fallback={0}
        data-autofocus
      />
    </FormModal>
  );
}

function PingResultModal({ endpoint, result, onClose }: { endpoint: WebhookEndpoint; result: PingResult; onClose(): void }) {
  return (
    <Modal opened onClose={onClose} title="Test ping" size="lg">
      <Stack>
        <Alert color={result.delivered ? 'teal' : 'red'} title={result.delivered ? 'Delivered' : 'Not delivered'} role="status">
          {result.delivered
            ? `${endpoint.url} answered ${result.response_status} in ${result.response_time_ms} ms.`
            : result.response_status === null
              ? `No answer from ${endpoint.url} (timed out, refused or unreachable) after ${result.response_time_ms} ms.`
              : `${endpoint.url} answered ${result.response_status} in ${result.response_time_ms} ms; only a 2xx counts as delivered.`}
        </Alert>
        {result.response_body ? (
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Response body
            </Text>
            <Code block style={{ maxHeight: 240, overflow: 'auto' }}>
              {result.response_body}
            </Code>
          </Stack>
        ) : null}
        <Text size="xs" c="dimmed">
          A ping is a signed webhook.ping event. It is not stored as a delivery and does not count toward failures.
        </Text>
        <Group justify="flex-end">
          <Button onClick={onClose}>Close</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function DeleteEndpointModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const remove = useApiMutation({
    mutationFn: () => api.del(`/institutions/${institution.id}/webhooks/endpoints/${endpoint.id}`),
    // Its deliveries go with it: the log changes too.
    invalidate: [webhooksKey(institution.id)],
    success: 'Endpoint deleted.',
    onSuccess: onClose,
  });
  return (
    <ConfirmModal opened title="Delete this endpoint?" confirmLabel="Delete endpoint" color="red" loading={remove.isPending} onConfirm={() => remove.mutate()} onClose={onClose}>
      <Text size="sm">
        <Code>{endpoint.url}</Code> stops receiving events, and its deliveries, queued ones included, are deleted with it. This cannot be undone.
      </Text>
    </ConfirmModal>
  );
}

type Dialog =
  | { kind: 'edit' | 'rotate' | 'delete'; endpoint: WebhookEndpoint }
  | { kind: 'ping'; endpoint: WebhookEndpoint; result: PingResult };

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
      api.patch<WebhookEndpoint>(`/institutions/${institution.id}/webhooks/endpoints/${endpoint.id}`, { status }),
    invalidate: [webhooksKey(institution.id)],
    success: (_endpoint, { endpoint }) => STATUS_CHANGES[endpoint.status]?.done ?? 'Endpoint updated.',
  });
  const ping = useApiMutation({
    mutationFn: (endpoint: WebhookEndpoint) => api.post<PingResult>(`/institutions/${institution.id}/webhooks/endpoints/${endpoint.id}/test`),
    onSuccess: (result, endpoint) => setDialog({ kind: 'ping', endpoint, result }),
  });

  const { mutate: sendPing } = ping;
  const { mutate: changeStatus } = setStatus;
  const columns = useMemo<ColumnDef<WebhookEndpoint>[]>(
    () => [
      {
        header: 'URL',
        id: 'url',
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
        cell: ({ row }) => (
          <Text size="sm" c={row.original.consecutive_failures > 0 ? 'orange' : undefined} title="Failed attempts in a row; 30 disable the endpoint">
            {row.original.consecutive_failures}
          </Text>
        ),
      },
      { header: 'Created', id: 'created', cell: ({ row }) => formatDate(row.original.created_at) },
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
