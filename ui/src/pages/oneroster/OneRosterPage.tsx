import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Fieldset,
  FileInput,
  Group,
  List,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api/client';
import { ConfirmModal, formatDateSeconds, PageHeader, QueryError, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { GradebookPosts } from './GradebookPosts';
import { onerosterKey, type OneRosterConnection, type OneRosterRun, type OneRosterState, type SyncResult } from './oneroster';

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

const OUTCOME_COLORS: Record<OneRosterRun['outcome'], string> = { applied: 'green', dry_run: 'blue', held_back: 'orange', failed: 'red', running: 'gray' };
const OUTCOME_WORDS: Record<OneRosterRun['outcome'], string> = {
  applied: 'Applied',
  dry_run: 'Dry run',
  held_back: 'Held back',
  failed: 'Failed',
  running: 'Running',
};
const TRIGGER_WORDS: Record<OneRosterRun['trigger'], string> = {
  portal: 'portal',
  cli: 'cli',
  scheduled: 'scheduled',
  portal_csv: 'CSV import (portal)',
  cli_csv: 'CSV import (CLI)',
};
const isCsvImport = (run: OneRosterRun) => run.trigger === 'portal_csv' || run.trigger === 'cli_csv';

const percentOf = (share: number | undefined) => (share === undefined ? '' : Math.round(share * 1000) / 10);

function ConnectionForm({ connection }: { connection: OneRosterConnection | null }) {
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
    mutationFn: (body: Record<string, unknown>) => api.put<OneRosterConnection>(`/institutions/${institution.id}/oneroster`, body),
    invalidate: [onerosterKey(institution.id)],
    success: 'OneRoster connection saved.',
    labels: LABELS,
  });
  const errors: Partial<Record<string, string>> = save.fieldErrors;
  const [disconnecting, setDisconnecting] = useState(false);
  const disconnect = useApiMutation({
    mutationFn: () => api.del<{ deleted: true }>(`/institutions/${institution.id}/oneroster`),
    invalidate: [onerosterKey(institution.id)],
    success: 'Disconnected from the SIS. The people and groups it made stay.',
    onSuccess: () => setDisconnecting(false),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      url: url.trim(),
      version,
      token_url: tokenUrl.trim() || null,
      client_id: clientId.trim(),
      ...(secret ? { client_secret: secret } : {}),
      auth_method: authMethod,
      scopes: scopes.trim() || null,
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
        <Group justify="flex-end">
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

const countsLine = (result: SyncResult) =>
  [
    `${result.created.students} students, ${result.created.faculty} faculty, ${result.created.groups} groups created`,
    `${result.updated.students + result.updated.faculty + result.updated.groups} updated`,
    `${result.suspended.students} students, ${result.suspended.faculty} faculty suspended, ${result.suspended.groups} groups retired`,
    `${result.memberships.added} memberships added, ${result.memberships.removed} removed`,
  ].join(' · ');

/** What a sync or an import did (or, dry run or held back, would do); a held-back one offers to apply it past the guard. */
function SyncResultAlert({ result, applyLabel, onApply }: { result: SyncResult; applyLabel: string; onApply(): void }) {
  return (
    <Alert
      role="status"
      color={OUTCOME_COLORS[result.outcome]}
      title={
        result.outcome === 'dry_run'
          ? 'Dry run: nothing was changed'
          : result.outcome === 'held_back'
            ? 'Held back: nothing was changed'
            : OUTCOME_WORDS[result.outcome]
      }
    >
      <Stack gap="xs">
        {result.outcome !== 'failed' ? <Text size="sm">{countsLine(result)}</Text> : null}
        {result.reason ? <Text size="sm">{result.reason}</Text> : null}
        {result.outcome === 'held_back' ? (
          <Group>
            <Button color="orange" onClick={onApply}>
              {applyLabel}
            </Button>
          </Group>
        ) : null}
      </Stack>
    </Alert>
  );
}

function SyncCard() {
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

const PROBLEMS_LISTED = 5;

/** A refused import: the server's message, and the first problems it does not already name as `path: message` lines. */
function ImportError({ error }: { error: Error }) {
  const details = error instanceof ApiError ? error.details.filter((detail) => !error.message.includes(`${detail.path}: ${detail.message}`)) : [];
  return (
    <Alert color="red" role="alert" title={error instanceof ApiError && error.status === 422 ? 'The zip was not imported' : 'That did not work'}>
      <Stack gap="xs">
        <Text size="sm">{error.message}</Text>
        {details.length > 0 ? (
          <List size="sm">
            {details.slice(0, PROBLEMS_LISTED).map((detail) => (
              <List.Item key={`${detail.path}: ${detail.message}`}>
                {detail.path}: {detail.message}
              </List.Item>
            ))}
            {details.length > PROBLEMS_LISTED ? <List.Item>and {details.length - PROBLEMS_LISTED} more</List.Item> : null}
          </List>
        ) : null}
      </Stack>
    </Alert>
  );
}

interface ImportRequest {
  file: File;
  dryRun?: boolean;
  confirm?: boolean;
}

/** A OneRoster CSV zip the SIS exported, dry-run or imported through the same plan and guard as a sync. */
function CsvImportCard() {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  /** The last answer, with the file it was about: a held-back import is applied by posting that file again. */
  const [last, setLast] = useState<{ result: SyncResult; file: File } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const upload = useMutation<SyncResult, Error, ImportRequest>({
    mutationFn: ({ file: zip, dryRun = false, confirm = false }) => {
      const form = new FormData();
      form.append('file', zip, zip.name);
      return api.upload<SyncResult>(`/institutions/${institution.id}/oneroster/import`, form, { dry_run: dryRun, confirm });
    },
    onSuccess: async (result, request) => {
      // A run was recorded (and the roster perhaps changed): the runs list and the connection are read again.
      if (!request.dryRun) await queryClient.invalidateQueries({ queryKey: onerosterKey(institution.id) });
      setLast({ result, file: request.file });
      setConfirming(false);
    },
    onError: () => {
      setLast(null);
      setConfirming(false);
    },
  });
  const choose = (chosen: File | null) => {
    setFile(chosen);
    setLast(null);
    upload.reset();
  };
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Export a OneRoster 1.1 or 1.2 CSV zip from the SIS, bulk or delta. A bulk file is the whole roster: people it no longer lists are suspended. A delta
          file only applies the changes it lists. The same guard as a sync holds back an import that would suspend too many people, until you confirm it.
        </Text>
        {/* No placeholder: Mantine draws it as text of too little contrast (axe, every-page.test.ts). */}
        <FileInput
          label="OneRoster CSV zip"
          description="The zip the SIS exported; choose it, then run a dry run or import it."
          accept=".zip,application/zip"
          clearable
          value={file}
          onChange={choose}
          maw={480}
        />
        <Group>
          <Button
            variant="default"
            disabled={!file}
            loading={upload.isPending && upload.variables?.dryRun === true}
            onClick={() => file && upload.mutate({ file, dryRun: true })}
          >
            Dry run
          </Button>
          <Button disabled={!file} loading={upload.isPending && !upload.variables?.dryRun} onClick={() => file && upload.mutate({ file })}>
            Import
          </Button>
        </Group>
        {upload.error ? <ImportError error={upload.error} /> : null}
        {last ? <SyncResultAlert result={last.result} applyLabel="Apply anyway" onApply={() => setConfirming(true)} /> : null}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title="Apply the held-back import?"
        confirmLabel="Apply the import"
        color="orange"
        loading={upload.isPending}
        onConfirm={() => last && upload.mutate({ file: last.file, confirm: true })}
        onClose={() => setConfirming(false)}
      >
        <Text size="sm">{last?.result.reason}</Text>
        <Text size="sm">The suspended people lose access at once; a later import or sync reactivates anyone the SIS lists as active again.</Text>
      </ConfirmModal>
    </Card>
  );
}

function RunsTable({ runs }: { runs: OneRosterRun[] }) {
  if (runs.length === 0) return <Text c="dimmed">No sync has run yet.</Text>;
  return (
    <Table striped aria-label="Sync runs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={190}>Started</Table.Th>
          <Table.Th>By</Table.Th>
          <Table.Th>Kind</Table.Th>
          <Table.Th w={130}>Outcome</Table.Th>
          <Table.Th>What it did (or would do)</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {runs.map((run) => (
          <Table.Tr key={run.run_id}>
            <Table.Td>{formatDateSeconds(run.started_at)}</Table.Td>
            <Table.Td>{TRIGGER_WORDS[run.trigger]}</Table.Td>
            <Table.Td>{run.kind}</Table.Td>
            <Table.Td>
              <Badge color={OUTCOME_COLORS[run.outcome]} variant="light">
                {OUTCOME_WORDS[run.outcome]}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Stack gap={2}>
                {run.outcome !== 'failed' && run.outcome !== 'running' ? <Text size="sm">{countsLine(run)}</Text> : null}
                {run.reason ? (
                  <Text size="sm" c={run.outcome === 'failed' ? 'red' : 'dimmed'}>
                    {run.reason}
                  </Text>
                ) : null}
              </Stack>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function OneRosterPage() {
  const institution = useInstitution();
  const state = useQuery({ queryKey: onerosterKey(institution.id), queryFn: () => api.get<OneRosterState>(`/institutions/${institution.id}/oneroster`) });
  const heldScheduled = state.data?.runs[0]?.outcome === 'held_back' ? state.data.runs[0] : null;
  return (
    <>
      <PageHeader
        title="OneRoster"
        description="Students, faculty and groups from your SIS's OneRoster rostering service: users become students and faculty, classes groups with their teacher, enrollments their members; people the SIS removes are suspended."
      />
      {state.error ? (
        <QueryError error={state.error} />
      ) : !state.data ? (
        <Skeleton height={320} aria-busy="true" aria-label="Loading" />
      ) : (
        <Stack gap="xl" maw={1100}>
          {heldScheduled ? (
            <Alert color="orange" title={isCsvImport(heldScheduled) ? 'The last CSV import was held back' : 'The last sync was held back'} role="alert">
              {heldScheduled.reason}{' '}
              {isCsvImport(heldScheduled)
                ? 'Import the zip again below and apply it anyway if it is right.'
                : 'Run a dry run to see it, then Sync now and apply it if it is right.'}
            </Alert>
          ) : null}
          {/* Re-mounted when the saved connection changes, so the form starts from what the server holds. */}
          <ConnectionForm key={JSON.stringify(state.data.connection)} connection={state.data.connection} />
          {/* A connection a CSV import made has no REST API to sync through (the server refuses it). */}
          {state.data.connection?.source === 'rest' ? (
            <section aria-labelledby="oneroster-sync">
              <Title order={3} mb="sm" id="oneroster-sync">
                Sync
              </Title>
              <SyncCard />
            </section>
          ) : null}
          <section aria-labelledby="oneroster-csv">
            <Title order={3} mb="sm" id="oneroster-csv">
              Import a OneRoster CSV zip
            </Title>
            <CsvImportCard />
          </section>
          <div>
            <Title order={3} mb="sm">
              Runs
            </Title>
            <RunsTable runs={state.data.runs} />
          </div>
          {state.data.connection?.source === 'rest' ? (
            <section aria-labelledby="oneroster-gradebook">
              <Title order={3} mb="sm" id="oneroster-gradebook">
                Grades sent to the SIS
              </Title>
              <GradebookPosts />
            </section>
          ) : null}
        </Stack>
      )}
    </>
  );
}
