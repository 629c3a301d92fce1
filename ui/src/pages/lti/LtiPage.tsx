import {
  Button,
  Card,
  Checkbox,
  Code,
  CopyButton,
  Fieldset,
  Group,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { formatDateSeconds, PageHeader, QueryError, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { LABELS, ltiKey, ltiScoresKey, type LtiOverview, type LtiPlatform, type LtiScorePost } from './lti';
import { LinksTable } from './LinksTable';
import { PlatformsTable } from './PlatformsTable';
import { OutboundPostsTable } from '../shared/OutboundPostsTable';

function CopyValue({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code style={{ overflowWrap: 'anywhere', flex: 1 }}>{value}</Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

function CopyBlock({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Code block style={{ maxHeight: 220, overflow: 'auto' }}>
        {value}
      </Code>
    </Stack>
  );
}

function ToolSide({ tool }: { tool: LtiOverview['tool'] }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Paste these into the LMS when you add CampusBridge as an LTI 1.3 tool (Moodle: External tool → Configure a tool manually; Canvas: Developer Keys → LTI
          Key, or paste the JSON). They use this appliance&apos;s public address (Appliance settings).
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <CopyValue label="Login initiation URL" value={tool.login_url} />
          <CopyValue label="Launch and redirect URL" value={tool.launch_url} />
          <CopyValue label="Key set URL" value={tool.jwks_url} />
          <CopyValue label="Deep linking URL" value={tool.deep_linking_url} />
        </SimpleGrid>
        <CopyBlock label="Public key (PEM)" value={tool.public_key_pem} />
        <CopyBlock label="Public key (JWK)" value={JSON.stringify(tool.public_jwk, null, 2)} />
        <CopyBlock label="Canvas JSON configuration" value={JSON.stringify(tool.canvas_config, null, 2)} />
      </Stack>
    </Card>
  );
}

/** Dynamic Registration: a single-use URL (an hour) the admin pastes into the LMS, which then registers itself. */
function DynamicRegistration() {
  const institution = useInstitution();
  const [made, setMade] = useState<{ url: string; expires_at: string } | null>(null);
  const create = useApiMutation({
    mutationFn: () => api.post<{ url: string; expires_at: string }>(`/institutions/${institution.id}/lti/registrations`, {}),
    onSuccess: (data) => setMade(data),
  });
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Text size="sm">
          If your LMS offers LTI Dynamic Registration (Moodle 4: Manage tools → Tool URL → Add LTI Advantage; Canvas: Developer Keys → LTI Registration), paste
          this URL there: the LMS and CampusBridge exchange everything above, and the platform appears in the list. It works once, within an hour.
        </Text>
        {made ? <CopyValue label="Registration URL" value={made.url} /> : null}
        {made ? (
          <Text size="xs" c="dimmed">
            Valid until {formatDateSeconds(made.expires_at)}, once.
          </Text>
        ) : null}
        <Group>
          <Button variant={made ? 'default' : 'filled'} loading={create.isPending} onClick={() => create.mutate()}>
            {made ? 'Make another registration URL' : 'Make a registration URL'}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function PlatformForm() {
  const institution = useInstitution();
  const [name, setName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [deployments, setDeployments] = useState('');
  const [authUrl, setAuthUrl] = useState('');
  const [tokenUrl, setTokenUrl] = useState('');
  const [keySource, setKeySource] = useState<'url' | 'pasted'>('url');
  const [jwksUrl, setJwksUrl] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [provision, setProvision] = useState(false);
  const add = useApiMutation({
    mutationFn: (body: Record<string, unknown>) => api.post<LtiPlatform>(`/institutions/${institution.id}/lti/platforms`, body),
    invalidate: [ltiKey(institution.id)],
    success: 'Platform registered.',
    labels: LABELS,
    onSuccess: () => {
      for (const reset of [setName, setIssuer, setClientId, setDeployments, setAuthUrl, setTokenUrl, setJwksUrl, setPublicKey]) reset('');
      setProvision(false);
    },
  });
  const errors: Partial<Record<string, string>> = add.fieldErrors;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({
      ...(name.trim() ? { name: name.trim() } : {}),
      issuer: issuer.trim(),
      client_id: clientId.trim(),
      deployment_ids: deployments
        .split(/[\s,]+/)
        .map((id) => id.trim())
        .filter(Boolean),
      auth_url: authUrl.trim(),
      token_url: tokenUrl.trim(),
      ...(keySource === 'url' ? { jwks_url: jwksUrl.trim() } : { public_key: publicKey }),
      provision_users: provision,
    });
  };
  return (
    <form onSubmit={submit} aria-label="Register a platform">
      <Fieldset legend="Register an LMS (platform)">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            The LMS shows these when you add the tool (Moodle: the tool&apos;s &quot;View configuration details&quot;; Canvas: the developer key&apos;s Client
            ID and the deployment ID of the course or account).
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label={LABELS.name} placeholder="Moodle" value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.name} />
            <TextInput
              label={LABELS.issuer}
              placeholder="https://moodle.school.example"
              required
              value={issuer}
              onChange={(e) => setIssuer(e.currentTarget.value)}
              error={errors.issuer}
            />
            <TextInput label={LABELS.client_id} required value={clientId} onChange={(e) => setClientId(e.currentTarget.value)} error={errors.client_id} />
            <TextInput
              label={LABELS.deployment_ids}
              description="Separated by commas"
              required
              value={deployments}
              onChange={(e) => setDeployments(e.currentTarget.value)}
              error={errors.deployment_ids}
            />
            <TextInput label={LABELS.auth_url} required value={authUrl} onChange={(e) => setAuthUrl(e.currentTarget.value)} error={errors.auth_url} />
            <TextInput
              label={LABELS.token_url}
              description="For sending grades back"
              required
              value={tokenUrl}
              onChange={(e) => setTokenUrl(e.currentTarget.value)}
              error={errors.token_url}
            />
          </SimpleGrid>
          <Stack gap={4}>
            <Text size="sm" fw={500} id="lti-key-source">
              The platform&apos;s keys
            </Text>
            <SegmentedControl
              aria-labelledby="lti-key-source"
              value={keySource}
              onChange={(value) => setKeySource(value as 'url' | 'pasted')}
              data={[
                { value: 'url', label: 'Key set URL' },
                { value: 'pasted', label: 'Paste a public key' },
              ]}
              w="fit-content"
            />
          </Stack>
          {keySource === 'url' ? (
            <TextInput label={LABELS.jwks_url} required value={jwksUrl} onChange={(e) => setJwksUrl(e.currentTarget.value)} error={errors.jwks_url} />
          ) : (
            <Textarea
              label={LABELS.public_key}
              description="PEM (-----BEGIN PUBLIC KEY-----) or a JWK: for an LMS in the cloud whose key set this appliance cannot reach"
              required
              autosize
              minRows={4}
              value={publicKey}
              onChange={(e) => setPublicKey(e.currentTarget.value)}
              error={errors.public_key}
            />
          )}
          <Checkbox
            label="Create unknown users at launch"
            description="A launch by someone this school does not have yet adds them: a Learner as a student, an Instructor as a faculty member, with the LMS's name and email. Off: they are refused until the school adds them."
            checked={provision}
            onChange={(e) => setProvision(e.currentTarget.checked)}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={add.isPending}>
              Register platform
            </Button>
          </Group>
        </Stack>
      </Fieldset>
    </form>
  );
}

function ScorePosts() {
  const institution = useInstitution();
  return (
    <OutboundPostsTable<LtiScorePost>
      queryKey={ltiScoresKey(institution.id)}
      listPath={`/institutions/${institution.id}/lti/score-posts`}
      label="Grades sent to the LMS"
      empty="No grade has been sent to an LMS yet."
      columns={[
        { header: 'LMS user', cell: (post) => String(post.payload.userId ?? '') },
        { header: 'Score', cell: (post) => `${String(post.payload.scoreGiven ?? '')} / ${String(post.payload.scoreMaximum ?? '')}` },
      ]}
    />
  );
}

/** Settings → LTI: the tool's side to paste into the LMS, the registered platforms, and the grades sent back. */
export function LtiPage() {
  const institution = useInstitution();
  const overview = useQuery({ queryKey: ltiKey(institution.id), queryFn: () => api.get<LtiOverview>(`/institutions/${institution.id}/lti`) });
  return (
    <>
      <PageHeader
        title="LTI 1.3"
        description="Open exams from your LMS: students land in the exam, teachers pick exams for a course (deep linking), and grades go back to the LMS gradebook."
      />
      {overview.error ? (
        <QueryError error={overview.error} />
      ) : !overview.data ? (
        <Skeleton height={320} aria-busy="true" aria-label="Loading" />
      ) : (
        <Stack gap="xl" maw={1100}>
          <div>
            <Title order={3} mb="sm">
              This tool, for your LMS
            </Title>
            <ToolSide tool={overview.data.tool} />
          </div>
          <div>
            <Title order={3} mb="sm">
              Platforms
            </Title>
            <Stack gap="lg">
              <PlatformsTable platforms={overview.data.platforms} />
              <DynamicRegistration />
              <PlatformForm />
            </Stack>
          </div>
          <div>
            <Title order={3} mb="sm">
              Links and class lists
            </Title>
            <LinksTable links={overview.data.links} />
          </div>
          <div>
            <Title order={3} mb="sm">
              Grades sent to the LMS
            </Title>
            <ScorePosts />
          </div>
        </Stack>
      )}
    </>
  );
}
