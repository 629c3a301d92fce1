import { Alert, Button, Checkbox, Group, Modal, Paper, Progress, ScrollArea, Select, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useRef, useState, type DragEvent } from 'react';
import { ModalActions } from '../../components/ModalActions';
import { useInstitution } from '../../session';
import { CHUNK, planRows, type ImportKind, type PlannedRow, type RowOutcome } from './kinds';
import { ACCEPTED_FILES, readImportFile } from './readFile';
import { guessMapping, looksLikeHeader, toCsv, type ColumnMapping, type ParsedTable } from './table';

interface Loaded {
  name: string;
  table: ParsedTable;
  hasHeader: boolean;
  mapping: ColumnMapping;
}

interface Run {
  rows: PlannedRow[];
  /** Rows without problems, in file order: what is sent, CHUNK at a time. */
  sendable: PlannedRow[];
  /** How many of `sendable` have been sent and answered. */
  sent: number;
  outcomes: RowOutcome[];
  error: string | null;
  running: boolean;
}

/** A column as the mapping step offers it: its number, and its title or first value. */
function columnLabel(table: ParsedTable, hasHeader: boolean, index: number): string {
  const sample = table.rows[0]?.[index];
  return `Column ${index + 1}${sample ? ` (${hasHeader ? '' : 'e.g. '}${sample.slice(0, 30)})` : ''}`;
}

/** The result file: every line of the import, created or rejected, with the reason in words. */
function resultFile(kind: ImportKind, run: Run): string {
  const header = ['line', ...kind.fields.map((field) => field.label), 'result', kind.createdAs, 'reason'];
  const byLine = new Map<number, RowOutcome>(run.outcomes.map((outcome) => [outcome.line, outcome]));
  const lines = run.rows.map((row) => {
    const outcome = byLine.get(row.line);
    const values = kind.fields.map((field) => row.values[field.key] ?? '');
    if (row.problem) return [row.line, ...values, 'rejected', '', row.problem];
    if (!outcome) return [row.line, ...values, 'not sent', '', 'The import stopped before this line.'];
    return 'created' in outcome ? [row.line, ...values, kind.verb, outcome.created, ''] : [row.line, ...values, 'rejected', '', outcome.rejected];
  });
  return toCsv([header, ...lines]);
}

/** Line and reason of every row not imported, in file order: problems found here and refusals of the appliance. */
function rejectedRows(run: Run): Array<[number, string]> {
  const refused = new Map(run.outcomes.flatMap((outcome) => ('rejected' in outcome ? [[outcome.line, outcome.rejected] as const] : [])));
  return run.rows.flatMap((row): Array<[number, string]> => {
    const reason = row.problem ?? refused.get(row.line);
    return reason ? [[row.line, reason]] : [];
  });
}

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

/**
 * Importing people from a CSV or Excel (.xlsx) file (docs/install.md#importing-people-from-a-spreadsheet): choose or drop the file, check which
 * column is which, see each line's problem before anything is written, then import in chunks of
 * CHUNK with a progress bar. An error stops the import where it is, and Resume goes on from that
 * chunk; the result file lists every line, created or rejected with the reason.
 */
