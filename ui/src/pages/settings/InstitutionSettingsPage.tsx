import { Button, Card, Fieldset, Group, JsonInput, NumberInput, SimpleGrid, Skeleton, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { formatDate, PageHeader, QueryError, StatusBadge, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { configKey, settingsKey, type InstitutionProfile, type IntegrationConfig } from './settings';

const COUNT_LABELS: Array<[keyof InstitutionProfile['counts'], string]> = [
  ['students', 'Students'],
  ['faculty', 'Faculty'],
  ['groups', 'Groups'],
  ['exams', 'Exams'],
  ['active_licenses', 'Active licenses'],
];

function ProfileCard() {
  const institution = useInstitution();
  const profile = useQuery({
    queryKey: settingsKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{institution}/institution', { params: { path: { institution: institution.id } } })),
  });
  if (profile.error) return <QueryError error={profile.error} />;
  const data = profile.data;
  return (
    <Card withBorder padding="lg" aria-busy={profile.isPending}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <Stack gap={2}>
            <Title order={3}>{data?.name ?? institution.name}</Title>
            <Text size="xs" c="dimmed" ff="monospace">
              {institution.id}
            </Text>
          </Stack>
          {data ? <StatusBadge status={data.status} /> : null}
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 5 }} spacing="md">
          {COUNT_LABELS.map(([field, label]) => (
            <Stack key={field} gap={0}>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
              {data ? (
                <Text size="xl" fw={600}>
                  {data.counts[field].toLocaleString()}
                </Text>
              ) : (
                <Skeleton height={28} width={48} />
              )}
            </Stack>
          ))}
        </SimpleGrid>
        <Text size="sm" c="dimmed">
          On this appliance since {data ? formatDate(data.created_at) : '…'}. The name and status are set by the appliance operator.
        </Text>
      </Stack>
    </Card>
  );
}

/** The config form's labels by API field (nested ones by their path): shown on the inputs, and in every problem's words. */
const LABELS = {
  'default_ai_policy.allowed': 'AI assistance allowed',
  'default_ai_policy.model_tier': 'Model tier',
  'default_ai_policy.max_interactions': 'Max interactions per attempt',
  'default_proctoring.camera': 'Camera',
  'default_proctoring.screen': 'Screen recording',
  allowed_toolchains: 'Allowed toolchains',
  toolchain_mirror: 'Toolchain mirror',
  lms: 'LMS settings',
} as const;

/** `{…}` as typed, `null` when empty (only where null is allowed), or a message saying what is wrong. */
function parseObject(text: string, allowEmpty: boolean): { value: Record<string, unknown> | null } | { error: string } {
  if (!text.trim()) return allowEmpty ? { value: null } : { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
    if (value === null && allowEmpty) return { value: null };
  } catch {
    return { error: 'that is not valid JSON' };
  }
  return { error: 'must be a JSON object, such as {"url": "https://…"}' };
}

const pretty = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2));

