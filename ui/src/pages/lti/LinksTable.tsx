import { Badge, Button, Group, Table, Text } from '@mantine/core';
import { call, portal } from '../../api/portal';
import { formatDateSeconds, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { ltiKey, type LtiLink, type LtiMembersSync } from './lti';

const OUTCOME_COLORS: Record<LtiMembersSync['outcome'], string> = { running: 'blue', applied: 'green', dry_run: 'gray', held_back: 'orange', failed: 'red' };
const OUTCOME_WORDS: Record<LtiMembersSync['outcome'], string> = {
  running: 'Running',
  applied: 'Synced',
  dry_run: 'Dry run',
  held_back: 'Held back',
  failed: 'Failed',
};

/** What a sync did (or would do), in words. */
function describeSync(run: LtiMembersSync): string {
  const created = run.created.students + run.created.faculty;
  return `${run.members} in the course: ${run.memberships.added} added to the group, ${run.memberships.removed} removed, ${created} created, ${run.skipped} skipped.`;
}

/** The LMS's resource links, with the class list (NRPS) of each: its last sync and "Sync class list" (docs/lms.md). */
export function LinksTable({ links }: { links: LtiLink[] }) {
  const institution = useInstitution();
  const sync = useApiMutation({
    mutationFn: ({ id, dryRun, confirm }: { id: string; dryRun?: boolean; confirm?: boolean }) =>
      call(
        portal.POST('/institutions/{id}/lti/links/{link}/members/sync', {
          // Both flags always go in the URL, false unless asked for.
          params: {
            path: { id: institution.id, link: id },
            query: { dry_run: dryRun === true ? 'true' : 'false', confirm: confirm === true ? 'true' : 'false' },
          },
        }),
      ),
    invalidate: [ltiKey(institution.id)],
    success: (run) => `${OUTCOME_WORDS[run.outcome]}. ${run.reason ?? describeSync(run)}`,
  });
  if (links.length === 0) return <Text c="dimmed">No LMS link yet: a teacher adds one by picking an exam in the LMS.</Text>;
  return (
    <Table striped aria-label="LMS links">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Link</Table.Th>
          <Table.Th>Class list</Table.Th>
          <Table.Th w={300} />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {links.map((link) => {
          const last = link.last_members_sync;
          const busy = sync.isPending && sync.variables?.id === link.id;
          return (
            <Table.Tr key={link.id}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Text size="sm" fw={500}>
                  {link.title ?? link.resource_link_id}
                </Text>
                <Text size="xs" c="dimmed">
                  {link.exam_id ? `Exam ${link.exam_id}` : 'Not linked to an exam'}
                </Text>
              </Table.Td>
              <Table.Td>
                {!link.has_class_list ? (
                  <Text size="xs" c="dimmed">
                    Not offered by the LMS yet (a teacher's launch brings it)
                  </Text>
                ) : last ? (
                  <>
                    <Badge color={OUTCOME_COLORS[last.outcome]} variant="light">
                      {OUTCOME_WORDS[last.outcome]}
                    </Badge>
                    <Text size="xs">{formatDateSeconds(last.started_at)}</Text>
                    <Text size="xs" c={last.outcome === 'failed' || last.outcome === 'held_back' ? 'red' : 'dimmed'}>
                      {last.reason ?? describeSync(last)}
                    </Text>
                  </>
                ) : (
                  <Text size="xs" c="dimmed">
                    Never synced
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                {link.has_class_list && link.exam_id ? (
                  <Group gap="xs" justify="flex-end">
                    <Button size="compact-sm" variant="default" disabled={busy} onClick={() => sync.mutate({ id: link.id, dryRun: true })}>
                      Dry run
                    </Button>
                    {last?.outcome === 'held_back' ? (
                      <Button size="compact-sm" color="orange" loading={busy} onClick={() => sync.mutate({ id: link.id, confirm: true })}>
                        Apply anyway
                      </Button>
                    ) : (
                      <Button size="compact-sm" loading={busy} onClick={() => sync.mutate({ id: link.id })}>
                        Sync class list
                      </Button>
                    )}
                  </Group>
                ) : null}
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
