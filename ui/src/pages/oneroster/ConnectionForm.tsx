import { Alert, Button, Checkbox, Fieldset, Group, NumberInput, PasswordInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { onerosterKey, type OneRosterConnection, type OneRosterConnectionInput } from './oneroster';

/** The form's labels by API field: on the inputs and in every refusal's words. */
const LABELS = {
  url: 'Base URL',
  version: 'OneRoster version',
  token_url: 'Token URL',
  client_id: 'Client ID',
  client_secret: 'Client secret',
  auth_method: 'Client authentication',
  scopes: 'Scopes',
  class_share: 'Largest share of a class',
  class_minimum: 'Fewest people that count',
  school_share: 'Largest share of the school',
  schedule_hours: 'Sync every (hours)',
  gradebook_writeback: 'Send grades to the SIS',
} as const;

const percentOf = (share: number | undefined) => (share === undefined ? '' : Math.round(share * 1000) / 10);

/** The SIS connection: its service, credentials, guard, schedule and gradebook, saved or disconnected. */
export function ConnectionForm({ connection }: { connection: OneRosterConnection | null }) {
  const institution = useInstitution();
  const [url, setUrl] = useState(connection?.url ?? '');
  const [version, setVersion] = useState<'1.2' | '1.1'>(connection?.version ?? '1.2');
  const [tokenUrl, setTokenUrl] = useState(connection?.token_url ?? '');
  const [clientId, setClientId] = useState(connection?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [authMethod, setAuthMethod] = useState<'basic' | 'form'>(connection?.auth_method ?? 'basic');
  const [scopes, setScopes] = useState(connection?.scopes ?? '');
  const [classShare, setClassShare] = useState<number | string>(percentOf(connection?.class_share ?? 0.25));
  const [classMinimum, setClassMinimum] = useState<number | string>(connection?.class_minimum ?? 4);
  const [schoolShare, setSchoolShare] = useState<number | string>(percentOf(connection?.school_share ?? 0.1));
  const [scheduleHours, setScheduleHours] = useState<number | string>(connection?.schedule_hours ?? '');
  const [gradebook, setGradebook] = useState(connection?.gradebook_writeback ?? false);
  /** A connection a CSV import made has no URL or credentials: the form connects the REST API to it. */
  const rest = connection?.source === 'rest';

  const save = useApiMutation({
    mutationFn: (body: OneRosterConnectionInput) => call(portal.PUT('/institutions/{id}/oneroster', { params: { path: { id: institution.id } }, body })),
    invalidate: [onerosterKey(institution.id)],
    success: 'OneRoster connection saved.',
    labels: LABELS,
  });
  const errors: Partial<Record<string, string>> = save.fieldErrors;
  const [disconnecting, setDisconnecting] = useState(false);
  const disconnect = useApiMutation({
    mutationFn: () => call(portal.DELETE('/institutions/{id}/oneroster', { params: { path: { id: institution.id } } })),
    invalidate: [onerosterKey(institution.id)],
    success: 'Disconnected from the SIS. The people and groups it made stay.',
    onSuccess: () => setDisconnecting(false),
  });

  /** The service and credentials as typed: what a test sends, and the first half of what a save does. */
  const service = () => ({
    url: url.trim(),
    version,
    token_url: tokenUrl.trim() || null,
    client_id: clientId.trim(),
    ...(secret ? { client_secret: secret } : {}),
    auth_method: authMethod,
    scopes: scopes.trim() || null,
  });
  const [tested, setTested] = useState<{ ok: boolean; message: string } | null>(null);
  const test = useApiMutation({
    mutationFn: () => {
      setTested(null);
      return call(portal.POST('/institutions/{id}/oneroster/test', { params: { path: { id: institution.id } }, body: service() }));
    },
    onSuccess: setTested,
    labels: LABELS,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      ...service(),
      class_share: Number(classShare) / 100,
      class_minimum: Number(classMinimum),
      school_share: Number(schoolShare) / 100,
      schedule_hours: scheduleHours === '' ? null : Number(scheduleHours),
      gradebook_writeback: version === '1.2' && gradebook,
    });
  };

  return (
    <form onSubmit={submit} aria-label="OneRoster connection">
      <Stack gap="lg">
        <Fieldset legend="Your SIS's rostering service">
          <Stack gap="sm">
            {connection && !rest ? (
              <Text size="sm" c="dimmed">
                Rosters come from CSV imports. Connect the SIS&apos;s REST API below to sync through it instead.
              </Text>
            ) : null}
            <TextInput
              label={LABELS.url}
              description="Where the SIS serves OneRoster; the version's path (/ims/oneroster/…) is added to it."
              placeholder="https://sis.school.example"
              required
              value={url}
              onChange={(event) => setUrl(event.currentTarget.value)}
              error={errors.url}
            />
            <Stack gap={4}>
              <Text size="sm" fw={500} id="oneroster-version">
                {LABELS.version}
              </Text>
              <SegmentedControl
                aria-labelledby="oneroster-version"
                value={version}
                onChange={(value) => setVersion(value as '1.2' | '1.1')}
                data={[
                  { value: '1.2', label: '1.2' },
                  { value: '1.1', label: '1.1 (older SIS)' },
                ]}
                w="fit-content"
              />
            </Stack>
            <TextInput
              label={LABELS.token_url}
              description="The SIS's OAuth 2 token endpoint; empty means the base URL followed by /token."
              value={tokenUrl}
              onChange={(event) => setTokenUrl(event.currentTarget.value)}
              error={errors.token_url}
            />
          </Stack>
        </Fieldset>
        <Fieldset legend="OAuth 2 client credentials">
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label={LABELS.client_id}
                required
                value={clientId}
                onChange={(event) => setClientId(event.currentTarget.value)}
                error={errors.client_id}
              />
              <PasswordInput
                label={LABELS.client_secret}
                description={connection?.client_secret_set ? 'A secret is stored; leave empty to keep it.' : 'Stored sealed; never shown again.'}
                required={!rest}
                autoComplete="new-password"
                value={secret}
                onChange={(event) => setSecret(event.currentTarget.value)}
                error={errors.client_secret}
              />
            </SimpleGrid>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="oneroster-auth">
                {LABELS.auth_method}
              </Text>
              <SegmentedControl
                aria-labelledby="oneroster-auth"
                value={authMethod}
                onChange={(value) => setAuthMethod(value as 'basic' | 'form')}
                data={[
                  { value: 'basic', label: 'HTTP Basic' },
                  { value: 'form', label: 'In the form body' },
                ]}
                w="fit-content"
              />
            </Stack>
            <TextInput
              label={LABELS.scopes}
              description="Space-separated; empty means the version's read-only roster scope."
              value={scopes}
              onChange={(event) => setScopes(event.currentTarget.value)}
              error={errors.scopes}
            />
          </Stack>
        </Fieldset>
        <Fieldset legend="Guard and schedule">
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              A sync that would suspend more than these shares is held back, nothing changed, until you confirm it.
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <NumberInput label={`${LABELS.class_share} (%)`} min={0} max={100} value={classShare} onChange={setClassShare} error={errors.class_share} />
              <NumberInput
                label={LABELS.class_minimum}
                description="people in one class"
                min={1}
                max={1000}
                allowDecimal={false}
                value={classMinimum}
                onChange={setClassMinimum}
                error={errors.class_minimum}
              />
              <NumberInput
                label={`${LABELS.school_share} (%)`}
                description="of its active students"
                min={0}
                max={100}
                value={schoolShare}
                onChange={setSchoolShare}
                error={errors.school_share}
              />
            </SimpleGrid>
            <NumberInput
              label={LABELS.schedule_hours}
              description="Empty: no scheduled sync, only when you run one."
              min={1}
              max={168}
              allowDecimal={false}
              value={scheduleHours}
              onChange={setScheduleHours}
              error={errors.schedule_hours}
              maw={240}
            />
          </Stack>
        </Fieldset>
        <Fieldset legend="Grades back to the SIS">
          <Checkbox
            label={LABELS.gradebook_writeback}
            description={
              version === '1.2'
                ? "When a student the SIS knows is graded on an exam assigned to their synced class, the exam's line item and the result are sent to the SIS's OneRoster 1.2 gradebook. The SIS client needs the gradebook.createput scope too."
                : 'Needs OneRoster 1.2 (its Gradebook service).'
            }
            disabled={version !== '1.2'}
            checked={version === '1.2' && gradebook}
            onChange={(event) => setGradebook(event.currentTarget.checked)}
            error={errors.gradebook_writeback}
          />
        </Fieldset>
        {tested ? (
          <Alert color={tested.ok ? 'teal' : 'red'} title={tested.ok ? 'The SIS answered' : 'The connection failed'} role="status">
            {tested.message}
          </Alert>
        ) : null}
        <Text size="sm" c="dimmed">
          People already here are kept, not made twice: a SIS user is matched to a student or teacher this school has by the link an earlier sync made, then by
          the SIS&apos;s identifier (the Student ID or Faculty ID here), then by email. Only the rest are created. Nothing is written until you sync, and a dry
          run shows the plan first.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" loading={test.isPending} disabled={!url.trim() || !clientId.trim()} onClick={() => test.mutate()}>
            Test connection
          </Button>
          {connection ? (
            <Button variant="default" color="red" onClick={() => setDisconnecting(true)}>
              Disconnect
            </Button>
          ) : null}
          <Button type="submit" loading={save.isPending}>
            {rest ? 'Save connection' : 'Connect'}
          </Button>
        </Group>
      </Stack>
      <ConfirmModal
        opened={disconnecting}
        title="Disconnect from the SIS?"
        confirmLabel="Disconnect"
        color="red"
        loading={disconnect.isPending}
        onConfirm={() => disconnect.mutate()}
        onClose={() => setDisconnecting(false)}
      >
        <Text size="sm">
          The connection, its secret and its run history are removed. The students, faculty and groups it made stay as they are; connecting again matches them
          by their identifier or email.
        </Text>
      </ConfirmModal>
    </form>
  );
}
