import { Badge, Button, Checkbox, Group, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { ConfirmModal, FormModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { LABELS, ltiKey, type LtiPlatform, type LtiPlatformUpdate } from './lti';

/** The registered LMSs, each editable in place (its links, subjects and grades stay) or removable. */
export function PlatformsTable({ platforms }: { platforms: LtiPlatform[] }) {
  const institution = useInstitution();
  const [removing, setRemoving] = useState<LtiPlatform | null>(null);
  const [editing, setEditing] = useState<LtiPlatform | null>(null);
  const remove = useApiMutation({
    mutationFn: (id: string) =>
      call(portal.DELETE('/institutions/{id}/lti/platforms/{platformId}', { params: { path: { id: institution.id, platformId: id } } })),
    invalidate: [ltiKey(institution.id)],
    success: 'Platform removed.',
    onSuccess: () => setRemoving(null),
  });
  if (platforms.length === 0) return <Text c="dimmed">No LMS is registered yet.</Text>;
  return (
    <>
      <Table striped aria-label="Platforms">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Platform</Table.Th>
            <Table.Th>Client ID</Table.Th>
            <Table.Th>Deployments</Table.Th>
            <Table.Th>Keys</Table.Th>
            <Table.Th w={140} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {platforms.map((platform) => (
            <Table.Tr key={platform.id}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Text size="sm" fw={500}>
                  {platform.name || platform.issuer}
                </Text>
                {platform.name ? (
                  <Text size="xs" c="dimmed">
                    {platform.issuer}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{platform.client_id}</Table.Td>
              <Table.Td>
                {platform.deployment_ids.join(', ')}
                {platform.provision_users ? (
                  <Badge ml="xs" variant="light" size="sm">
                    Creates users
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{platform.jwks_url ?? 'Pasted public key'}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-sm" variant="subtle" onClick={() => setEditing(platform)} aria-label={`Edit ${platform.name || platform.issuer}`}>
                    Edit
                  </Button>
                  <Button size="compact-sm" variant="subtle" color="red" onClick={() => setRemoving(platform)}>
                    Remove
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {editing ? <EditPlatform platform={editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmModal
        opened={removing !== null}
        title="Remove this platform?"
        confirmLabel="Remove platform"
        color="red"
        loading={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.id)}
        onClose={() => setRemoving(null)}
      >
        <Text size="sm">Launches from {removing?.name || removing?.issuer} stop working, and its links to exams and unsent grades are removed.</Text>
      </ConfirmModal>
    </>
  );
}

/** What an admin changes after registering: the label, the deployments, whether unknown users are created at launch, and who may frame the tool. */
function EditPlatform({ platform, onClose }: { platform: LtiPlatform; onClose(): void }) {
  const institution = useInstitution();
  const [name, setName] = useState(platform.name);
  const [deployments, setDeployments] = useState(platform.deployment_ids.join(', '));
  const [provision, setProvision] = useState(platform.provision_users);
  const [frameOrigins, setFrameOrigins] = useState(platform.listed_frame_origins.join(', '));
  const save = useApiMutation({
    mutationFn: (body: LtiPlatformUpdate) =>
      call(portal.PATCH('/institutions/{id}/lti/platforms/{platformId}', { params: { path: { id: institution.id, platformId: platform.id } }, body })),
    invalidate: [ltiKey(institution.id)],
    success: 'Platform saved.',
    labels: LABELS,
    onSuccess: onClose,
  });
  const errors: Partial<Record<string, string>> = save.fieldErrors;
  // One message for the list: the first origin refused (`frame_origins.2`).
  const frameOriginsError = Object.entries(errors).find(([path]) => path.startsWith('frame_origins'))?.[1];
  return (
    <FormModal
      opened
      title={`Edit ${platform.name || platform.issuer}`}
      formLabel="Edit platform"
      submitLabel="Save"
      loading={save.isPending}
      onClose={onClose}
      onSubmit={() =>
        save.mutate({
          name: name.trim(),
          deployment_ids: deployments
            .split(/[\s,]+/)
            .map((id) => id.trim())
            .filter(Boolean),
          provision_users: provision,
          frame_origins: frameOrigins
            .split(/[\s,]+/)
            .map((origin) => origin.trim())
            .filter(Boolean),
        })
      }
    >
      <Text size="sm" c="dimmed">
        Its links to exams, the people it has signed in and its grades stay as they are.
      </Text>
      <TextInput label={LABELS.name} value={name} onChange={(event) => setName(event.currentTarget.value)} error={errors.name} />
      <TextInput
        label={LABELS.deployment_ids}
        description="Separated by commas"
        value={deployments}
        onChange={(event) => setDeployments(event.currentTarget.value)}
        error={errors.deployment_ids}
      />
      <Checkbox
        label="Create unknown users at launch"
        description="A Learner the appliance does not know becomes a student, an Instructor a faculty member. Off: they are refused."
        checked={provision}
        onChange={(event) => setProvision(event.currentTarget.checked)}
      />
      <TextInput
        label={LABELS.frame_origins}
        description={`Other addresses of this LMS that show CampusBridge inside a course, separated by commas, such as https://school.instructure.com for Canvas. Always allowed: ${platform.frame_origins.filter((origin) => !platform.listed_frame_origins.includes(origin)).join(', ')}.`}
        value={frameOrigins}
        onChange={(event) => setFrameOrigins(event.currentTarget.value)}
        error={frameOriginsError}
      />
    </FormModal>
  );
}
