import { Alert, Anchor, Button, Code, Group, PasswordInput, Select, SimpleGrid, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { call, portal } from '../../api/portal';
import { PageHeader, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { VERDICT_TITLES, type SignatureCheckRequest, type SignatureCheckResult, type SignatureFinding } from './debugging';
import { useEndpoints } from './webhooks';

const LEVEL_COLORS = { ok: 'teal', warning: 'yellow', error: 'red' } as const;
const SCHEME_NAMES = { 'x-service-signature': 'X-Service-Signature', 'standard-webhooks': 'Standard Webhooks' } as const;

/**
 * The signature checker: an integrator pastes a request as their receiver logged it (and the secret
 * they verify with) and is told exactly why it does not verify. The secret is sent once to the
 * appliance, which neither stores nor logs it.
 */
export function SignatureCheckPage() {
  const institution = useInstitution();
  const [params, setParams] = useSearchParams();
  const endpoints = useEndpoints(institution.id);
  const endpointId = params.get('endpoint_id') ?? endpoints.data?.[0]?.id ?? null;
  const [body, setBody] = useState('');
  const [headers, setHeaders] = useState('');
  const [secret, setSecret] = useState('');
  const [result, setResult] = useState<SignatureCheckResult | null>(null);
  const check = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{id}/webhook-debugging/endpoints/{endpointId}/signature-check', {
          // The button waits for an endpoint, so the id is there when this runs.
          params: { path: { id: institution.id, endpointId: endpointId ?? '' } },
          body: { body, headers, ...(secret.trim() ? { secret: secret.trim() } : {}) } satisfies SignatureCheckRequest,
        }),
      ),
    onSuccess: setResult,
  });
  return (
    <Stack gap="lg">
      <PageHeader
        title="Signature checker"
        description="Paste a webhook request as your receiver got it: you are told whether it verifies, and if not, exactly why."
        actions={
          <Anchor component={Link} to=".." relative="path" size="sm">
            ← Webhooks
          </Anchor>
        }
      />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Stack>
          <Select
            label="Endpoint"
            description="The endpoint the request was sent to: its current and previous secrets are tried (they are never shown)."
            data={(endpoints.data ?? []).map((endpoint) => ({
              value: endpoint.id,
              label: endpoint.description ? `${endpoint.url} (${endpoint.description})` : endpoint.url,
            }))}
            value={endpointId}
            onChange={(value) => {
              if (value) setParams({ endpoint_id: value }, { replace: true });
              setResult(null);
            }}
            allowDeselect={false}
          />
          <Textarea
            label="Raw body"
            description="Exactly the bytes received, before any JSON parsing."
            autosize
            minRows={6}
            maxRows={16}
            value={body}
            onChange={(event) => setBody(event.currentTarget.value)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <Textarea
            label="Headers"
            description="As logged: Name: value lines, or a JSON object."
            autosize
            minRows={5}
            maxRows={12}
            value={headers}
            onChange={(event) => setHeaders(event.currentTarget.value)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <PasswordInput
            label="Your secret (optional)"
            description="The whsec_… secret your receiver verifies with, to tell whether it is the right one. Not stored."
            value={secret}
            onChange={(event) => setSecret(event.currentTarget.value)}
            autoComplete="off"
          />
          <Group>
            <Button onClick={() => check.mutate()} loading={check.isPending} disabled={!endpointId || body === '' || headers.trim() === ''}>
              Check signature
            </Button>
          </Group>
        </Stack>
        <Stack>{result ? <Verdict result={result} /> : <Text c="dimmed">The verdict appears here.</Text>}</Stack>
      </SimpleGrid>
    </Stack>
  );
}

function Verdict({ result }: { result: SignatureCheckResult }) {
  const main = result.findings.find((finding) => finding.code === result.verdict);
  return (
    <Stack gap="sm" aria-label="Verdict">
      <Alert color={LEVEL_COLORS[main?.level ?? 'ok']} title={VERDICT_TITLES[result.verdict]} role="status" data-testid="verdict">
        {main?.message ?? 'The signature is valid.'}
      </Alert>
      {result.findings
        .filter((finding) => finding !== main)
        .map((finding) => (
          <FindingCard key={`${finding.code}:${finding.message}`} finding={finding} />
        ))}
      {main && (main.expected !== undefined || main.received !== undefined) ? <Values finding={main} /> : null}
      <Text size="xs" c="dimmed">
        {result.delivery_id ? (
          <>
            Compared with delivery <Code>{result.delivery_id}</Code>, named by the pasted headers.{' '}
          </>
        ) : (
          'The pasted headers name none of this endpoint’s deliveries: the body was checked by itself. '
        )}
        Timestamps are accepted within {result.tolerance_seconds / 60} minutes.
      </Text>
    </Stack>
  );
}

function FindingCard({ finding }: { finding: SignatureFinding }) {
  return (
    <Alert color={LEVEL_COLORS[finding.level]} variant="outline" title={VERDICT_TITLES[finding.code]}>
      <Stack gap={4}>
        <Text size="sm">{finding.message}</Text>
        {finding.schemes.length > 0 ? (
          <Text size="xs" c="dimmed">
            {finding.schemes.map((scheme) => SCHEME_NAMES[scheme]).join(', ')}
          </Text>
        ) : null}
        {finding.expected !== undefined || finding.received !== undefined ? <Values finding={finding} /> : null}
      </Stack>
    </Alert>
  );
}

function Values({ finding }: { finding: SignatureFinding }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xs">
      {finding.expected !== undefined ? (
        <Stack gap={2}>
          <Text size="xs" fw={600}>
            Expected
          </Text>
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {finding.expected}
          </Code>
        </Stack>
      ) : null}
      {finding.received !== undefined ? (
        <Stack gap={2}>
          <Text size="xs" fw={600}>
            Received
          </Text>
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {finding.received}
          </Code>
        </Stack>
      ) : null}
    </SimpleGrid>
  );
}
