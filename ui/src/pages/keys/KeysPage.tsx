import { Alert, Badge, Button, Code, Group, Menu, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { ApiError, call, portal } from '../../api/portal';
import {
  ConfirmModal,
  DataTable,
  formatDate,
  FormModal,
  PageHeader,
  RowActions,
  SecretOnce,
  StatusBadge,
  TagBadges,
  useApiMutation,
  WholeNumberInput,
} from '../../components';
import { useInstitution } from '../../session';
import { keysQueryKey, MAX_ACTIVE_KEYS, RATE_LIMIT, type ApiKey, type CreatedApiKey } from './keys';
import { ExpiryInput, expiryOfDay, KeyEnd, LastUsed, RollKeyModal } from './KeyLifecycle';
import { ScopePicker } from './ScopePicker';

/** The key forms' labels by API field: shown on the inputs, and in a refusal's words. */
const KEY_LABELS = { name: 'Name', rate_limit_per_min: 'Rate limit (requests per minute)', scopes: 'Scopes', expires_at: 'Expires' } as const;

function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [rateLimit, setRateLimit] = useState<number>(RATE_LIMIT.default);
  const [environment, setEnvironment] = useState<'live' | 'sandbox'>('live');
  const [expiresOn, setExpiresOn] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const create = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{id}/keys', {
          params: { path: { id: institution.id } },
          body: { name: name.trim(), scopes, rate_limit_per_min: rateLimit, environment, expires_at: expiryOfDay(expiresOn) },
        }),
      ),
    invalidate: [keysQueryKey(institution.id)],
    onSuccess: setCreated,
    labels: KEY_LABELS,
  });
  const close = () => {
    setName('');
    setScopes([]);
    setRateLimit(RATE_LIMIT.default);
    setEnvironment('live');
    setExpiresOn('');
    setCreated(null);
    create.reset();
    onClose();
  };
  const atLimit = create.error instanceof ApiError && create.error.code === 'key_limit';

  return (
    <FormModal
      opened={opened}
      title={created ? 'Your new API key' : 'Create an API key'}
      size="xl"
      submitLabel="Create key"
      loading={create.isPending}
      disabled={scopes.length === 0 || !name.trim()}
      onSubmit={() => create.mutate()}
      onClose={close}
      outcome={
        created ? (
          <>
            <SecretOnce label={`Key "${created.name}"`} value={created.key} />
            <Text size="sm">
              Scopes: {created.scopes.join(', ')} · {created.rate_limit_per_min} requests per minute
              {created.expires_at ? ` · expires ${formatDate(created.expires_at)}` : ''}
            </Text>
          </>
        ) : null
      }
    >
      {atLimit ? (
        <Alert color="yellow" title={`At most ${MAX_ACTIVE_KEYS} active keys`} role="alert">
          This institution already holds {MAX_ACTIVE_KEYS} active keys, the most it may. Revoke a key you no longer use, then create this one.
        </Alert>
      ) : null}
      <Radio.Group
        label="Environment"
        description="A sandbox key (cb_test_…) acts on the institution's sandbox only: its own students, exams, webhooks and events, never live data."
        value={environment}
        onChange={(value) => setEnvironment(value === 'sandbox' ? 'sandbox' : 'live')}
      >
        <Group mt="xs">
          <Radio value="live" label="Live" />
          <Radio value="sandbox" label="Sandbox" />
        </Group>
      </Radio.Group>
      <TextInput
        label={KEY_LABELS.name}
        description="Who uses it, e.g. “Moodle production”."
        required
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={create.fieldErrors.name}
        data-autofocus
      />
      <WholeNumberInput
        label={KEY_LABELS.rate_limit_per_min}
        description={`From ${RATE_LIMIT.min} to ${RATE_LIMIT.max}.`}
        min={RATE_LIMIT.min}
        max={RATE_LIMIT.max}
        required
        value={rateLimit}
        onChange={setRateLimit}
        fallback={RATE_LIMIT.min}
        error={create.fieldErrors.rate_limit_per_min}
      />
      <ExpiryInput value={expiresOn} onChange={setExpiresOn} error={create.fieldErrors.expires_at} />
      <ScopePicker value={scopes} onChange={setScopes} role={institution.role} error={create.fieldErrors.scopes} />
    </FormModal>
  );
}

function EditKeyModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose(): void }) {
  const institution = useInstitution();
  const [name, setName] = useState(apiKey?.name ?? '');
  const [rateLimit, setRateLimit] = useState<number>(apiKey?.rate_limit_per_min ?? RATE_LIMIT.default);
  const update = useApiMutation({
    // The modal only opens with a key, so the id is there when this runs.
    mutationFn: () =>
      call(
        portal.PATCH('/institutions/{id}/keys/{keyId}', {
          params: { path: { id: institution.id, keyId: apiKey?.key_id ?? '' } },
          body: { name: name.trim(), rate_limit_per_min: rateLimit },
        }),
      ),
    invalidate: [keysQueryKey(institution.id)],
    success: 'Key updated.',
    onSuccess: onClose,
    labels: KEY_LABELS,
  });
  return (
    <FormModal opened={apiKey !== null} title="Edit key" submitLabel="Save" loading={update.isPending} onSubmit={() => update.mutate()} onClose={onClose}>
      <TextInput
        label={KEY_LABELS.name}
        required
        maxLength={200}
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        error={update.fieldErrors.name}
        data-autofocus
      />
      <WholeNumberInput
        label={KEY_LABELS.rate_limit_per_min}
        min={RATE_LIMIT.min}
        max={RATE_LIMIT.max}
        value={rateLimit}
        onChange={setRateLimit}
        fallback={RATE_LIMIT.min}
        error={update.fieldErrors.rate_limit_per_min}
      />
      <Text size="xs" c="dimmed">
        Scopes are fixed when a key is made; create a new key for different scopes.
      </Text>
    </FormModal>
  );
}

function RevokeKeyModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose(): void }) {
  const institution = useInstitution();
  const revoke = useApiMutation({
    // The modal only opens with a key, so the id is there when this runs.
    mutationFn: () => call(portal.POST('/institutions/{id}/keys/{keyId}/revoke', { params: { path: { id: institution.id, keyId: apiKey?.key_id ?? '' } } })),
    invalidate: [keysQueryKey(institution.id)],
    success: (key) => `Key “${key.name}” revoked.`,
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened={apiKey !== null}
      title="Revoke this key?"
      confirmLabel="Revoke key"
      color="red"
      loading={revoke.isPending}
      onConfirm={() => revoke.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        <b>{apiKey?.name}</b> stops working at once: every request with it is refused. This cannot be undone.
      </Text>
    </ConfirmModal>
  );
}

export function KeysPage() {
  const institution = useInstitution();
  const [creating, { open: openCreate, close: closeCreate }] = useDisclosure(false);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rolling, setRolling] = useState<ApiKey | null>(null);
  const keys = useQuery({
    queryKey: keysQueryKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{id}/keys', { params: { path: { id: institution.id } } })),
  });
  const active = keys.data?.filter((key) => key.status === 'active').length ?? 0;

  const columns = useMemo<ColumnDef<ApiKey>[]>(
    () => [
      { header: 'Name', accessorKey: 'name', cell: ({ row }) => <Text fw={500}>{row.original.name}</Text> },
      {
        // The environment under the key, not in a column of its own: the scopes need the width at 1280 px.
        header: 'Key',
        id: 'key',
        cell: ({ row }) => (
          <Stack gap={4} align="flex-start">
            <Code>{`${row.original.prefix}…${row.original.last4}`}</Code>
            <Badge color={row.original.environment === 'sandbox' ? 'orange' : 'teal'} variant="light" size="sm">
              {row.original.environment === 'sandbox' ? 'Sandbox' : 'Live'}
            </Badge>
          </Stack>
        ),
      },
      {
        header: 'Scopes',
        id: 'scopes',
        cell: ({ row }) => <TagBadges tags={row.original.scopes} />,
      },
      { header: 'Limit / min', accessorKey: 'rate_limit_per_min' },
      {
        header: 'Last used',
        id: 'last_used',
        accessorFn: (row) => row.last_used_at ?? '',
        cell: ({ row }) => <LastUsed apiKey={row.original} />,
      },
      { header: 'Created', id: 'created', accessorFn: (row) => row.created_at, cell: ({ row }) => formatDate(row.original.created_at) },
      { header: 'Ends', id: 'ends', accessorFn: (row) => row.expires_at ?? '', cell: ({ row }) => <KeyEnd apiKey={row.original} keys={keys.data ?? []} /> },
      { header: 'Status', id: 'status', accessorFn: (row) => row.status, cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      {
        header: '',
        id: 'actions',
        cell: ({ row }) =>
          row.original.status === 'active' ? (
            <RowActions name={row.original.name}>
              <Menu.Item onClick={() => setEditing(row.original)}>Edit name or limit</Menu.Item>
              {row.original.replaced_by ? null : <Menu.Item onClick={() => setRolling(row.original)}>Roll key</Menu.Item>}
              <Menu.Item color="red" onClick={() => setRevoking(row.original)}>
                Revoke
              </Menu.Item>
            </RowActions>
          ) : null,
      },
    ],
    [keys.data],
  );

  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys let your LMS call the API for ${institution.name}. ${keys.data ? `${active} of ${MAX_ACTIVE_KEYS} active keys in use.` : ''}`}
        actions={<Button onClick={openCreate}>Create key</Button>}
      />
      {active >= MAX_ACTIVE_KEYS ? (
        <Alert color="yellow" mb="md" title="Key limit reached">
          An institution may hold {MAX_ACTIVE_KEYS} active keys. Revoke one you no longer use before creating another.
        </Alert>
      ) : null}
      <DataTable
        label="API keys"
        columns={columns}
        data={keys.data}
        isLoading={keys.isPending}
        error={keys.error}
        getRowId={(row) => row.key_id}
        empty={{
          title: 'No API keys yet',
          description: 'Create a key for your LMS, with only the scopes it needs.',
          action: <Button onClick={openCreate}>Create key</Button>,
        }}
      />
      <CreateKeyModal opened={creating} onClose={closeCreate} />
      {editing ? <EditKeyModal key={editing.key_id} apiKey={editing} onClose={() => setEditing(null)} /> : null}
      <RevokeKeyModal apiKey={revoking} onClose={() => setRevoking(null)} />
      <RollKeyModal apiKey={rolling} onClose={() => setRolling(null)} />
    </>
  );
}
