import { Badge, Stack, Table, Text } from '@mantine/core';
import { formatDateSeconds } from '../../components';
import type { OneRosterRun } from './oneroster';
import { countsLine, OUTCOME_COLORS, OUTCOME_WORDS, TRIGGER_WORDS } from './runWords';

/** The runs, syncs and CSV imports, each with its outcome and what it did (or would do). */
export function RunsTable({ runs }: { runs: OneRosterRun[] }) {
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
