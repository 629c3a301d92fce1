import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { formatDateSeconds, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { CopyValue } from './CopyFields';

/** Dynamic Registration: a single-use URL (an hour) the admin pastes into the LMS, which then registers itself. */
export function DynamicRegistration() {
  const institution = useInstitution();
  const [made, setMade] = useState<{ url: string; expires_at: string } | null>(null);
  const create = useApiMutation({
    mutationFn: () => call(portal.POST('/institutions/{id}/lti/registrations', { params: { path: { id: institution.id } } })),
    onSuccess: (data) => setMade(data),
  });
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Text fw={600}>The easy way: Dynamic Registration</Text>
        <Text size="sm">
          Moodle 4.1 and later and Canvas register the tool themselves from one address: make it here and paste it into the LMS (Moodle: Site administration →
          Plugins → External tool → Manage tools → &ldquo;Tool URL&rdquo; → Add LTI Advantage; Canvas: Developer Keys → + Developer Key → LTI Registration). The
          LMS then appears under Platforms below. The address works once, within an hour.
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