export function ImportWizard({ kind, opened, onClose, invalidate }: { kind: ImportKind; opened: boolean; onClose(): void; invalidate: QueryKey[] }) {
  const institution = useInstitution();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [run, setRun] = useState<Run | null>(null);

  const close = () => {
    if (run?.running) return;
    setLoaded(null);
    setFileError(null);
    setRun(null);
    onClose();
  };

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setFileError(null);
    let table: ParsedTable;
    try {
      table = await readImportFile(file);
    } catch (error) {
      setFileError(error instanceof Error ? error.message : String(error));
      return;
    }
    if (table.rows.length === 0) {
      setFileError(`${file.name} has no rows.`);
      return;
    }
    const hasHeader = looksLikeHeader(table.rows[0], kind.fields);
    const columns = Math.max(...table.rows.map((row) => row.length));
    setLoaded({ name: file.name, table, hasHeader, mapping: guessMapping(kind.fields, hasHeader ? table.rows[0]! : null, columns) });
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void readFile(event.dataTransfer.files[0]);
  };

  const planned = loaded ? planRows(kind, loaded.table.rows, loaded.hasHeader, loaded.mapping) : [];
  const problems = planned.filter((row) => row.problem);
  const missingRequired = loaded ? kind.fields.filter((field) => field.required && loaded.mapping[field.key] === null) : [];

  const go = async (start: Run) => {
    let current: Run = { ...start, running: true, error: null };
    setRun(current);
    while (current.sent < current.sendable.length) {
      const chunk = current.sendable.slice(current.sent, current.sent + CHUNK);
      try {
        const outcomes = await kind.send(institution.id, chunk);
        current = { ...current, sent: current.sent + chunk.length, outcomes: [...current.outcomes, ...outcomes] };
      } catch (error) {
        current = { ...current, running: false, error: error instanceof Error ? error.message : String(error) };
        setRun(current);
        return;
      }
      setRun(current);
    }
    setRun({ ...current, running: false });
    await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };

  const columns = loaded ? Math.max(...loaded.table.rows.map((row) => row.length)) : 0;
  const columnOptions = loaded
    ? Array.from({ length: columns }, (_, index) => ({ value: String(index), label: columnLabel(loaded.table, loaded.hasHeader, index) }))
    : [];
  const created = run?.outcomes.filter((outcome) => 'created' in outcome).length ?? 0;
  const rejected = (run?.outcomes.length ?? 0) - created + (run ? run.rows.length - run.sendable.length : 0);
  const percent = run && run.sendable.length > 0 ? Math.round((run.sent / run.sendable.length) * 100) : 100;
  const title = `Import ${kind.many}`;

  return (
    <Modal opened={opened} onClose={close} title={title} size="xl" closeOnClickOutside={!run?.running}>
      {run ? (
        <Stack>
          <Text size="sm" aria-live="polite">
            {run.running
              ? `Importing: ${run.sent} of ${run.sendable.length} sent.`
              : run.sent < run.sendable.length
                ? `Stopped after ${run.sent} of ${run.sendable.length}.`
                : `Done: ${created} ${created === 1 ? kind.one : kind.many} ${kind.verb}, ${rejected} rejected.`}
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
              {run.error} A chunk is written whole or not at all. Resume sends the stopped chunk again; if the appliance had written it before the connection
              broke, its rows that have an ID come back as already taken.
            </Alert>
          ) : null}
          <ModalActions onCancel={close} cancelLabel={run.running ? 'Cancel' : 'Close'}>
            {run.error ? (
              <Button onClick={() => void go(run)} disabled={run.running}>
                Resume
              </Button>
            ) : null}
            <Button
              variant="default"
              disabled={run.running}
              onClick={() => download(`${kind.many.replace(' ', '-')}-import-result.csv`, resultFile(kind, run))}
            >
              Download the result
            </Button>
          </ModalActions>
        </Stack>
      ) : loaded ? (
        <Stack>
          <Text size="sm">
            <b>{loaded.name}</b>: {planned.length.toLocaleString()} {planned.length === 1 ? 'row' : 'rows'}
            {loaded.table.delimiter ? `, separated by “${loaded.table.delimiter === '\t' ? 'tab' : loaded.table.delimiter}”.` : ', from its first sheet.'}
          </Text>
          <Checkbox
            label="The first line is a header (column titles)"
            checked={loaded.hasHeader}
            onChange={(event) => setLoaded({ ...loaded, hasHeader: event.currentTarget.checked })}
          />
          <SimpleGrid cols={{ base: 1, sm: kind.fields.length }}>
            {kind.fields.map((field) => (
              <Select
                key={field.key}
                label={field.label}
                description={field.required ? 'Required' : 'Optional'}
                placeholder="Not imported"
                data={columnOptions}
                value={loaded.mapping[field.key] === null ? null : String(loaded.mapping[field.key])}
                onChange={(value) => setLoaded({ ...loaded, mapping: { ...loaded.mapping, [field.key]: value === null ? null : Number(value) } })}
                clearable={!field.required}
              />
            ))}
          </SimpleGrid>
          {missingRequired.length > 0 ? (
            <Alert color="yellow" role="alert">
              Choose the column of: {missingRequired.map((field) => field.label).join(', ')}.
            </Alert>
          ) : (
            <Text size="sm" aria-live="polite">
              {planned.length - problems.length} ready to import, {problems.length} with a problem (not imported).
            </Text>
          )}
          <Text fw={600} size="sm">
            Preview
          </Text>
          <ScrollArea.Autosize mah={240}>
            <Table striped aria-label="Preview" fz="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Line</Table.Th>
                  {kind.fields.map((field) => (
                    <Table.Th key={field.key}>{field.label}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {planned.slice(0, 5).map((row) => (
                  <Table.Tr key={row.line}>
                    <Table.Td>{row.line}</Table.Td>
                    {kind.fields.map((field) => (
                      <Table.Td key={field.key}>{row.values[field.key] || '—'}</Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
          {problems.length > 0 && missingRequired.length === 0 ? (
            <>
              <Text fw={600} size="sm">
                Problems
              </Text>
              <ScrollArea.Autosize mah={200}>
                <Table aria-label="Problems" fz="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Line</Table.Th>
                      <Table.Th>Problem</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {problems.map((row) => (
                      <Table.Tr key={row.line}>
                        <Table.Td>{row.line}</Table.Td>
                        <Table.Td>{row.problem}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollArea.Autosize>
            </>
          ) : null}
          <ModalActions onCancel={close}>
            <Button variant="default" onClick={() => setLoaded(null)}>
              Another file
            </Button>
            <Button
              disabled={missingRequired.length > 0 || planned.length === problems.length}
              onClick={() => void go({ rows: planned, sendable: planned.filter((row) => !row.problem), sent: 0, outcomes: [], error: null, running: true })}
            >
              Import {planned.length - problems.length} {planned.length - problems.length === 1 ? kind.one : kind.many}
            </Button>
          </ModalActions>
        </Stack>
      ) : (
        <Stack>
          <Paper
            withBorder
            p="xl"
            radius="md"
            style={{ borderStyle: 'dashed', background: dragging ? 'var(--mantine-color-blue-light)' : undefined, textAlign: 'center' }}
            onDragOver={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={drop}
          >
            <Stack align="center" gap="xs">
              <Text>Drop a CSV or Excel (.xlsx) file here</Text>
              <Text size="sm" c="dimmed">
                CSV comma- or semicolon-separated, as spreadsheets save it, or an Excel workbook's first sheet; a header line is recognised.
              </Text>
              <Group>
                <Button onClick={() => input.current?.click()}>Choose a file</Button>
              </Group>
              <input
                ref={input}
                type="file"
                accept={ACCEPTED_FILES}
                aria-label="CSV or Excel file"
                hidden
                onChange={(event) => {
                  void readFile(event.currentTarget.files?.[0]);
                  event.currentTarget.value = '';
                }}
              />
            </Stack>
          </Paper>
          {fileError ? (
            <Alert color="red" role="alert">
              {fileError}
            </Alert>
          ) : null}
          <Text size="sm" c="dimmed">
            Columns: {kind.fields.map((field) => `${field.label}${field.required ? '' : ' (optional)'}`).join(', ')}. Nothing is written until you have seen the
            preview.
          </Text>
        </Stack>
      )}
    </Modal>
  );
}
