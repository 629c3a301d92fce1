import { Button, Checkbox, Fieldset, Group, SegmentedControl, SimpleGrid, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { LABELS, ltiKey, type LtiPlatformInput } from './lti';

/** Registers an LMS by hand: its issuer, client and deployment IDs, endpoints and keys. */
export function PlatformForm() {
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
    mutationFn: (body: LtiPlatformInput) => call(portal.POST('/institutions/{id}/lti/platforms', { params: { path: { id: institution.id } }, body })),
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
              description="Moodle: Platform ID. Canvas: https://canvas.instructure.com"
              required
              value={issuer}
              onChange={(e) => setIssuer(e.currentTarget.value)}
              error={errors.issuer}
            />
            <TextInput
              label={LABELS.client_id}
              description="Moodle: Client ID. Canvas: the developer key's number"
              required
              value={clientId}
              onChange={(e) => setClientId(e.currentTarget.value)}
              error={errors.client_id}
            />
            <TextInput
              label={LABELS.deployment_ids}
              description="Moodle: Deployment ID. Several: separated by commas"
              required
              value={deployments}
              onChange={(e) => setDeployments(e.currentTarget.value)}
              error={errors.deployment_ids}
            />
            <TextInput
              label={LABELS.auth_url}
              description="Moodle: Authentication request URL"
              required
              value={authUrl}
              onChange={(e) => setAuthUrl(e.currentTarget.value)}
              error={errors.auth_url}
            />
            <TextInput
              label={LABELS.token_url}
              description="Moodle: Access token URL. Used to send grades back"
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
            <TextInput
              label={LABELS.jwks_url}
              description="Moodle: Public keyset URL"
              required
              value={jwksUrl}
              onChange={(e) => setJwksUrl(e.currentTarget.value)}
              error={errors.jwks_url}
            />
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