function ConfigForm({ config }: { config: IntegrationConfig }) {
  const institution = useInstitution();
  const [aiAllowed, setAiAllowed] = useState(config.default_ai_policy.allowed ?? false);
  const [modelTier, setModelTier] = useState(config.default_ai_policy.model_tier ?? 'standard');
  const [maxInteractions, setMaxInteractions] = useState<number | string>(config.default_ai_policy.max_interactions ?? 0);
  const [camera, setCamera] = useState(config.default_proctoring.camera ?? false);
  const [screen, setScreen] = useState(config.default_proctoring.screen ?? false);
  const [toolchains, setToolchains] = useState<string[]>(config.allowed_toolchains);
  const [mirror, setMirror] = useState(pretty(config.toolchain_mirror));
  const [lms, setLms] = useState(pretty(config.lms));
  /** What the browser found wrong before sending, by API field. */
  const [problems, setProblems] = useState<{ toolchain_mirror?: string; lms?: string }>({});

  const save = useApiMutation({
    mutationFn: (next: IntegrationConfig) =>
      call(portal.PUT('/institutions/{institution}/institution/config', { params: { path: { institution: institution.id } }, body: next })),
    invalidate: [configKey(institution.id)],
    success: 'Integration config saved. The API answers with it from now on.',
    labels: LABELS,
  });
  const errors: Partial<Record<string, string>> = { ...save.fieldErrors, ...problems };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const mirrorValue = parseObject(mirror, true);
    const lmsValue = parseObject(lms, false);
    setProblems({
      ...('error' in mirrorValue ? { toolchain_mirror: `${LABELS.toolchain_mirror}: ${mirrorValue.error}` } : {}),
      ...('error' in lmsValue ? { lms: `${LABELS.lms}: ${lmsValue.error}` } : {}),
    });
    if ('error' in mirrorValue || 'error' in lmsValue) return;
    save.mutate({
      default_ai_policy: { allowed: aiAllowed, model_tier: modelTier.trim(), max_interactions: Number(maxInteractions) || 0 },
      default_proctoring: { camera, screen },
      allowed_toolchains: toolchains,
      toolchain_mirror: mirrorValue.value,
      lms: lmsValue.value ?? {},
    });
  };

  return (
    <form onSubmit={submit} aria-label="Integration config">
      <Stack gap="lg">
        <Fieldset legend="Default AI policy for new exams">
          <Stack gap="sm">
            <Switch
              label={LABELS['default_ai_policy.allowed']}
              checked={aiAllowed}
              onChange={(event) => setAiAllowed(event.currentTarget.checked)}
              error={errors['default_ai_policy.allowed']}
            />
            <Group grow align="flex-start">
              <TextInput
                label={LABELS['default_ai_policy.model_tier']}
                required
                maxLength={50}
                value={modelTier}
                onChange={(event) => setModelTier(event.currentTarget.value)}
                error={errors['default_ai_policy.model_tier']}
              />
              <NumberInput
                label={LABELS['default_ai_policy.max_interactions']}
                error={errors['default_ai_policy.max_interactions']}
                description="0 means none"
                min={0}
                max={100_000}
                allowDecimal={false}
                allowNegative={false}
                value={maxInteractions}
                onChange={setMaxInteractions}
              />
            </Group>
          </Stack>
        </Fieldset>
        <Fieldset legend="Default proctoring for new exams">
          <Group>
            <Switch
              label={LABELS['default_proctoring.camera']}
              checked={camera}
              onChange={(event) => setCamera(event.currentTarget.checked)}
              error={errors['default_proctoring.camera']}
            />
            <Switch
              label={LABELS['default_proctoring.screen']}
              checked={screen}
              onChange={(event) => setScreen(event.currentTarget.checked)}
              error={errors['default_proctoring.screen']}
            />
          </Group>
        </Fieldset>
        <Fieldset legend="Coding exams">
          <Stack gap="sm">
            <TagsInput
              label={LABELS.allowed_toolchains}
              error={errors.allowed_toolchains}
              description="Press Enter after each name, for example python-3.12. Up to 100, each once."
              value={toolchains}
              onChange={setToolchains}
              maxTags={100}
              allowDuplicates={false}
              clearable
            />
            <JsonInput
              label={LABELS.toolchain_mirror}
              description='A JSON object, such as {"url": "https://mirror.school.example/toolchains"}; leave empty for none.'
              value={mirror}
              onChange={setMirror}
              error={errors.toolchain_mirror}
              formatOnBlur
              autosize
              minRows={2}
              maxRows={10}
            />
          </Stack>
        </Fieldset>
        <Fieldset legend="Learning management system">
          <JsonInput
            label={LABELS.lms}
            description="Your learning management system's own settings, as a JSON object. Empty means {}."
            value={lms}
            onChange={setLms}
            error={errors.lms}
            formatOnBlur
            autosize
            minRows={3}
            maxRows={14}
          />
        </Fieldset>
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            Save integration config
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function InstitutionSettingsPage() {
  const institution = useInstitution();
  const config = useQuery({
    queryKey: configKey(institution.id),
    queryFn: () => call(portal.GET('/institutions/{institution}/institution/config', { params: { path: { institution: institution.id } } })),
  });
  return (
    <>
      <PageHeader
        title="Institution settings"
        description="Your institution's profile and the integration config that GET /v1/institution/config returns to your systems. Saving replaces the whole config, as PUT /v1/institution/config does."
      />
      <Stack gap="xl" maw={960}>
        <ProfileCard />
        <div>
          <Title order={3} mb="sm">
            Integration config
          </Title>
          {config.error ? (
            <QueryError error={config.error} />
          ) : config.data ? (
            // Re-mounted when the saved config changes, so the form starts from what the server holds.
            <ConfigForm key={JSON.stringify(config.data)} config={config.data} />
          ) : (
            <Stack gap="sm" aria-busy="true" aria-label="Loading">
              {[0, 1, 2].map((index) => (
                <Skeleton key={index} height={72} radius="sm" />
              ))}
            </Stack>
          )}
        </div>
      </Stack>
    </>
  );
}
