import { Alert, Button, Progress, ScrollArea, Stack, Table, Text } from '@mantine/core';
import { ModalActions } from '../../components/ModalActions';
import type { ImportKind } from './importKind';
import { placementsInWords, rejectedRows, resultFile, type Run } from './importRun';
import { outcomesInWords } from './plan';

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const STOPPED_IN_ROWS =
  'A chunk is written whole or not at all. Resume sends the stopped chunk again; if the appliance had written it before the connection broke, its rows that have an ID come back as already taken.';
const STOPPED_IN_CLASSES = 'Every row is written. Resume goes on placing the students in their classes from the group where it stopped.';

/** The import's progress, then its end: the rejected rows, the result file, and Resume after an error. */
export function RunStep({ kind, run, onResume, onClose }: { kind: ImportKind; run: Run; onResume(): void; onClose(): void }) {
  const totalSteps = run.sendable.length + (run.steps?.length ?? run.classes.length);
  const percent = totalSteps > 0 ? Math.round(((run.sent + run.placedSteps) / totalSteps) * 100) : 100;
  const placing = run.sent === run.sendable.length && run.steps !== null && run.steps.length > 0;
  return (
    <Stack>
      <Text size="sm" aria-live="polite">
        {run.running
          ? placing
            ? `Placing students in their classes: ${run.placedSteps} of ${run.steps!.length} groups.`
            : `Importing: ${run.sent} of ${run.sendable.length} sent.`
          : run.sent < run.sendable.length
            ? `Stopped after ${run.sent} of ${run.sendable.length}.`
            : run.steps && run.placedSteps < run.steps.length
              ? `Stopped placing students in their classes after ${run.placedSteps} of ${run.steps.length} groups.`
              : `Done: ${outcomesInWords(kind, run.outcomes, run.rows.length - run.sendable.length, run.mode)}.${run.classes.length > 0 ? placementsInWords(run) : ''}`}
      </Text>
      <Progress value={percent} size="lg" aria-label="Import progress" aria-valuetext={`${percent}%`} />
      {!run.running && rejectedRows(run).length > 0 ? (
        <ScrollArea.Autosize mah={200}>
          <Table aria-label="Rejected rows" fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Line</Table.Th>
                <Table.Th>Why it was not imported</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rejectedRows(run).map(([line, reason]) => (
                <Table.Tr key={line}>
                  <Table.Td>{line}</Table.Td>
                  <Table.Td>{reason}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      ) : null}
      {run.error ? (
        <Alert color="red" role="alert" title="The import stopped">
          {run.error} {run.sent < run.sendable.length ? STOPPED_IN_ROWS : STOPPED_IN_CLASSES}
        </Alert>
      ) : null}
      <ModalActions onCancel={onClose} cancelLabel={run.running ? 'Cancel' : 'Close'}>
        {run.error ? (
          <Button onClick={onResume} disabled={run.running}>
            Resume
          </Button>
        ) : null}
        <Button variant="default" disabled={run.running} onClick={() => download(`${kind.many.replace(' ', '-')}-import-result.csv`, resultFile(kind, run))}>
          Download the result
        </Button>
      </ModalActions>
    </Stack>
  );
}
