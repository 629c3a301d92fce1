import { Alert, Anchor, Button, Card, Code, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { call, portal } from '../../api/portal';
import { PageHeader } from '../../components';
import { useInstitution } from '../../session';
import { OverviewCharts } from './OverviewCharts';

/** Where an integrator starts: the institution at a glance, the base URL, the institution id, the next steps for the role. */
export function OverviewPage() {
  const institution = useInstitution();
  // The saved address (the one links use), not the one this browser happens to open the portal at.
  const appliance = useQuery({ queryKey: ['appliance'], queryFn: () => call(portal.GET('/appliance')), staleTime: 60_000 });
  const baseUrl = `${appliance.data?.public_url ?? window.location.origin}/v1`;
  const base = `/i/${institution.id}`;
  return (
    <>
      <PageHeader
        title={institution.name}
        description={`You are signed in as ${institution.role === 'admin' ? 'an admin' : 'a developer'} of this institution.`}
      />
      <Stack>
        {institution.status === 'pending' ? (
          <Alert color="yellow" title="Waiting for approval">
            The appliance operator has not approved this institution yet. Keys can be created now and start working once it is approved.
          </Alert>
        ) : null}
        {institution.status === 'suspended' ? (
          <Alert color="red" title="Suspended">
            The appliance operator suspended this institution: its API keys are refused until it is approved again.
          </Alert>
        ) : null}
        <OverviewCharts institutionId={institution.id} />
        <Card withBorder>
          <Stack gap="xs">
            <Text fw={600}>Connect your LMS</Text>
            <Group gap="sm">
              <Text size="sm">API base URL</Text>
              <Code>{baseUrl}</Code>
              <CopyButton value={baseUrl}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Group gap="sm">
              <Text size="sm">Institution id</Text>
              <Code>{institution.id}</Code>
            </Group>
            <Text size="sm">
              Send the key as <Code>Authorization: Bearer &lt;key&gt;</Code>. The{' '}
              <Anchor href="/v1/docs" target="_blank" rel="noreferrer">
                API reference
              </Anchor>{' '}
              lists every operation and lets you try them.
            </Text>
          </Stack>
        </Card>
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Card withBorder>
            <Text fw={600}>1. Create an API key</Text>
            <Text size="sm" c="dimmed" mb="sm">
              Pick only the scopes your integration needs.
            </Text>
            <Button component={Link} to={`${base}/keys`} variant="light" size="xs">
              API keys
            </Button>
          </Card>
          <Card withBorder>
            <Text fw={600}>2. Receive webhooks</Text>
            <Text size="sm" c="dimmed" mb="sm">
              Get signed events when students, exams or grades change.
            </Text>
            <Button component={Link} to={`${base}/webhooks`} variant="light" size="xs">
              Webhooks
            </Button>
          </Card>
          <Card withBorder>
            <Text fw={600}>3. {institution.role === 'admin' ? 'Invite your developers' : 'Read the scopes'}</Text>
            <Text size="sm" c="dimmed" mb="sm">
              {institution.role === 'admin' ? 'They manage keys and webhooks; you keep licenses and settings.' : 'What each scope lets a key do.'}
            </Text>
            <Button component={Link} to={`${base}/${institution.role === 'admin' ? 'developers' : 'scopes'}`} variant="light" size="xs">
              {institution.role === 'admin' ? 'Team' : 'Scopes'}
            </Button>
          </Card>
        </SimpleGrid>
      </Stack>
    </>
  );
}
